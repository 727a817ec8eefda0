"""Tier 2 collection: the skill's Step 4 `kubectl` reads, as API calls, for the failing pods.

Namespace: the workload's own `namespace`, else `runai-<project>` (Run:ai's default mapping,
said so in the report); with neither, Tier 2 is skipped and the report says why. Reads per
pod run concurrently; every failed read is a gap, never "nothing happened". A node is
described when a pod's Kubernetes evidence implicates it; when the Run:ai evidence already
hints at the node (an OOM, a kill, a node signal), its description is read alongside the
pods, from the node the Run:ai pod names, and used only if a pod then implicates it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime

from diagnosis.evidence import Gap, Restarts, Signal
from diagnosis.exitcodes import SIGKILL_EXIT
from diagnosis.kube.models import Pod
from diagnosis.kube.nodes import (
    NodeRead,
    describe_node,
    describe_nodes,
    guarded_read,
    node_evidence,
    read_node,
)
from diagnosis.kube.pod_logs import log_target, read_log
from diagnosis.kube.reader import KubeReader
from diagnosis.kube.signals import (
    container_signals,
    event_signals,
    pod_rank,
    restarts_of,
    source,
)
from diagnosis.lexicon import SignalKind
from diagnosis.redact import Redactor
from diagnosis.report import EvidenceLine
from diagnosis.runai.models import Pod as RunaiPod
from diagnosis.runai.models import Workload
from diagnosis.runs import latest_run_first

__all__ = [
    "MAX_PODS",
    "Tier2",
    "collect_tier2",
    "describe_node",
    "describe_nodes",
    "namespace_for",
]

MAX_PODS = 3
_FAILED_POD_PHASES = frozenset({"failed", "error", "oomkilled", "crashloopbackoff", "pending"})
_NODE_KINDS = frozenset(
    {
        SignalKind.NODE_NOT_READY,
        SignalKind.NODE_EVICTION,
        SignalKind.NODE_CORDONED,
        SignalKind.KILLED,
    }
)
#: SIGKILL and SIGTERM: killed from outside, which the node may explain.
_KILL_EXITS = frozenset({SIGKILL_EXIT, 143})
#: Run:ai evidence after which a pod's node is likely to be implicated (read it early).
_HINT_KINDS = _NODE_KINDS | {SignalKind.OOM_KILLED}


@dataclass
class Tier2:
    """What Tier 2 added: signals, context lines and gaps."""

    namespace: str | None
    signals: list[Signal] = field(default_factory=list)
    lines: list[EvidenceLine] = field(default_factory=list)
    gaps: list[Gap] = field(default_factory=list)
    memory: dict[str, tuple[str | None, str | None, str]] = field(default_factory=dict)
    nodes_read: set[str] = field(default_factory=set)
    restarts: list[Restarts] = field(default_factory=list)


def namespace_for(workload: Workload) -> tuple[str | None, bool]:
    """(namespace, is_fallback): the workload's own, else `runai-<project>`, else None."""
    if workload.namespace:
        return workload.namespace, False
    if workload.project_name:
        return f"runai-{workload.project_name}", True
    return None, False


def _ranked(pods: tuple[RunaiPod, ...]) -> list[RunaiPod]:
    """The pods worth reading: failed or stuck ones of the latest run first (`diagnosis.runs`)."""
    return latest_run_first(pods, _FAILED_POD_PHASES)[:MAX_PODS]


def _pods_to_read(pods: tuple[RunaiPod, ...]) -> list[str]:
    return [p.name for p in _ranked(pods)]


def _hinted_nodes(pods: tuple[RunaiPod, ...], hints: list[Signal]) -> list[str]:
    """The nodes of the pods to read, when the Run:ai evidence hints at a node cause."""
    if not any(
        s.kind in _HINT_KINDS or (s.kind is SignalKind.EXIT_CODE and s.exit_code in _KILL_EXITS)
        for s in hints
    ):
        return []
    return sorted({p.node_name for p in _ranked(pods) if p.node_name})


def _implicates_node(signals: list[Signal], pod: Pod) -> bool:
    """Pod evidence that only the node can explain: node signals, a kill, an eviction, 137/143."""
    return (pod.status.reason or "").lower() == "evicted" or any(
        s.kind in _NODE_KINDS or (s.kind is SignalKind.EXIT_CODE and s.exit_code in _KILL_EXITS)
        for s in signals
    )


def _with_deadline(signals: list[Signal], pod: Pod) -> list[Signal]:
    """`DeadlineExceeded` signals of a pod whose spec has `activeDeadlineSeconds` name it."""
    deadline = pod.spec.active_deadline_seconds
    if deadline is None:
        return signals
    return [
        s.model_copy(update={"detail": str(deadline)})
        if s.kind is SignalKind.MAX_DURATION and s.detail is None
        else s
        for s in signals
    ]


async def _one_pod(kube: KubeReader, namespace: str, name: str, *, redactor: Redactor) -> Tier2:
    """Everything Tier 2 reads about one pod, as its own value (merged in pod order later)."""
    part = Tier2(namespace=namespace)
    describe = source("kubectl describe pod", namespace)
    events_cite = source("kubectl get events", namespace)
    pod, events = await asyncio.gather(
        guarded_read(
            kube.get_pod(namespace, name), f"pod {name} ({describe})", part.gaps, describe
        ),
        guarded_read(
            kube.list_pod_events(namespace, name),
            f"events of pod {name} ({events_cite})",
            part.gaps,
            events_cite,
        ),
    )
    if events is not None:
        part.signals.extend(event_signals(events, events_cite, redactor))
    if pod is None:
        return part
    part.signals.extend(container_signals(pod, describe, redactor))
    part.signals = _with_deadline(part.signals, pod)
    part.restarts.extend(restarts_of(pod, describe))
    for container in (*pod.spec.init_containers, *pod.spec.containers):
        res = container.resources
        if "memory" in res.requests or "memory" in res.limits:
            memory = (res.requests.get("memory"), res.limits.get("memory"), describe)
            part.memory.setdefault(container.name, memory)
    target = log_target(pod)
    if target is not None:
        signals, lines = await read_log(
            kube,
            namespace,
            pod.name,
            *target,
            gaps=part.gaps,
            redactor=redactor,
            rank=pod_rank(pod),
        )
        part.signals.extend(signals)
        part.lines.extend(lines)
    node = pod.spec.node_name
    if node and _implicates_node(part.signals, pod):
        part.nodes_read.add(node)  # described once per node, after every pod was read
    return part


def _merge(out: Tier2, parts: list[Tier2]) -> None:
    """Merge per-pod parts in pod order, so the result never depends on completion order."""
    for part in parts:
        out.signals.extend(part.signals)
        out.lines.extend(part.lines)
        out.gaps.extend(part.gaps)
        out.restarts.extend(part.restarts)
        for container, memory in part.memory.items():
            out.memory.setdefault(container, memory)
        out.nodes_read |= part.nodes_read


async def collect_tier2(
    kube: KubeReader,
    workload: Workload,
    pods: tuple[RunaiPod, ...] | None,
    *,
    since: datetime,
    redactor: Redactor,
    hints: list[Signal] | None = None,
) -> Tier2:
    """Describe the failing pods, read their events and the failed container's logs.

    `hints` are the Run:ai signals read so far: when they point at a node, the nodes the
    Run:ai pods name are described alongside the pods (one chain level, not two); a node
    is still only reported when a pod's own Kubernetes evidence implicates it.
    """
    namespace, fallback = namespace_for(workload)
    out = Tier2(namespace=namespace)
    if namespace is None:
        out.gaps.append(
            Gap(
                source="kubectl",
                what="Kubernetes evidence: the workload has no namespace or project",
            )
        )
        return out
    if fallback:
        out.lines.append(
            EvidenceLine(
                text=f"Namespace {namespace} assumed from the project "
                "(the workload record names none)",
                source="get_workload_status",
            )
        )
    names = _pods_to_read(pods or ())
    if not names:
        out.gaps.append(
            Gap(
                source="kubectl",
                what="Kubernetes evidence: no pod names to read (no pods returned)",
            )
        )
        return out
    early = {
        node: asyncio.ensure_future(read_node(kube, node))
        for node in _hinted_nodes(pods or (), hints or [])
    }
    try:
        parts = await asyncio.gather(
            *(_one_pod(kube, namespace, name, redactor=redactor) for name in names)
        )
        _merge(out, list(parts))
        nodes = sorted(out.nodes_read)

        async def node_read(node: str) -> NodeRead:
            started = early.get(node)
            return await (started if started is not None else read_node(kube, node))

        read = await asyncio.gather(*(node_read(n) for n in nodes))
    finally:
        for task in early.values():
            task.cancel()  # read early but implicated by no pod: not evidence, dropped unread
    for node, one in zip(nodes, read, strict=True):  # in node order, redacted only if used
        signals, gaps = node_evidence(node, one, since=since, redactor=redactor)
        out.signals.extend(signals)
        out.gaps.extend(gaps)
    return out
