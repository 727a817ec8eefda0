"""Within the project's quota, its department's position decides too; unread, it is a gap.

The scheduler checks the project's queue and then its department's: a department over its
deserved quota makes a project within its own quota wait for over-quota capacity (P11 at the
department level), and a department not read is said unknown, never taken as unconstrained.
"""

from __future__ import annotations

from typing import Any

import pytest

from diagnosis.pending.compose import compose_pending
from diagnosis.pending.table import advice, decide
from diagnosis.pending.verdict import PendingReason
from diagnosis.runai.scheduling_models import DepartmentQuota
from tests.diagnosis.pending import builders as b

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


def _decided(unit: DepartmentQuota | None, **given: Any):
    """The pool is full (1 free, 4 asked for); the project is within its quota unless `given`."""
    ev = b.pending_evidence(events=[b.fit(b.SHORTAGE)], free=1, **given)
    ev = ev.model_copy(update={"department": unit})
    best, _ = decide(ev)
    return ev, best


NON_PREEMPTIBLE = {"wl": b.waiting(preemptible=False, priority=125)}

#: (department, evidence arguments, reason, words of the headline, what is named missing)
CASES: list[Any] = [
    pytest.param(
        department(deserved=8, allocated=14), {}, R.PROJECT_OVER_QUOTA,
        ["Over its department's quota in node pool default", "the project is within its own (2 of 8",
         "department research has 14 of 8 deserved GPUs allocated"], [],
        id="department-over-its-quota",
    ),
    pytest.param(
        department(deserved=16, allocated=2), {}, R.NODE_POOL_FULL,
        ["although the project is within its quota", "and so is its department research (2 of 16"], [],
        id="department-within-its-quota",
    ),
    pytest.param(
        None, {}, R.NODE_POOL_FULL,
        ["Its department's quota position was not read", "would keep it waiting"], [],
        id="department-not-read",
    ),
    pytest.param(
        department(pool="h100"), {}, R.NODE_POOL_FULL,
        ["Department research's quota position in this pool is not known"],
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
        ["it is non-preemptible", "and so is its department research for such work (2 non-preemptible of 8"], [],
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
    assert "unconstrained" not in best.headline


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
