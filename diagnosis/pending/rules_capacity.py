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
from diagnosis.pending.verdict import PendingReason, Verdict, cannot_tell, cite_said

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
            f"{gpus(fig.deserved)} deserved GPUs allocated, {gpus(fig.requested)} more asked "
            f"for, {gpus(fig.free)} of {gpus(fig.total)} free: the over-quota capacity is in use "
            "by others."
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
            f"Over its department {department.name}'s quota in node pool {fig.pool}: "
            f"{gpus(department.allocated)} of {gpus(department.deserved)} deserved GPUs "
            f"allocated, {gpus(fig.requested)} more asked for, {gpus(fig.free)} of "
            f"{gpus(fig.total)} free: it waits for over-quota GPUs others use."
        ),
        lines=(*(cite_said(s) for s in said), department.line()),
        figures=fig,
        level=DEPARTMENT,
    )


def _by_its_own_share(ev: PendingEvidence, fig: PoolFigures) -> bool:
    """A non-preemptible workload is measured by its non-preemptible share (P5's measure)."""
    return preemptible(ev) is False and fig.allocated_np is not None


def _within(ev: PendingEvidence, fig: PoolFigures, department: DepartmentFigures | None) -> str:
    """How it is within its quotas in the pool, in words: the figures are the evidence lines'.

    The request, the project's line (deserved, allocated, non-preemptible) and the
    department's line carry them, so the headline stays short. A non-preemptible workload's
    share is never called "allocated"; its department is measured the same way.
    """
    named = f"department {department.name}" if department else None
    if _by_its_own_share(ev, fig):
        quotas = f"the project's and {named}'s quotas" if named else "the project's quota"
        return f"as non-preemptible work it fits {quotas}"
    return (
        f"the project and its {named} are within quota"
        if named
        else ("the project is within its quota")
    )


def node_pool_full(ev: PendingEvidence, fig: PoolFigures) -> Verdict | None:
    """P12: within the project's quota (and its department's), but the pool is short now."""
    if contention(ev, fig)[0] is not R.NODE_POOL_FULL:
        return None
    said = ev.saying(Saying.PIPELINED, Saying.FIT, pool=fig.pool)[:1]
    department = department_figures(ev, fig)  # None: it has none (`contention` knows)
    return Verdict(
        reason=R.NODE_POOL_FULL,
        pool=fig.pool,
        headline=(
            f"Node pool {fig.pool} is full ({gpus(fig.free)} of {gpus(fig.total)} GPUs free, "
            f"{gpus(fig.requested)} asked for), though {_within(ev, fig, department)}: "
            "capacity is held by others."
        ),
        lines=(*(cite_said(s) for s in said), *([department.line()] if department else [])),
        figures=fig,
    )


def _department_unknown(ev: PendingEvidence, fig: PoolFigures, missing: str) -> Verdict:
    """P14 with only the department's position missing: the pool's figures, no promise."""
    within = (
        "as non-preemptible work it is within the project's quota"
        if _by_its_own_share(ev, fig)
        else "the project is within its quota"
    )
    whose = department_named(ev)
    department = department_figures(ev, fig)
    said = ev.saying(Saying.FIT, Saying.PIPELINED, pool=fig.pool)[:1]
    return Verdict(
        reason=R.UNKNOWN,
        pool=fig.pool,
        headline=(
            f"Node pool {fig.pool} has {gpus(fig.free)} of {gpus(fig.total)} GPUs free and it "
            f"asks for {gpus(fig.requested)}; {within}, but whether {whose} is too is not "
            "known: waiting may not fix it."
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
    return Verdict(
        reason=R.UNKNOWN,
        pool=fig.pool,
        headline=cannot_tell(fig, decided_by_gaps=bool(missing)),
        lines=tuple(cite_said(s) for s in said),
        figures=fig,
        missing=tuple(missing),
    )
