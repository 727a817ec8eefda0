"""A typed Pending statement checked against what was read now: a disagreement is flagged.

The scheduler's `NonPreemptibleOverQuota` must agree with a non-preemptible workload, and
may lag a quota raised since (reference §4.2 P5, §4.4): either disagreement is said in the
headline, both sides' figures in the evidence (the statement quoted, what was read now next to
it), and the advice never tells the user to do what the disagreement makes wrong. Figures P5
reports that nothing gave are named, never zero.
"""

from __future__ import annotations

from typing import Any

import pytest

from diagnosis.pending.compose import compose_pending
from diagnosis.pending.table import decide
from diagnosis.pending.verdict import Doubt, PendingReason
from tests.diagnosis.pending import builders as b
from tests.factories import ago

R = PendingReason
D = Doubt
NON_PREEMPTIBLE = {"preemptible": False, "priority": 125}
AT_QUOTA = b.project(deserved=4, allocated=3, allocated_np=3)
RAISED = b.project(deserved=16, allocated=0, allocated_np=0)
STATEMENT = "requested 2, non-preemptible allocated 3, deserved 4"
#: The scheduler's statement as the evidence quotes it.
STATEMENT_SAYS = "Workload requested 2 GPUs, but nlp quota is 4 GPUs, while 3 GPUs are already"

#: (the workload, the project now, the doubts, words of the headline, of the evidence, of the
#: advice, and words the advice never has). The scheduler's statement: 2 requested, 3 of 4
#: held, 5 minutes ago.
DOUBTS: list[Any] = [
    pytest.param(
        NON_PREEMPTIBLE,
        AT_QUOTA,
        (),
        {
            "headline": [f"Non-preemptible and over the project's GPU quota in node pool default: "
                         f"{STATEMENT}."],
            "advice": ["Make it preemptible", "Or ask for more deserved quota"],
            "owner": ["User; administrator — the deserved quota"],
        },
        id="consistent",
    ),
    pytest.param(
        {},
        AT_QUOTA,
        (D.PREEMPTIBLE,),
        {
            "headline": ["The scheduler says it is non-preemptible and over the project's GPU "
                         "quota in node pool default; yet the workload reads preemptible."],
            "evidence": ["The workload reads preemptible (preemptible: true)",
                         f"{STATEMENT_SAYS}"],
            "advice": ["PodGroup's preemptibility", "spec.preemptibility",
                       "`kubectl get podgroups -n runai-nlp -o yaml`"],
            "never": ["Make it preemptible"],
        },
        id="flag-reads-preemptible",
    ),
    pytest.param(
        {"preemptible": None, "priority": 40},
        AT_QUOTA,
        (D.PREEMPTIBLE,),
        {
            "headline": ["; yet the workload reads preemptible."],
            "evidence": ["The workload reads preemptible (priority 40 < 100, no preemptible flag)"],
            "advice": ["PodGroup's preemptibility"],
            "never": ["Make it preemptible"],
        },
        id="priority-reads-preemptible",
    ),
    pytest.param(
        NON_PREEMPTIBLE,
        RAISED,
        (D.QUOTA_NOW_COVERS,),
        {
            "headline": ["GPU quota in node pool default; yet the project's figures now leave "
                         "room for it."],
            "evidence": [STATEMENT_SAYS,
                         "deserved 16 GPUs, limit unlimited; allocated 0 (0 non-preemptible) as of",
                         "(the scheduler's statement above: deserved 4, non-preemptible "
                         "allocated 3)"],
            "advice": ["Waiting may fix it", "Ask again in a few minutes",
                       "Node pool default has 0 of 32 GPUs free, fewer than the 2 GPUs it asks "
                       "for: once the statement clears, it still waits until GPUs are freed"],
            "never": ["Make it preemptible", "more deserved quota"],
            "owner": ["Nobody yet — the scheduler re-evaluates it"],
            "owner never": ["deserved quota"],
        },
        id="quota-raised-since",
    ),
    pytest.param(
        NON_PREEMPTIBLE,
        b.project(deserved=16, allocated=0, allocated_np=0, at=ago(10)),
        (),
        {"headline": [STATEMENT], "advice": ["Make it preemptible"]},
        id="figures-older-than-the-statement",
    ),
    pytest.param(
        {},
        RAISED,
        (D.PREEMPTIBLE, D.QUOTA_NOW_COVERS),
        {
            "headline": ["; yet the workload reads preemptible, and the project's figures now "
                         "leave room for it."],
            "evidence": ["The workload reads preemptible (preemptible: true)",
                         "(the scheduler's statement above: deserved 4, non-preemptible "
                         "allocated 3)"],
            "advice": ["PodGroup's preemptibility", "Waiting may fix it"],
            "never": ["Make it preemptible"],
            "owner": ["User; administrator"],
        },
        id="both",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("workload", "quota", "doubts", "words"), DOUBTS)
def test_a_typed_non_preemptible_over_quota_is_checked_against_now(
    workload: dict[str, Any], quota: Any, doubts: tuple[Doubt, ...], words: dict[str, list[str]]
):
    said = b.fit(b.NP_OVER_QUOTA, "NonPreemptibleOverQuota", minutes_ago=5)
    ev = b.pending_evidence(b.waiting(**workload), events=[said], quota=quota)
    best, others = decide(ev)
    assert (best.reason, best.doubts) == (R.NON_PREEMPTIBLE_OVER_QUOTA, doubts), best.headline
    for text in words["headline"]:
        assert text in best.headline, best.headline
    report = compose_pending(ev, best, others)
    for text in words.get("evidence", []):  # what the headline leaves out is a line
        assert any(text in e.text for e in report.evidence), (text, report.evidence)
    actions = " ".join(report.recommendations)
    for text in words["advice"]:
        assert text in actions, actions
    for text in words.get("never", []):
        assert text not in actions, actions
    for text in words.get("owner", []):  # the owner line agrees with the advice
        assert text in (report.recovery_owner or ""), report.recovery_owner
    for text in words.get("owner never", []):
        assert text not in (report.recovery_owner or ""), report.recovery_owner


def test_a_stale_statement_with_room_in_the_pool_says_nothing_of_reclaim():
    said = b.fit(b.NP_OVER_QUOTA, "NonPreemptibleOverQuota", minutes_ago=5)
    ev = b.pending_evidence(b.waiting(**NON_PREEMPTIBLE), events=[said], quota=RAISED, free=16)
    best, others = decide(ev)
    assert best.doubts == (D.QUOTA_NOW_COVERS,)
    actions = " ".join(compose_pending(ev, best, others).recommendations)
    assert "Waiting may fix it" in actions
    assert "still waits" not in actions


def test_a_status_message_has_no_time_so_it_may_lag_the_project_now():
    message = {"nodePool": "default", "phaseReason": "NonPreemptibleOverQuota",
               "reason": "Non-preemptible over quota", "orgType": "PROJECT"}  # fmt: skip
    wl = b.waiting(pendingSchedulingMessages=[message], **NON_PREEMPTIBLE)
    best, _ = decide(b.pending_evidence(wl, quota=RAISED))
    assert best.doubts == (D.QUOTA_NOW_COVERS,)
    assert "over the project's GPU quota in node pool default; yet" in best.headline
    report = compose_pending(b.pending_evidence(wl, quota=RAISED), best, [])
    assert ("Requested: 4 GPUs", "get_workload_status") in [
        (e.text, e.source) for e in report.evidence
    ]


def test_the_project_line_shows_the_figures_now_next_to_the_schedulers():
    said = b.fit(b.NP_OVER_QUOTA, "NonPreemptibleOverQuota")
    ev = b.pending_evidence(b.waiting(**NON_PREEMPTIBLE), events=[said], quota=RAISED)
    report = compose_pending(ev, *decide(ev))
    [line] = [e for e in report.evidence if e.text.startswith("Project nlp")]
    assert line.source == "get_project"
    assert line.text.startswith(
        "Project nlp in node pool default: deserved 16 GPUs, limit unlimited; allocated 0 "
        "(0 non-preemptible)"
    )
    assert line.text.endswith(
        "(the scheduler's statement above: deserved 4, non-preemptible allocated 3)"
    )


def test_the_figures_p5_reports_are_named_when_nothing_gave_them():
    message = {"nodePool": "default", "phaseReason": "NonPreemptibleOverQuota",
               "reason": "Non-preemptible workload requests 4 GPUs, over the project's "
                         "deserved quota of 2 GPUs", "orgType": "PROJECT"}  # fmt: skip
    wl = b.waiting(pendingSchedulingMessages=[message], **NON_PREEMPTIBLE)
    ev = b.pending_evidence(wl, quota=b.project(deserved=None, allocated=None, allocated_np=None))
    best, others = decide(ev)
    assert best.reason is R.NON_PREEMPTIBLE_OVER_QUOTA
    report = compose_pending(ev, best, others)
    # The statement words a deserved quota its numbers are not read from: the gap names the read.
    where = "in node pool default (no get_project figure for this pool)"
    assert f"the project's deserved GPUs {where}" in report.missing
    assert f"the project's non-preemptible GPUs allocated {where}" in report.missing
    assert report.pending is not None
    facts = (report.pending.deserved_gpus, report.pending.allocated_non_preemptible_gpus)
    assert facts == (None, None)
