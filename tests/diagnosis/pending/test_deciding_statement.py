"""Of several current statements of one reason, the most informative decides the headline.

The scheduler's own figures win over recomputed ones (pending-and-preemption.md: "message
numbers first"), so a statement carrying them decides before a bare reason code: the status's
phase reason (dated by the phase's update) never hides the figures its pending scheduling
message (undated) gives for the same reason, nor the department's queue that message names.
Between statements equally informative, the newest decides, a status field (no time) being
current by definition.
"""

from __future__ import annotations

from typing import Any

import pytest

from diagnosis.pending.compose import compose_pending
from diagnosis.pending.evidence import PendingEvidence
from diagnosis.pending.table import decide
from diagnosis.pending.verdict import PendingReason
from diagnosis.pending.withheld import without_department
from diagnosis.report import Report
from tests.diagnosis.pending import builders as b
from tests.line_one import HEADLINE_MAX

R = PendingReason
IN_RESEARCH: dict[str, Any] = {"departmentId": "2", "departmentName": "research"}
#: The project's limit as the status's pending scheduling message states it, a cycle later.
LATER_LIMIT = b.OVER_LIMIT.replace("currently 6 GPUs", "currently 7 GPUs")
GATED = "Scheduling is blocked due to non-empty scheduling gates"
SPEC_EXAMPLE = "You have reached the limit of non-preemptible resources"


def _message(reason: str, text: str | None, org_type: str | None = "PROJECT") -> dict[str, Any]:
    """One of the status's pending scheduling messages (undated) for pool default."""
    return {"nodePool": "default", "phaseReason": reason, "orgType": org_type, "userMessage": text}


def _status(reason: str, text: str | None, org_type: str | None = "PROJECT", **wl: Any) -> Any:
    """A waiting workload whose phase reason is `reason` (no message), as is its status message."""
    return b.waiting(
        phaseReason=reason, pendingSchedulingMessages=[_message(reason, text, org_type)], **wl
    )


#: id -> (evidence arguments, reason, words the headline must contain, the deciding origin)
CASES: dict[str, tuple[dict[str, Any], R, str, str]] = {
    "over-limit-figures-in-the-status-message": (
        {"wl": _status("OverLimit", b.OVER_LIMIT)},
        R.OVER_LIMIT, "project's GPUs limit in node pool default: limit 8, allocated 6, requested 4",
        "Pending scheduling message",
    ),
    "non-preemptible-figures-in-the-status-message": (
        {"wl": _status("NonPreemptibleOverQuota", b.NP_OVER_QUOTA, preemptible=False, priority=125),
         "quota": b.project(deserved=None, allocated=None, allocated_np=None)},
        R.NON_PREEMPTIBLE_OVER_QUOTA,
        "project's GPU quota in node pool default: requested 2, non-preemptible allocated 3, deserved 4",
        "Pending scheduling message",
    ),
    "the-status-message-names-the-departments-queue": (
        {"wl": _status("OverLimit", b.OVER_LIMIT.replace("nlp quota", "research quota"), None,
                       **IN_RESEARCH)},
        R.OVER_LIMIT,
        "department's GPUs limit in node pool default: limit 8 GPUs, allocated 6 GPUs, requested 4 GPUs (the scheduler's figures for the department)",
        "Pending scheduling message",
    ),
    "figures-in-a-dated-event-over-a-bare-status-message": (
        {"wl": b.waiting(preemptible=False, priority=125,
                         pendingSchedulingMessages=[_message("NonPreemptibleOverQuota", SPEC_EXAMPLE)]),
         "events": [b.fit(b.NP_OVER_QUOTA, "NonPreemptibleOverQuota", minutes_ago=10)],
         "quota": b.project(deserved=None, allocated=None, allocated_np=None)},
        R.NON_PREEMPTIBLE_OVER_QUOTA, "requested 2, non-preemptible allocated 3, deserved 4",
        "event",
    ),
    "figures-on-both-the-current-status-message-decides": (
        {"wl": _status("OverLimit", LATER_LIMIT),
         "events": [b.fit(b.OVER_LIMIT, "OverLimit", minutes_ago=10)]},
        R.OVER_LIMIT, "limit 8, allocated 7, requested 4", "Pending scheduling message",
    ),
    "held-figures-over-a-newer-bare-gate": (
        {"events": [b.fit(b.NOT_READY, "NotReady", minutes_ago=10),
                    b.fit(GATED, "SchedulingGated", minutes_ago=2)]},
        R.HELD_NOT_READY, "it needs 4 pods, 2 exist and 2 are gated", "event",
    ),
}  # fmt: skip


def _report(ev: PendingEvidence) -> Report:
    return compose_pending(ev, *decide(ev))


@pytest.mark.parametrize("given", CASES.values(), ids=list(CASES))
def test_the_most_informative_current_statement_decides(given):
    arguments, reason, words, origin = given
    ev = b.pending_evidence(**arguments)
    best, _ = decide(ev)
    assert best.reason is reason
    assert words in best.headline
    report = _report(ev)
    assert len(report.headline) <= HEADLINE_MAX
    assert report.pending is not None
    assert report.pending.reason == reason.value
    # The statement it rests on is the one cited first, with where it came from.
    assert best.lines[0].text.lower().startswith(origin.lower())


def test_a_department_statement_that_decides_is_cut_for_who_may_not_read_it():
    """The status message naming the department's queue decides, so its figures are cut."""
    arguments, _, _, _ = CASES["the-status-message-names-the-departments-queue"]
    ev = b.pending_evidence(**arguments)
    cut = _report(without_department(ev))
    assert "Over the department's GPUs limit" in cut.headline
    assert "(the department's figures: not shown here)" in cut.headline
    text = cut.model_dump_json()
    for figure in ("limit 8", "allocated 6", "research quota"):
        assert figure not in text, figure
