"""The preemption report says one thing about the victim's preemptibility, everywhere.

The victim line, the protections and the advice all read the same judgement; what was not
read stays "unknown" and judges nothing.
"""

from __future__ import annotations

from diagnosis.preemption.compose import compose_preemption
from diagnosis.preemption.kinds import decide_kind
from diagnosis.preemption.texts import PreemptionKind
from tests.diagnosis.preemption import builders as b

K = PreemptionKind
NON_PREEMPTIBLE_ADVICE = "non-preemptible priority"


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
