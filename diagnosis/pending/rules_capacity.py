"""The derived Pending rows: project over quota vs pool full (P11, P12), and UNKNOWN (P14).

The one computed split. It needs the workload's request, the project's deserved and
allocated GPUs, and the pool's free GPUs, for the same pool and about the same moment; any
of them missing, or a pool with room to spare and no constraint text, is UNKNOWN naming what
would decide. Within the project's quota, its department's position decides too
(`pending.department`): a department over its deserved quota makes it P11 at the department
level; one not read is said unknown, never taken as unconstrained. Fair share is never
computed: the API does not expose it.
"""

from __future__ import annotations

from datetime import datetime

from diagnosis.moments import utc_text
from diagnosis.pending.department import DepartmentFigures, department_figures
from diagnosis.pending.evidence import PendingEvidence, Said
from diagnosis.pending.figures import DEPARTMENT, PoolFigures, gpus, preemptible
from diagnosis.pending.texts import Saying
from diagnosis.pending.verdict import PendingReason, Verdict, cite_said

__all__ = ["contention", "node_pool_full", "project_over_quota", "unknown"]

R = PendingReason


def _when(fig: PoolFigures) -> str:
    def at(moment: datetime | None) -> str:
        return utc_text(moment, "%H:%M:%SZ") if moment is not None else "?"

    return f"project status at {at(fig.project_at)}, pool telemetry at {at(fig.capacity_at)}"


def contention(ev: PendingEvidence, fig: PoolFigures) -> tuple[PendingReason | None, list[str]]:
    """PROJECT_OVER_QUOTA or NODE_POOL_FULL for this pool, else None and what would decide."""
    pool = fig.pool
    if pool is None:
        return None, ["the node pool it waits for (neither the workload nor its project names one)"]
    needed = {
        "requested": "the workload's GPU request",
        "deserved": f"the project's deserved GPUs in node pool {pool}",
        "allocated": f"the project's allocated GPUs in node pool {pool}",
        "free": f"node pool {pool}'s free GPUs",
    }
    missing = [label for name, label in needed.items() if getattr(fig, name) is None]
    if missing:
        return None, missing
    if not fig.same_moment():
        return None, [f"figures from one moment ({_when(fig)}, too far apart to compare)"]
    requested, deserved = fig.requested or 0.0, fig.deserved or 0.0
    if (fig.free or 0.0) >= requested:
        return None, [
            f"why {gpus(requested)} GPUs do not fit although node pool {pool} has "
            f"{gpus(fig.free)} free (no single node may have room: the scheduler's per-node "
            "fit text, through Kubernetes access, would tell)"
        ]
    in_quota = (fig.allocated or 0.0) + requested <= deserved
    movable = preemptible(ev)
    if movable is False and fig.allocated_np is not None:
        in_quota = fig.allocated_np + requested <= deserved
    department = department_figures(ev, fig)
    if in_quota and (department is None or department.over(ev, requested) is not True):
        return R.NODE_POOL_FULL, []
    if movable is True:
        return R.PROJECT_OVER_QUOTA, []
    if movable is None:
        return None, ["whether it is preemptible (neither `preemptible` nor its priority was read)"]
    if in_quota and department is not None:
        return None, [
            f"why department {department.name}'s non-preemptible GPUs plus the request exceed its "
            f"deserved quota in node pool {pool} while no typed reason says so"
        ]
    return None, [f"the project's non-preemptible GPUs allocated in node pool {pool}"]


def project_over_quota(ev: PendingEvidence, fig: PoolFigures) -> Verdict | None:
    """P11: preemptible, over the project's quota, and the over-quota GPUs are in use by others."""
    if contention(ev, fig)[0] is not R.PROJECT_OVER_QUOTA:
        return None
    said = ev.saying(Saying.FIT, pool=fig.pool)[:1]
    department = department_figures(ev, fig)
    if department is not None and (fig.allocated or 0.0) + (fig.requested or 0.0) <= (
        fig.deserved or 0.0
    ):
        return _department_over_quota(fig, department, said)
    return Verdict(
        reason=R.PROJECT_OVER_QUOTA,
        pool=fig.pool,
        headline=(
            f"Over the project's quota in node pool {fig.pool}: {gpus(fig.allocated)} of "
            f"{gpus(fig.deserved)} deserved GPUs are allocated and it asks for "
            f"{gpus(fig.requested)} more, while only {gpus(fig.free)} of {gpus(fig.total)} "
            "GPUs are free: the over-quota capacity is in use by others."
        ),
        lines=tuple(cite_said(s) for s in said),
        figures=fig,
    )


def _department_over_quota(
    fig: PoolFigures, department: DepartmentFigures, said: list[Said]
) -> Verdict:
    """P11 at the department level: the project is within its quota, its department is not."""
    return Verdict(
        reason=R.PROJECT_OVER_QUOTA,
        pool=fig.pool,
        headline=(
            f"Over its department's quota in node pool {fig.pool}: the project is within its "
            f"own ({gpus(fig.allocated)} of {gpus(fig.deserved)} deserved GPUs allocated), but "
            f"department {department.name} has {gpus(department.allocated)} of "
            f"{gpus(department.deserved)} deserved GPUs allocated and this asks for "
            f"{gpus(fig.requested)} more, while only {gpus(fig.free)} of {gpus(fig.total)} GPUs "
            "are free: the over-quota capacity is in use by others, and waiting for the "
            "project's quota alone may not fix it."
        ),
        lines=(*(cite_said(s) for s in said), department.line()),
        figures=fig,
        level=DEPARTMENT,
    )


def _department_clause(
    ev: PendingEvidence, department: DepartmentFigures | None
) -> tuple[str, str, tuple[str, ...]]:
    """What the pool-full headline says of its department: (inline, after, missing)."""
    wait = "a department over its deserved quota would keep it waiting."
    if department is None:
        return "", f" Its department's quota position was not read (see Not measured): {wait}", ()
    missing = department.unknown()
    if missing is not None:
        after = f" Department {department.name}'s quota position in this pool is not known: {wait}"
        return "", after, (missing,)
    of = f"of {gpus(department.deserved)} deserved GPUs"
    if preemptible(ev) is False and department.allocated_np is not None:
        # Measured as the project is: by its non-preemptible share (`DepartmentFigures.over`).
        held = f"{gpus(department.allocated_np)} non-preemptible {of} allocated"
        return f", and so is its department {department.name} for such work ({held})", "", ()
    held = f"{gpus(department.allocated)} {of} allocated"
    return f", and so is its department {department.name} ({held})", "", ()


def node_pool_full(ev: PendingEvidence, fig: PoolFigures) -> Verdict | None:
    """P12: within the project's quota, but the pool has too few free GPUs right now."""
    if contention(ev, fig)[0] is not R.NODE_POOL_FULL:
        return None
    said = ev.saying(Saying.PIPELINED, Saying.FIT, pool=fig.pool)[:1]
    asks = f"{gpus(fig.requested)} requested of {gpus(fig.deserved)} deserved"
    within = f"the project is within its quota ({gpus(fig.allocated)} allocated + {asks})"
    held = "capacity is held by others"
    if preemptible(ev) is False and fig.allocated_np is not None:
        # Measured by its non-preemptible share (P5's measure), never called "allocated".
        within = (
            "it is non-preemptible and within the project's quota for such work "
            f"({gpus(fig.allocated_np)} non-preemptible allocated + {asks})"
        )
        # All three were read: `contention` decides only with them.
        if (fig.allocated or 0.0) + (fig.requested or 0.0) > (fig.deserved or 0.0):
            held += (
                " and by the project's own preemptible workloads "
                f"({gpus(fig.allocated)} GPUs allocated in all)"
            )
    department = department_figures(ev, fig)
    inline, after, missing = _department_clause(ev, department)
    return Verdict(
        reason=R.NODE_POOL_FULL,
        pool=fig.pool,
        headline=(
            f"Node pool {fig.pool} is full: it asks for {gpus(fig.requested)} GPUs and only "
            f"{gpus(fig.free)} of {gpus(fig.total)} are free, although {within}{inline}: "
            f"{held}.{after}"
        ),
        lines=(
            *(cite_said(s) for s in said),
            *([department.line()] if not missing and department else []),
        ),
        figures=fig,
        missing=missing,
    )


def unknown(ev: PendingEvidence, fig: PoolFigures) -> Verdict:
    """P14: nothing above is supported; what was seen, and what would decide."""
    _, missing = contention(ev, fig)
    said = ev.saying(Saying.FIT, Saying.PIPELINED, pool=fig.pool)[:1]
    where = f" in node pool {fig.pool}" if fig.pool else ""
    headline = f"Why it is waiting{where} cannot be told from what was read"
    headline += f"; missing: {missing[0]}." if missing else "."
    return Verdict(
        reason=R.UNKNOWN,
        pool=fig.pool,
        headline=headline,
        lines=tuple(cite_said(s) for s in said),
        figures=fig,
        missing=tuple(missing),
    )
