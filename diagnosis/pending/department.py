"""The department's quota position in one node pool: a project within its quota can still wait.

The scheduler checks a workload's queue and then each parent queue; a project's parent is its
department, whose deserved quota is its own while its usage sums its projects'. So a project
within its quota in a pool whose department is over the department's deserved quota is not
simply waiting for reclaim. The figures come from `get_department`; a department that was not
read (withheld from the asker, or the read failed), or that lists no quota for the pool, has
an unknown position, said so (`position_unknown`): never taken as unconstrained. A workload
with no department at all has no such position to miss.
"""

from __future__ import annotations

from dataclasses import dataclass

from diagnosis.pending.evidence import PendingEvidence
from diagnosis.pending.figures import PoolFigures, gpus, preemptible
from diagnosis.report import EvidenceLine

__all__ = [
    "GET_DEPARTMENT",
    "DepartmentFigures",
    "department_figures",
    "department_named",
    "position_unknown",
]

GET_DEPARTMENT = "get_department"


@dataclass(frozen=True)
class DepartmentFigures:
    """The department's GPUs in one node pool, each None when the body does not give it."""

    name: str
    pool: str
    deserved: float | None
    allocated: float | None
    allocated_np: float | None

    def over(self, ev: PendingEvidence, requested: float | None) -> bool | None:
        """Whether its usage plus `requested` exceeds its deserved GPUs; None when unknown.

        A non-preemptible workload is measured by the department's non-preemptible usage,
        as the project is (`rules_capacity.contention`).
        """
        used = self.allocated
        if preemptible(ev) is False and self.allocated_np is not None:
            used = self.allocated_np
        if used is None or self.deserved is None or requested is None:
            return None
        return used + requested > self.deserved

    def unknown(self) -> str | None:
        """What is missing to judge it, or None when its deserved and allocated GPUs were read."""
        if self.deserved is not None and self.allocated is not None:
            return None
        return (
            f"department {self.name}'s deserved and allocated GPUs in node pool {self.pool} "
            "(the department read lists none for it)"
        )

    def line(self) -> EvidenceLine:
        """The department's quota and usage in the pool, as `get_department` gave them."""
        np = f" ({gpus(self.allocated_np)} non-preemptible)" if self.allocated_np else ""
        text = (
            f"Department {self.name} in node pool {self.pool}: deserved {gpus(self.deserved)} "
            f"GPUs, allocated {gpus(self.allocated)}{np} (all its projects)"
        )
        return EvidenceLine(text=text, source=GET_DEPARTMENT)


def department_figures(ev: PendingEvidence, fig: PoolFigures) -> DepartmentFigures | None:
    """The department's figures in `fig.pool`; None when the department was not read."""
    department = ev.department
    if department is None or fig.pool is None:
        return None
    quota, status = department.quota_in(fig.pool), department.status_in(fig.pool)
    return DepartmentFigures(
        name=department.name,
        pool=fig.pool,
        deserved=quota.gpu.deserved if quota and quota.gpu else None,
        allocated=status.allocated.gpu if status and status.allocated else None,
        allocated_np=(
            status.allocated_non_preemptible.gpu
            if status and status.allocated_non_preemptible
            else None
        ),
    )


def department_named(ev: PendingEvidence) -> str:
    """The workload's department as the answer names it: `department <name>`, else generic."""
    name = ev.department.name if ev.department else ev.workload.department_name
    return f"department {name}" if name else "its department"


def _has_department(ev: PendingEvidence) -> bool | None:
    """Whether the workload has a department (None: not known, its project was not read)."""
    if ev.department is not None or (ev.workload.department_id or "").strip():
        return True
    if ev.project is None:
        return None
    return bool((ev.project.parent_id or "").strip())


def position_unknown(ev: PendingEvidence, fig: PoolFigures) -> str | None:
    """What is missing to judge the department's position in `fig.pool`, or None.

    None when its figures there were read, or when the workload has no department at all.
    """
    found = department_figures(ev, fig)
    if found is not None:
        return found.unknown()
    if _has_department(ev) is False:
        return None
    whose = department_named(ev)
    if ev.department_withheld:
        return (
            f"{whose}'s quota and usage in node pool {fig.pool} (not read for you: they sum "
            "other projects', and your Run:ai access does not include reading that department)"
        )
    return f"{whose}'s quota and usage in node pool {fig.pool}"
