"""Within the project's quota, its department's position decides too; unknown, it is UNKNOWN.

The scheduler checks the project's queue and then its department's: a department over its
deserved quota makes a project within its own quota wait for over-quota capacity (P11 at the
department level), and a department not read (withheld from the asker, or unreadable) is
said unknown, never taken as unconstrained: the answer is UNKNOWN naming it, keeps the pool's
figures, and promises nothing about waiting. A workload with no department misses nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

from diagnosis.pending.compose import compose_pending
from diagnosis.pending.table import advice, decide, row
from diagnosis.pending.verdict import PendingReason
from diagnosis.runai.scheduling_models import DepartmentQuota
from tests.diagnosis.pending import builders as b
from tests.line_one import HEADLINE_MAX

R = PendingReason


def department(
    *, deserved: float = 16, allocated: float = 2, allocated_np: float = 0, pool: str = "default"
) -> DepartmentQuota:
    """Department research with its quota and its projects' usage in one pool."""
    return DepartmentQuota.model_validate(
        {
            "id": "2",
            "name": "research",
            "resources": [{"nodePool": {"id": "22", "name": pool}, "gpu": {"deserved": deserved}}],
            "status": {
                "nodePoolQuotaStatuses": [
                    {
                        "nodePoolName": pool,
                        "nodePoolId": "22",
                        "allocated": {"gpu": allocated},
                        "allocatedNonPreemptible": {"gpu": allocated_np},
                    }
                ]
            },
        }
    )


def _decided(unit: DepartmentQuota | None, *, withheld: bool = False, **given: Any):
    """The pool is full (1 free, 4 asked for); the project is within its quota unless `given`."""
    ev = b.pending_evidence(events=[b.fit(b.SHORTAGE)], free=1, **given)
    ev = ev.model_copy(update={"department": unit, "department_withheld": withheld})
    best, _ = decide(ev)
    return ev, best


NON_PREEMPTIBLE = {"wl": b.waiting(preemptible=False, priority=125)}
#: A workload whose status names its department (research), which was not read.
IN_RESEARCH = {"wl": b.waiting(departmentId="2", departmentName="research")}
UNKNOWN_WORDS = [
    "Node pool default has 1 of 32 GPUs free and it asks for 4",
    "the project is within its quota, but",
    "whether department research is too is not known",
    "waiting may not fix it",
]

#: (department, evidence arguments, reason, words of the headline, what is named missing)
CASES: list[Any] = [
    pytest.param(
        department(deserved=8, allocated=14), {}, R.PROJECT_OVER_QUOTA,
        ["Over its department research's quota in node pool default",
         "14 of 8 deserved GPUs allocated, 4 more asked for",
         "it waits for over-quota GPUs others use"], [],
        id="department-over-its-quota",
    ),
    pytest.param(
        department(deserved=16, allocated=2), {}, R.NODE_POOL_FULL,
        ["though the project and its department research are within quota: capacity"], [],
        id="department-within-its-quota",
    ),
    pytest.param(
        None, IN_RESEARCH, R.UNKNOWN, UNKNOWN_WORDS,
        ["department research's quota and usage in node pool default"],
        id="department-not-read",
    ),
    pytest.param(
        None, {"wl": b.waiting(departmentId="2"), "withheld": True}, R.UNKNOWN,
        ["whether its department is too is not known"],
        ["its department's quota and usage in node pool default (not read for you: they sum "
         "other projects', and your Run:ai access does not include reading that department)"],
        id="department-withheld-from-the-asker",
    ),
    pytest.param(
        None, {}, R.NODE_POOL_FULL,
        ["though the project is within its quota: capacity is held by others."], [],
        id="no-department-at-all",
    ),
    pytest.param(
        department(pool="h100"), {}, R.UNKNOWN, UNKNOWN_WORDS,
        ["department research's deserved and allocated GPUs in node pool default"],
        id="department-lists-no-quota-for-the-pool",
    ),
    pytest.param(
        department(deserved=8, allocated=14), {"quota": b.project(deserved=4, allocated=6)},
        R.PROJECT_OVER_QUOTA, ["Over the project's quota in node pool default"], [],
        id="project-over-its-own-quota-first",
    ),
    pytest.param(
        department(deserved=8, allocated=14, allocated_np=2), NON_PREEMPTIBLE, R.NODE_POOL_FULL,
        ["as non-preemptible work it fits the project's and department research's quotas"], [],
        id="non-preemptible-by-its-departments-non-preemptible-gpus",
    ),
    pytest.param(
        department(deserved=8, allocated=14, allocated_np=6), NON_PREEMPTIBLE, R.UNKNOWN,
        ["cannot be told"], ["department research's non-preemptible GPUs plus the request exceed"],
        id="non-preemptible-over-the-departments-quota-untyped",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("unit", "given", "reason", "words", "missing"), CASES)
def test_the_departments_position_in_the_pool(unit, given, reason, words, missing):
    _, best = _decided(unit, **given)
    assert best.reason is reason, best.headline
    for word in words:
        assert word in best.headline, best.headline
    for text in missing:
        assert any(text in m for m in best.missing), best.missing
    assert bool(missing) is bool(best.missing), best.missing  # nothing else is said missing
    assert "unconstrained" not in best.headline
    assert len(best.headline) <= HEADLINE_MAX, len(best.headline)  # line one: its figures are lines
    if reason is R.UNKNOWN:  # nothing promised: no waiting, no reclaim, nobody to act yet
        said = " ".join([best.headline, *advice(best)])
        assert "Waiting should fix it" not in said
        assert "should reclaim;" not in said
        assert row(best.reason).owner == "Undetermined"


def test_the_department_over_its_quota_is_cited_and_advised_at_its_level():
    ev, best = _decided(department(deserved=8, allocated=14))
    assert best.level == "department"
    lines = [(line.text, line.source) for line in best.lines]
    assert (
        "Department research in node pool default: deserved 8 GPUs, allocated 14 (all its projects)",
        "get_department",
    ) in lines
    assert any("for the department in this node pool" in a for a in advice(best))
    report = compose_pending(ev, best, [])
    assert report.pending is not None
    # The JSON figures stay the project's; the department's are in the evidence.
    assert (report.pending.deserved_gpus, report.pending.allocated_gpus) == (8, 2)


def test_waiting_is_promised_only_with_the_department_within_its_quota_too():
    _, best = _decided(department(deserved=16, allocated=2))
    waiting = advice(best)[0]
    assert waiting.startswith("Waiting should fix it while the project and its department")


@pytest.mark.parametrize(
    ("unit", "given"),
    [
        pytest.param(None, IN_RESEARCH, id="not-read"),
        pytest.param(None, {**IN_RESEARCH, "withheld": True}, id="withheld"),
        pytest.param(department(pool="h100"), {}, id="no-quota-for-the-pool"),
    ],
)
def test_an_unknown_department_keeps_the_pool_facts_and_says_who_can_tell(unit, given):
    """Headline, owner and advice agree: nothing promised, the department named as missing."""
    ev, best = _decided(unit, **given)
    report = compose_pending(ev, best, [])
    assert report.recovery_owner == "Undetermined"
    assert report.pending is not None
    assert (report.pending.reason, report.pending.pool_free_gpus) == ("UNKNOWN", 1)
    assert any(
        a.startswith("Ask a Run:ai administrator, or someone who may read department research,")
        for a in report.recommendations
    )
    assert not any("Waiting should fix it" in a for a in report.recommendations)
    assert any("department research's" in m for m in report.missing)
    assert len(report.headline) <= HEADLINE_MAX
