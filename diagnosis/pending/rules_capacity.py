"""The derived Pending rows: project over quota vs pool full (P11, P12), and UNKNOWN (P14).

The one computed split. It needs the workload's request, the project's deserved and
allocated GPUs, and the pool's free GPUs, for the same pool and about the same moment; any
of them missing, or a pool with room to spare and no constraint text, is UNKNOWN naming what
would decide. Within the project's quota, its department's position decides too
(`pending.department`): a department over its deserved quota makes it P11 at the department
level; one not known (not read for this asker, or unreadable) makes it UNKNOWN, naming the
department as what would decide, never taken as unconstrained: the pool's figures are kept,
but no promise that waiting fixes it. Fair share is never computed: the API does not expose it.
"""

from __future__ import annotations

from datetime import datetime

from diagnosis.moments import utc_text
from diagnosis.pending.department import (
    DepartmentFigures,
    department_figures,
    department_named,
    position_unknown,
)
from diagnosis.pending.evidence import PendingEvidence, Said
from diagnosis.pending.figures import DEPARTMENT, PoolFigures, gpu_count, gpus, preemptible
from diagnosis.pending.texts import Saying
from diagnosis.pending.verdict import PendingReason, Verdict, cite_said

__all__ = ["contention", "node_pool_full", "project_over_quota", "unknown"]

R = PendingReason


def _when(fig: PoolFigures) -> str:
    def at(moment: datetime | None) -> str:
        return utc_text(moment) if moment is not None else "?"

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
            f"why {gpu_count(requested)} do not fit although node pool {pool} has "
            f"{gpus(fig.free)} free (no single node may have room: the scheduler's per-node "
            "fit text, through Kubernetes access, would tell)"
        ]
    in_quota = (fig.allocated or 0.0) + requested <= deserved
    movable = preemptible(ev)
    if movable is False and fig.allocated_np is not None:
        in_quota = fig.allocated_np + requested <= deserved
    department = department_figures(ev, fig)
    if in_quota:
        unknown = position_unknown(ev, fig)
        if unknown is not None:
            return None, [unknown]
        if department is None or department.over(ev, requested) is False:
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
            f"Over its department's quota in node pool {fig.pool}: department {department.name} "
            f"has {gpus(department.allocated)} of {gpus(department.deserved)} deserved GPUs "
            f"allocated and this asks for {gpus(fig.requested)} more (the project itself holds "
            f"{gpus(fig.allocated)} of its {gpus(fig.deserved)}), with {gpus(fig.free)} of "
            f"{gpus(fig.total)} GPUs free: it waits for over-quota GPUs others use."
        ),
        lines=(*(cite_said(s) for s in said), department.line()),
        figures=fig,
        level=DEPARTMENT,
    )


def _department_clause(ev: PendingEvidence, department: DepartmentFigures | None) -> str:
    """What the pool-full headline says of its department (within its quota), if it has one."""
    if department is None:
        return ""  # it has none: `contention` decides P12 only when it is known
    of = f"of {gpus(department.deserved)} deserved GPUs"
    if preemptible(ev) is False and department.allocated_np is not None:
        # Measured as the project is: by its non-preemptible share (`DepartmentFigures.over`).
        held = f"{gpus(department.allocated_np)} non-preemptible {of}"
        return f", and so is its department {department.name} ({held})"
    held = f"{gpus(department.allocated)} {of} allocated"
    return f", and so is its department {department.name} ({held})"


def _within(ev: PendingEvidence, fig: PoolFigures) -> tuple[str, str]:
    """How the project is within its quota in the pool, and who holds the capacity."""
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
    return within, held


def node_pool_full(ev: PendingEvidence, fig: PoolFigures) -> Verdict | None:
    """P12: within the project's quota (and its department's), but the pool is short now."""
    if contention(ev, fig)[0] is not R.NODE_POOL_FULL:
        return None
    said = ev.saying(Saying.PIPELINED, Saying.FIT, pool=fig.pool)[:1]
    within, held = _within(ev, fig)
    department = department_figures(ev, fig)
    return Verdict(
        reason=R.NODE_POOL_FULL,
        pool=fig.pool,
        headline=(
            f"Node pool {fig.pool} is full: it asks for {gpu_count(fig.requested)} and only "
            f"{gpus(fig.free)} of {gpus(fig.total)} are free, although {within}"
            f"{_department_clause(ev, department)}: {held}."
        ),
        lines=(*(cite_said(s) for s in said), *([department.line()] if department else [])),
        figures=fig,
    )


def _department_unknown(ev: PendingEvidence, fig: PoolFigures, missing: str) -> Verdict:
    """P14 with only the department's position missing: the pool's figures, no promise."""
    within, _ = _within(ev, fig)
    whose = department_named(ev)
    department = department_figures(ev, fig)
    said = ev.saying(Saying.FIT, Saying.PIPELINED, pool=fig.pool)[:1]
    return Verdict(
        reason=R.UNKNOWN,
        pool=fig.pool,
        headline=(
            f"Node pool {fig.pool} has {gpus(fig.free)} of {gpus(fig.total)} GPUs free and it "
            f"asks for {gpus(fig.requested)}; {within}, but whether {whose} is too is not "
            "known, so whether waiting fixes it cannot be told."
        ),
        lines=(*(cite_said(s) for s in said), *([department.line()] if department else [])),
        figures=fig,
        missing=(missing,),
        actions=(
            f"Ask a Run:ai administrator, or someone who may read {whose}, whether it is within "
            f"its deserved GPUs in node pool {fig.pool}: if it is, the scheduler should reclaim "
            "GPUs for this workload; if not, it waits for over-quota GPUs others use.",
        ),
    )


def unknown(ev: PendingEvidence, fig: PoolFigures) -> Verdict:
    """P14: nothing above is supported; what was seen, and what would decide."""
    _, missing = contention(ev, fig)
    if missing and fig.pool is not None and missing == [position_unknown(ev, fig)]:
        return _department_unknown(ev, fig, missing[0])
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
