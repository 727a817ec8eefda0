"""Steps 2-4: spec, pods (then Kubernetes) and history concurrently; metrics/nodes if indicated.

Every fetch that fails becomes a `Gap`; nothing here classifies. The wall time is the
dependency chain (status+events → {spec, history, pods → Tier 2} → {metrics, nodes}), not
the sum of the calls.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TypeVar

from diagnosis.evidence import Evidence, Gap, Signal
from diagnosis.exitcodes import SIGKILL_EXIT
from diagnosis.fetch import Fetched, fetch_history, gather_gap
from diagnosis.kube.collect import Tier2, collect_tier2, describe_nodes
from diagnosis.kube.reader import KubeReader
from diagnosis.lexicon import SignalKind
from diagnosis.memory import LIMIT, USAGE
from diagnosis.redact import Redactor
from diagnosis.request import DiagnosisRequest
from diagnosis.runai.models import Event, Pod, Workload
from diagnosis.runai.reader import RunaiReader
from diagnosis.signals import history_signals, pod_signals

__all__ = ["collect"]

T = TypeVar("T")
_NODE_KINDS = (SignalKind.NODE_NOT_READY, SignalKind.NODE_EVICTION, SignalKind.NODE_CORDONED)


def _needs_metrics(signals: list[Signal]) -> bool:
    """OOM, or an exit 137 that nothing else explains yet (the skill's Step 4 trigger)."""
    return any(
        s.kind is SignalKind.OOM_KILLED
        or (s.kind is SignalKind.EXIT_CODE and s.exit_code == SIGKILL_EXIT)
        for s in signals
    )


async def _when(flag: bool, call: Callable[[], Awaitable[Fetched[T]]]) -> Fetched[T] | None:  # noqa: FBT001
    """Run `call` only when `flag` is set (conditional evidence, the skill's Step 4)."""
    return await call() if flag else None


async def collect(
    request: DiagnosisRequest,
    runai: RunaiReader,
    *,
    workload: Workload,
    events: Fetched[tuple[Event, ...]],
    status: list[Signal],
    now: datetime,
    cutoff: datetime,
    since: datetime,
    redactor: Redactor,
    kube: KubeReader | None = None,
) -> Evidence:
    """Gather the rest of the evidence for a workload that is in scope.

    `cutoff` is the lookback (recurrence); `since` is where the failure's own evidence
    starts (at or before `cutoff`), so an old failure keeps its history and metrics.
    """

    async def pods_then_tier2() -> tuple[Fetched[list[Pod]], Tier2 | None]:
        pods = await gather_gap("get_workload_pods", "pods", runai.list_pods(workload.id))
        if kube is None:
            return pods, None
        found = tuple(pods.value) if pods.value is not None else None
        return pods, await collect_tier2(kube, workload, found, since=since, redactor=redactor)

    spec, history, (pods, tier2) = await asyncio.gather(
        gather_gap("get_workload_spec", "submitted spec", runai.get_workload_spec(workload)),
        fetch_history(runai, workload.id, since),
        pods_then_tier2(),
    )
    gaps = [f.gap for f in (events, spec, pods, history) if f.gap is not None]
    signals = [
        *status,
        *pod_signals(pods.value or (), redactor),
        *history_signals(history.value or (), redactor),
        *(tier2.signals if tier2 else ()),
    ]
    gaps.extend(tier2.gaps if tier2 else ())
    if pods.value is not None and not pods.value:
        gaps.append(
            Gap(
                source="get_workload_pods", what="pods (none returned: cleaned up or never created)"
            )
        )

    want_metrics = _needs_metrics(signals)
    node_names = sorted({p.node_name for p in pods.value or () if p.node_name})
    want_nodes = bool(node_names) and any(s.kind in _NODE_KINDS for s in signals)
    metrics, nodes = await asyncio.gather(
        _when(
            want_metrics,
            lambda: gather_gap(
                "get_workload_metrics",
                "CPU-memory metrics",
                runai.get_metrics(workload.id, metric_types=(USAGE, LIMIT), start=since, end=now),
            ),
        ),
        _when(
            want_nodes,
            lambda: gather_gap(
                "list_nodes",
                "node status",
                runai.list_nodes(cluster_id=workload.cluster_id, names=node_names),
            ),
        ),
    )
    gaps.extend(f.gap for f in (metrics, nodes) if f is not None and f.gap is not None)
    described = tier2.nodes_read if tier2 else set()
    undescribed = [n for n in node_names if n not in described]
    if want_nodes and kube is not None and undescribed:
        node_signals, node_gaps = await describe_nodes(
            kube, undescribed, since=cutoff, redactor=redactor
        )
        signals.extend(node_signals)
        gaps.extend(node_gaps)
    return Evidence(
        request=request,
        now=now,
        cutoff=cutoff,
        workload=workload,
        events=events.value,
        spec=spec.value,
        pods=tuple(pods.value) if pods.value is not None else None,
        history=tuple(history.value) if history.value is not None else None,
        metrics=tuple(metrics.value) if metrics and metrics.value is not None else None,
        metrics_requested=want_metrics,
        nodes=tuple(nodes.value) if nodes and nodes.value is not None else None,
        signals=tuple(signals),
        gaps=tuple(gaps),
        tier2=kube is not None,
        tier2_lines=tuple(tier2.lines) if tier2 else (),
        container_memory=tier2.memory if tier2 else {},
        restarts=tuple(tier2.restarts) if tier2 else (),
    )
