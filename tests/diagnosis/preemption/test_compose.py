"""The preemption report says one thing about the victim's preemptibility, everywhere.

The victim line, the table's verdict (a priority preemption of a non-preemptible victim is a
contradiction: UNKNOWN), the protections and the advice all read the same judgement; what
was not read stays "unknown" and judges nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

from diagnosis.preemption.compose import compose_preemption
from diagnosis.preemption.kinds import decide_kind
from diagnosis.preemption.texts import PreemptionKind
from tests.diagnosis.preemption import builders as b
from tests.line_one import HEADLINE_MAX

K = PreemptionKind
NON_PREEMPTIBLE_ADVICE = "non-preemptible priority"


@pytest.mark.parametrize(
    ("victim", "kind", "said", "violated"),
    [
        pytest.param({"preemptible": True, "priority": 50}, K.PRIORITY_PREEMPTION, "preemptible", False, id="preemptible"),
        pytest.param({"preemptible": False, "priority": 50}, K.UNKNOWN, "non-preemptible", None, id="flag-false"),
        pytest.param({"preemptible": None, "priority": 125}, K.UNKNOWN, "non-preemptible (priority 125 >= 100, no preemptible flag)", None, id="priority-125"),
        pytest.param({"preemptible": None, "priority": None}, K.PRIORITY_PREEMPTION, "preemptibility unknown", None, id="unknown-stays-unknown"),
    ],
)  # fmt: skip
def test_a_priority_preemption_and_the_victims_preemptibility_agree(
    victim: dict[str, Any], kind: PreemptionKind, said: str, violated
):
    events = [b.evict(b.PRIORITY, m) for m in (300, b.EVICTED)]  # recurring: advice for it too
    ev = b.preemption_evidence(b.victim(**victim), events=events, by=b.preemptor(priority=150))
    report = compose_preemption(ev, decide_kind(ev))
    assert report.preemption is not None
    assert report.preemption.kind == kind.value
    assert report.preemption.protection_violated is violated
    texts = [e.text for e in report.evidence]
    assert f"Victim v: priority {victim['priority'] or 'unknown'}, {said}, phase Pending" in texts
    if said.startswith("non-preemptible"):
        # Nothing says otherwise, and nobody is told to make it non-preemptible.
        assert not any("preemptibility unknown" in t for t in texts)
        assert not any(NON_PREEMPTIBLE_ADVICE in r for r in report.recommendations)
        assert any(
            t.startswith("Contradiction: a priority preemption of a non-preemptible") for t in texts
        )


def test_a_recurring_reclaim_of_a_non_preemptible_victim_is_not_told_to_become_one():
    events = [b.evict(b.RECLAIM, m) for m in (300, b.EVICTED)]
    ev = b.preemption_evidence(b.victim(preemptible=None, priority=125), events=events)
    report = compose_preemption(ev, decide_kind(ev))
    assert report.preemption is not None
    assert report.preemption.kind == K.RECLAIM_FAIR_SHARE.value  # E2: flagged, not downgraded
    assert report.preemption.protection_violated is True
    assert (
        "Preempted 2 times in 24h: checkpoint so a run can resume, or use another node pool."
        in (report.recommendations)
    )
    assert not any(NON_PREEMPTIBLE_ADVICE in r for r in report.recommendations)


def _reclaim_naming(queue: str) -> str:
    """The reference's reclaim text with the victim queue named `queue`."""
    return b.RECLAIM.replace("ml-team uses", f"{queue} uses")


@pytest.mark.parametrize(
    ("queue", "uses", "headline", "advice"),
    [
        pytest.param("ml-team", 12, "This workload's project was over its quota then", "stay within the project's deserved quota", id="project-over"),
        pytest.param("ml-team", 6, "This workload's project was within its quota then: reclaim should not", "report it to a Run:ai administrator", id="project-within"),
        pytest.param("ml-platform", 12, "This workload's department ml-platform was over its quota then", "the department's deserved quota", id="department-over"),
        pytest.param("ml-platform", 6, "This workload's department ml-platform was within its quota then: reclaim should not", "report it to a Run:ai administrator", id="department-within"),
        pytest.param("q-1", 12, "This workload's queue q-1 (its project's or department's) was over its quota then", "if that queue is its department's", id="queue-not-known-over"),
        pytest.param("q-1", 6, "This workload's queue q-1 (its project's or department's) was within its quota then: reclaim should not", "report it to a Run:ai administrator", id="queue-not-known-within"),
    ],
)  # fmt: skip
def test_the_reclaim_advice_matches_the_position_the_headline_states(queue, uses, headline, advice):
    """Within quota, "stay within quota" is no advice: reclaim should not have happened (#10)."""
    text = _reclaim_naming(queue).replace(f"{queue} uses 12 GPUs", f"{queue} uses {uses} GPUs")
    victim = b.victim(departmentId="1", departmentName="ml-platform")
    ev = b.preemption_evidence(victim, events=[b.evict(text)])
    report = compose_preemption(ev, decide_kind(ev))
    assert headline in report.headline
    assert len(report.headline) <= HEADLINE_MAX
    assert advice in report.recommendations[0]
    if uses <= 8:
        assert not any("stay within" in r for r in report.recommendations)
    assert report.preemption is not None
    department = queue != "ml-team"  # or not known to be the project's
    assert report.preemption.victim_over_quota is (None if department else uses > 8)
    if department:  # the department's position is stated; the project's is said unknown
        assert any("the project's own quota position" in m for m in report.missing)
