"""Everything the preemption answer reads; every failed read is a stated gap.

At once: history (recurrence, and the records it carries), the priority classes, the
project's quota and allocation around the eviction in the one node pool it ran in (only when
the scheduler's own reclaim line is not at hand; `pool` says which pool, else why none), and
(Tier 2) the victim PodGroup's events with their annotations. Then the preemptor a record
names, and, only when none is named, the candidates in that same pool.
"""

from __future__ import annotations

import asyncio
from datetime import datetime

from diagnosis.evidence import Gap, Signal
from diagnosis.fetch import Fetched, fetch_history, gather_gap
from diagnosis.kube.collect import namespace_for
from diagnosis.kube.event_models import KubeEvent
from diagnosis.kube.reader import KubeReader
from diagnosis.kube.scheduler_reads import podgroup_events, podgroup_name
from diagnosis.preemption.evidence import PreemptionEvidence, evictions_of, nearest
from diagnosis.preemption.fairness import METRICS_WINDOW
from diagnosis.preemption.kinds import decide_kind
from diagnosis.preemption.party import candidates, find_preemptor
from diagnosis.preemption.pool import VictimPool, needs_project, victim_pool
from diagnosis.preemption.texts import PreemptionKind
from diagnosis.request import DiagnosisRequest
from diagnosis.runai.models import Event, HistoryRecord, Measurement, Workload
from diagnosis.runai.reader import RunaiReader
from diagnosis.runai.scheduling_models import ProjectQuota

__all__ = ["collect_preemption"]


async def _project(runai: RunaiReader, workload: Workload) -> Fetched[ProjectQuota] | None:
    """The project, read only when its default pools are all that can say where it ran."""
    if not needs_project(workload) or not workload.project_id:
        return None
    return await gather_gap(
        "get_project",
        "the project's default node pools (to tell the pool it ran in)",
        runai.get_project(workload.project_id),
    )


async def _metrics(
    runai: RunaiReader, workload: Workload, at: datetime | None, *, wanted: bool
) -> tuple[Fetched[list[Measurement]] | None, VictimPool, list[Gap]]:
    """The pool it ran in, and the project's quota and allocation there (never all pools)."""
    project = await _project(runai, workload)
    gaps = [project.gap] if project is not None and project.gap is not None else []
    where = victim_pool(
        workload, project.value if project else None, project_read=project is not None
    )
    if not wanted or at is None or not workload.project_id:
        return None, where, gaps
    if where.pool is None:
        what = (
            "the project's quota position at the eviction, in the node pool it ran in "
            f"(which pool is not known: {where.unknown_why})"
        )
        return None, where, [*gaps, Gap(source="get_project_metrics", what=what)]
    read = await gather_gap(
        "get_project_metrics",
        "the project's GPU quota and allocation around the eviction",
        runai.get_project_metrics(
            workload.project_id,
            metric_types=("GPU_QUOTA", "GPU_ALLOCATION"),
            start=at - METRICS_WINDOW,
            end=at + METRICS_WINDOW,
            node_pool=where.pool,
        ),
    )
    return read, where, gaps


async def _tier2(
    kube: KubeReader | None, workload: Workload, events: tuple[Event, ...]
) -> tuple[list[KubeEvent], list[Gap], str]:
    if kube is None:
        return [], [], ""
    namespace, _ = namespace_for(workload)
    name = podgroup_name(events)
    if namespace is None or name is None:
        what = (
            "the victim's PodGroup (no event names it)"
            if namespace
            else "the workload has no namespace or project"
        )
        return [], [Gap(source="kubectl get events", what=f"eviction annotations: {what}")], ""
    found, gap, cite = await podgroup_events(kube, namespace, name)
    return found or [], [gap] if gap else [], cite


async def collect_preemption(
    request: DiagnosisRequest,
    runai: RunaiReader,
    *,
    workload: Workload,
    decisive: Signal,
    signals: list[Signal],
    events: tuple[Event, ...],
    history: tuple[HistoryRecord, ...] | None,
    history_gap: Gap | None,
    now: datetime,
    cutoff: datetime,
    since: datetime,
    kube: KubeReader | None,
) -> PreemptionEvidence:
    """Read what explains a preemption (see the module docstring)."""
    seen = evictions_of(events, history or ())
    reclaim_line = any(e.said and e.said.queues for e in nearest(seen, decisive.at))

    async def read_history() -> Fetched[list[HistoryRecord]]:
        if history is not None or history_gap is not None:
            return Fetched(list(history) if history is not None else None, history_gap)
        return await fetch_history(runai, workload.id, since)

    (
        read,
        priorities,
        (metrics, where, pool_gaps),
        (group_events, kube_gaps, cite),
    ) = await asyncio.gather(
        read_history(),
        gather_gap("get_workload_priorities", "priority classes", runai.list_workload_priorities()),
        _metrics(runai, workload, decisive.at, wanted=not reclaim_line),
        _tier2(kube, workload, events),
    )
    records = read.value or []
    evictions = evictions_of(events, records, group_events, cite)
    gaps = [g for g in (read.gap, priorities.gap) if g is not None]
    gaps += pool_gaps
    gaps += [metrics.gap] if metrics is not None and metrics.gap else []
    gaps += kube_gaps
    ranked = tuple(priorities.value) if priorities.value is not None else None
    preemptor = found = None
    named = next(
        (e.evictor() for e in nearest(evictions, decisive.at) if e.evictor()[1]), (None, None)
    )
    if named[1] is not None:
        preemptor, found, more = await find_preemptor(runai, workload, named[0], named[1], ranked)
        gaps += more
    evidence = PreemptionEvidence(
        request=request,
        now=now,
        cutoff=cutoff,
        workload=workload,
        decisive=decisive,
        signals=tuple(signals),
        evictions=tuple(evictions),
        history=tuple(read.value) if read.value is not None else None,
        metrics=tuple(metrics.value) if metrics is not None and metrics.value is not None else None,
        metrics_pool=where.pool if metrics is not None else None,
        priorities=ranked,
        preemptor=preemptor,
        preemptor_workload=found,
        gaps=tuple(gaps),
        tier2=kube is not None,
    )
    if preemptor is None and decide_kind(evidence).kind is PreemptionKind.UNKNOWN:
        # Nothing names a preemptor: timing gives candidates, never a verdict.
        listed, more = await candidates(runai, workload, where.pool, decisive.at, ranked)
        evidence = evidence.model_copy(
            update={"candidates": tuple(listed), "gaps": (*evidence.gaps, *more)}
        )
    return evidence
