"""A scheduler statement at the department's level keeps its figures from who may not read it.

The scheduler checks the project's queue and then its department's; at the department's
level (a typed reason's `orgType`, or a text naming the department's queue) its numbers are
the department's limit, usage and quota, which sum other projects'. The evidence as someone
who may not read the department gets it (`without_department`) keeps the reason and the
workload's own request, and nothing of the department's: not in the headline, the quoted
texts (current or not trusted), a PodGroup condition's `queueDetails`, the gaps or advice.
A statement about the project is the project's, shown as before.
"""

from __future__ import annotations

from typing import Any

import pytest

from diagnosis.pending.compose import compose_pending
from diagnosis.pending.evidence import PendingEvidence
from diagnosis.pending.table import decide
from diagnosis.pending.withheld import level_of, without_department
from diagnosis.report import Report
from tests.diagnosis.pending import builders as b

R_LIMIT, R_NP = "OVER_LIMIT", "NON_PREEMPTIBLE_OVER_QUOTA"
#: The department research's limit and usage as the scheduler states them.
LIMIT = (
    "research quota has reached the allowable limit of GPUs. Limit is 16 GPUs, currently 15 GPUs "
    "allocated and workload requested 4 GPUs"
)
NP = (
    "Non-preemptible workload is over quota. Workload requested 4 GPUs, but research quota is 12 "
    "GPUs, while 11 GPUs are already allocated for non-preemptible pods. Use a preemptible "
    "workload to go over quota."
)
CPU = (
    "research quota has reached the allowable limit of CPU cores. Limit is 96 cores, currently "
    "90 cores allocated and workload requested 8 cores"
)
#: Each figure of the department's any of those (or a PodGroup's queueDetails) gives.
FIGURES = (
    *("16 GPUs", "15 GPUs", "12 GPUs", "11 GPUs", "13 GPUs", "96 cores", "90 cores"),
    *("limit 16", "allocated 15", "deserved 12", "allocated 11", "research quota"),
)
IN_RESEARCH: dict[str, Any] = {"departmentId": "2", "departmentName": "research"}


def _typed(reason: str, message: str | None = None) -> list[dict[str, Any]]:
    return [
        {
            "nodePool": "default",
            "phaseReason": reason,
            "reason": reason,
            "orgType": "DEPARTMENT",
            "userMessage": message,
        }
    ]


def _queue_details() -> dict[str, Any]:
    gpus = {"queueResourceLimits": 16, "queueAllocatedResources": 15, "queueDeservedResources": 12}
    resources = {k: {"nvidia.com/gpu": v} for k, v in gpus.items()}
    return {"queueDetails": {"name": "q-research", **resources}}


#: id -> (evidence arguments, its reason, what the reader's headline says)
CASES: dict[str, tuple[dict[str, Any], str, str]] = {
    "typed limit, the event's numbers": (
        {"wl": b.waiting(**IN_RESEARCH, pendingSchedulingMessages=_typed("OverLimit")),
         "events": [b.fit(LIMIT, "OverLimit")]},
        R_LIMIT, "limit 16 GPUs, allocated 15 GPUs",
    ),
    "typed limit, its own message's numbers": (
        {"wl": b.waiting(**IN_RESEARCH, pendingSchedulingMessages=_typed("OverLimit", LIMIT))},
        R_LIMIT, "limit 16 GPUs, allocated 15 GPUs",
    ),
    "typed non-preemptible over quota": (
        {"wl": b.waiting(**IN_RESEARCH, preemptible=False, priority=125,
                         pendingSchedulingMessages=_typed("NonPreemptibleOverQuota")),
         "events": [b.fit(NP, "NonPreemptibleOverQuota")]},
        R_NP, "non-preemptible allocated 11 GPUs, deserved 12 GPUs",
    ),
    "typed limit, the PodGroup's queueDetails (Tier 2)": (
        {"wl": b.waiting(**IN_RESEARCH, pendingSchedulingMessages=_typed("OverLimit")),
         "podgroup": b.podgroup("OverLimit", "", details=_queue_details()), "tier2": True},
        R_LIMIT, "limit 16 GPUs, allocated 15 GPUs",
    ),
    "typed limit, an older statement not trusted": (
        {"wl": b.waiting(**IN_RESEARCH, pendingSchedulingMessages=_typed("OverLimit", LIMIT)),
         "events": [b.fit(LIMIT.replace("15 GPUs", "13 GPUs"), "OverLimit", minutes_ago=60)]},
        R_LIMIT, "limit 16 GPUs, allocated 15 GPUs",
    ),
    "typed limit in CPU cores": (
        {"wl": b.waiting(**IN_RESEARCH, pendingSchedulingMessages=_typed("OverLimit")),
         "events": [b.fit(CPU, "OverLimit")]},
        R_LIMIT, "limit 96 cores, allocated 90 cores",
    ),
    "untyped, its text names the department's queue": (
        {"wl": b.waiting(**IN_RESEARCH), "events": [b.fit(LIMIT, "OverLimit")]},
        R_LIMIT, "limit 16 GPUs, allocated 15 GPUs",
    ),
    "an older statement naming the department's queue, not trusted": (
        {"wl": b.waiting(**IN_RESEARCH), "quota": b.project(allocated=10),
         "events": [b.fit(b.SHORTAGE), b.fit(LIMIT, "OverLimit", minutes_ago=60)]},
        "PROJECT_OVER_QUOTA", "",
    ),
}  # fmt: skip


def _report(ev: PendingEvidence) -> Report:
    return compose_pending(ev, *decide(ev))


@pytest.mark.parametrize("given", CASES.values(), ids=list(CASES))
def test_who_may_not_read_the_department_gets_its_reason_and_none_of_its_figures(given):
    arguments, reason, said = given
    ev = b.pending_evidence(**arguments)
    full = _report(ev)
    assert full.pending is not None
    assert full.pending.reason == reason, full.headline
    assert said in full.headline
    assert any(f in full.model_dump_json() for f in FIGURES)
    cut = _report(without_department(ev))
    assert cut.pending is not None
    assert cut.pending.reason == reason, cut.headline
    text = cut.model_dump_json()
    assert [f for f in FIGURES if f in text] == []
    assert "[the scheduler's words on department research's figures: not shown here]" in text
    if reason in {R_LIMIT, R_NP}:
        assert "Over the department's" in cut.headline or "the department's GPU quota" in (
            cut.headline
        )
        assert "(the department's figures: not shown here)" in cut.headline
        assert any("department research's limit, usage and quota" in m for m in cut.missing)
        assert cut.recommendations == full.recommendations  # the advice has no figure


#: id -> (evidence arguments, the project's figures its headline keeps for everyone)
PROJECTS: dict[str, tuple[dict[str, Any], str]] = {
    "its text names the project's queue": (
        {"wl": b.waiting(**IN_RESEARCH), "events": [b.fit(b.OVER_LIMIT, "OverLimit")]},
        "limit 8, allocated 6, requested 4",
    ),
    "typed at the project's level": (
        {"wl": b.waiting(**IN_RESEARCH, pendingSchedulingMessages=[
            {**_typed("OverLimit")[0], "orgType": "PROJECT"}]),
         "events": [b.fit(b.OVER_LIMIT, "OverLimit")]},
        "limit 8, allocated 6, requested 4",
    ),
    "a project named as its department": (
        {"wl": b.waiting(departmentId="2", departmentName="nlp"),
         "events": [b.fit(b.OVER_LIMIT, "OverLimit")]},
        "limit 8, allocated 6, requested 4",
    ),
}  # fmt: skip


@pytest.mark.parametrize("given", PROJECTS.values(), ids=list(PROJECTS))
def test_a_statement_about_the_project_is_shown_to_whoever_reads_the_project(given):
    arguments, said = given
    ev = b.pending_evidence(**arguments)
    assert level_of(ev, list(ev.said[:1]))[0] == "project"
    full, cut = _report(ev), _report(without_department(ev))
    assert said in full.headline
    assert said in cut.headline
    assert "not shown here" not in cut.model_dump_json()
