"""Steps 2-4: spec, pods (then Kubernetes) and history concurrently; metrics/nodes if indicated.

Every fetch that fails becomes a `Gap`; nothing here classifies. The wall time is the
dependency chain, not the sum of the calls: status → {events, spec, history, pods, metrics
if the status shows an OOM} → {Tier 2 pods and the nodes the Run:ai pods name, metrics if
only the events or pods show it}. `Reads` starts the Run:ai reads the moment the status is
read and authorized, alongside the events the phase routing waits for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Generic, TypeVar

from diagnosis.evidence import Evidence, Gap, Signal
from diagnosis.exitcodes import SIGKILL_EXIT
from diagnosis.fetch import Fetched, fetch_history, gather_gap, ready
from diagnosis.kube.collect import Tier2, collect_tier2, describe_nodes
from diagnosis.kube.reader import KubeReader
from diagnosis.lexicon import SignalKind
from diagnosis.memory import LIMIT, USAGE
from diagnosis.redact import Redactor
from diagnosis.request import DiagnosisRequest
from diagnosis.runai.models import Event, HistoryRecord, Measurement, Node, Pod, Workload
from diagnosis.runai.reader import RunaiReader
from diagnosis.signals import history_signals, pod_signals, status_signals

__all__ = ["Reads", "collect"]

T = TypeVar("T")
#: The skill: "If the kind-specific `spec` is absent, report that limitation and continue."
SPEC_ABSENT = Gap(
    source="get_workload_spec",
    what="submitted spec: the kind-specific spec is absent (image, command, memory limit "
    "and restart policy not known)",
)
_NODE_KINDS = (SignalKind.NODE_NOT_READY, SignalKind.NODE_EVICTION, SignalKind.NODE_CORDONED)


def _needs_metrics(signals: list[Signal]) -> bool:
    """OOM, or an exit 137 that nothing else explains yet (the skill's Step 4 trigger)."""
    return any(
        s.kind is SignalKind.OOM_KILLED
        or (s.kind is SignalKind.EXIT_CODE and s.exit_code == SIGKILL_EXIT)
        for s in signals
    )


class _Soon(Generic[T]):
    """A conditional fetch (the skill's Step 4), started the moment its condition holds.

    The conditions only ever become true as evidence arrives (a signal seen in part of the
    evidence is in all of it), so starting at the first part that shows it asks exactly
    what asking at the end would, a chain level or two earlier.
    """

    def __init__(self, call: Callable[[], Awaitable[Fetched[T]]]) -> None:
        self._call = call
        self._task: asyncio.Task[Fetched[T]] | None = None

    def start_if(self, flag: bool) -> None:  # noqa: FBT001
        """Start the fetch if `flag` is set and it has not started yet."""
        if flag and self._task is None:
            self._task = asyncio.ensure_future(self._call())

    async def result(self) -> Fetched[T] | None:
        """The fetch's result; None when it was never wanted."""
        return None if self._task is None else await self._task

    def cancel(self) -> None:
        """Stop the fetch if it is still running (the collection failed)."""
        if self._task is not None:
            self._task.cancel()


class Reads:
    """The Run:ai reads of Steps 2-4 for one workload, started as soon as they can be.

    Built only after the workload's status was read *and* the asker's access to it was
    granted (`diagnosis.access`): everything here needs the workload's ID and the evidence
    window, which the status gives, and nothing of a workload the asker may not see is
    ever read. Spec, pods and history start at once, next to the events; metrics start now
    if the status alone shows an OOM (else when the evidence read so far shows one), node
    status when the evidence implicates a node. `cancel` drops whatever is not used (the
    workload was routed to a preemption, Pending or out-of-scope answer instead).
    """

    def __init__(
        self,
        runai: RunaiReader,
        workload: Workload,
        *,
        now: datetime,
        since: datetime,
        history: Fetched[list[HistoryRecord]] | None = None,
    ) -> None:
        # Pods first: Tier 2 (the third chain level) waits on them, nothing waits on the rest.
        self.pods = asyncio.ensure_future(
            gather_gap("get_workload_pods", "pods", runai.list_pods(workload.id))
        )
        self.spec = asyncio.ensure_future(
            gather_gap("get_workload_spec", "submitted spec", runai.get_workload_spec(workload))
        )
        # History read already (to tell a survived eviction) is not read again.
        self.history = asyncio.ensure_future(
            fetch_history(runai, workload.id, since) if history is None else ready(history)
        )
        self.node_names: list[str] | None = None  # known once the pods are

        def _metrics() -> Awaitable[Fetched[list[Measurement]]]:
            return gather_gap(
                "get_workload_metrics",
                "CPU-memory metrics",
                runai.get_metrics(workload.id, metric_types=(USAGE, LIMIT), start=since, end=now),
            )

        def _nodes() -> Awaitable[Fetched[list[Node]]]:
            return gather_gap(
                "list_nodes",
                "node status",
                runai.list_nodes(cluster_id=workload.cluster_id, names=self.node_names or []),
            )

        self.metrics, self.nodes = _Soon(_metrics), _Soon(_nodes)
        # A throwaway redactor: these signals only decide; the report's are made again.
        self.metrics.start_if(_needs_metrics(list(status_signals(workload, Redactor()))))

    def indicated(self, signals: list[Signal]) -> None:
        """Start metrics and node status as soon as the evidence so far asks for them."""
        self.metrics.start_if(_needs_metrics(signals))
        self.nodes.start_if(bool(self.node_names) and any(s.kind in _NODE_KINDS for s in signals))

    def cancel(self) -> None:
        """Stop every read still running (unused, or the collection failed)."""
        for task in (self.spec, self.pods, self.history):
            task.cancel()
        self.metrics.cancel()
        self.nodes.cancel()


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
    reads: Reads | None = None,
) -> Evidence:
    """Gather the rest of the evidence for a workload that is in scope.

    `cutoff` is the lookback (recurrence); `since` is where the failure's own evidence
    starts (at or before `cutoff`), so an old failure keeps its history and metrics.
    `reads`, when given, are this workload's reads already under way (same `now`, `since`).
    """
    pod_found: list[Signal] = []
    history_found: list[Signal] = []
    reads = reads or Reads(runai, workload, now=now, since=since)
    metrics, nodes = reads.metrics, reads.nodes

    async def pods_then_tier2() -> tuple[Fetched[list[Pod]], Tier2 | None]:
        pods = await reads.pods
        pod_found.extend(pod_signals(pods.value or (), redactor))
        reads.node_names = sorted({p.node_name for p in pods.value or () if p.node_name})
        so_far = [*status, *pod_found, *history_found]
        reads.indicated(so_far)
        if kube is None:
            return pods, None
        found = tuple(pods.value) if pods.value is not None else None
        tier2 = await collect_tier2(
            kube, workload, found, since=since, redactor=redactor, hints=so_far
        )
        return pods, tier2

    async def history_then() -> Fetched[list[HistoryRecord]]:
        history = await reads.history
        history_found.extend(history_signals(history.value or (), redactor))
        reads.indicated([*status, *pod_found, *history_found])
        return history

    reads.indicated(status)
    try:
        spec, history, (pods, tier2) = await asyncio.gather(
            reads.spec, history_then(), pods_then_tier2()
        )
        signals = [*status, *pod_found, *history_found, *(tier2.signals if tier2 else ())]
        reads.indicated(signals)
        node_names = reads.node_names
        want_metrics = _needs_metrics(signals)
        want_nodes = bool(node_names) and any(s.kind in _NODE_KINDS for s in signals)
        described = tier2.nodes_read if tier2 else set()
        undescribed = [n for n in node_names or () if n not in described]

        async def describe() -> tuple[list[Signal], list[Gap]]:
            if want_nodes and kube is not None and undescribed:
                return await describe_nodes(kube, undescribed, since=cutoff, redactor=redactor)
            return [], []

        metrics_read, nodes_read, (node_signals, node_gaps) = await asyncio.gather(
            metrics.result(), nodes.result(), describe()
        )
    finally:
        reads.cancel()
    gaps = [f.gap for f in (events, spec, pods, history) if f.gap is not None]
    gaps.extend(tier2.gaps if tier2 else ())
    if spec.value is not None and spec.value.spec is None:
        gaps.append(SPEC_ABSENT)
    if pods.value is not None and not pods.value:
        gaps.append(
            Gap(
                source="get_workload_pods", what="pods (none returned: cleaned up or never created)"
            )
        )
    gaps.extend(f.gap for f in (metrics_read, nodes_read) if f is not None and f.gap is not None)
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
        metrics=tuple(metrics_read.value)
        if metrics_read and metrics_read.value is not None
        else None,
        metrics_requested=want_metrics,
        nodes=tuple(nodes_read.value) if nodes_read and nodes_read.value is not None else None,
        signals=tuple(signals),
        gaps=tuple(gaps),
        tier2=kube is not None,
        tier2_lines=tuple(tier2.lines) if tier2 else (),
        container_memory=tier2.memory if tier2 else {},
        restarts=tuple(tier2.restarts) if tier2 else (),
    )
