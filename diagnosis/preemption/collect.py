"""Everything the preemption answer reads; every failed read is a stated gap.

At once: history (recurrence, and the records it carries), the priority classes, the
project's quota and allocation around the eviction (only when the scheduler's own reclaim
line is not at hand), and (Tier 2) the victim PodGroup's events with their annotations. Then
the preemptor a record names, and, only when none is named, the candidates.
"""

from __future__ import annotations

import asyncio
from datetime import datetime

from diagnosis.evidence import Gap, Signal
from diagnosis.fetch import Fetched, fetch_history, gather_gap
from diagnosis.kube.collect import namespace_for
from diagnosis.kube.models import KubeEvent
from diagnosis.kube.reader import KubeReader
from diagnosis.kube.scheduler_reads import podgroup_events, podgroup_name
from diagnosis.preemption.evidence import PreemptionEvidence, evictions_of, nearest
from diagnosis.preemption.fairness import METRICS_WINDOW
from diagnosis.preemption.kinds import decide_kind
from diagnosis.preemption.party import candidates, find_preemptor
from diagnosis.preemption.texts import PreemptionKind
from diagnosis.request import DiagnosisRequest
from diagnosis.runai.models import Event, HistoryRecord, Measurement, Workload
from diagnosis.runai.reader import RunaiReader

__all__ = ["collect_preemption"]


def _pool(workload: Workload) -> str | None:
    pools = workload.current_node_pools or workload.requested_node_pools
    return pools[0] if pools else None


async def _metrics(
    runai: RunaiReader, workload: Workload, at: datetime | None, *, wanted: bool
) -> tuple[Fetched[list[Measurement]] | None, str | None]:
    pool = _pool(workload)
    if not wanted or at is None or not workload.project_id:
        return None, pool
    read = await gather_gap(
        "get_project_metrics",
        "the project's GPU quota and allocation around the eviction",
        runai.get_project_metrics(
            workload.project_id,
            metric_types=("GPU_QUOTA", "GPU_ALLOCATION"),
            start=at - METRICS_WINDOW,
            end=at + METRICS_WINDOW,
            node_pool=pool,
        ),
    )
    return read, pool


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

    read, priorities, (metrics, pool), (group_events, kube_gaps, cite) = await asyncio.gather(
        read_history(),
        gather_gap("get_workload_priorities", "priority classes", runai.list_workload_priorities()),
        _metrics(runai, workload, decisive.at, wanted=not reclaim_line),
        _tier2(kube, workload, events),
    )
    records = read.value or []
    evictions = evictions_of(events, records, group_events, cite)
    gaps = [g for g in (read.gap, priorities.gap) if g is not None]
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
        metrics_pool=pool,
        priorities=ranked,
        preemptor=preemptor,
        preemptor_workload=found,
        gaps=tuple(gaps),
        tier2=kube is not None,
    )
    if preemptor is None and decide_kind(evidence).kind is PreemptionKind.UNKNOWN:
        # Nothing names a preemptor: timing gives candidates, never a verdict.
        listed, more = await candidates(runai, workload, _pool(workload), decisive.at, ranked)
        evidence = evidence.model_copy(
            update={"candidates": tuple(listed), "gaps": (*evidence.gaps, *more)}
        )
    return evidence
