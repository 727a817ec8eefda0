"""Tier 2 collection: the skill's Step 4 `kubectl` reads, as API calls, for the failing pods.

Namespace: the workload's own `namespace`, else `runai-<project>` (Run:ai's default mapping,
said so in the report); with neither, Tier 2 is skipped and the report says why. Reads per
pod run concurrently; every failed read is a gap, never "nothing happened".
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TypeVar

from diagnosis.errors import NotFound, UpstreamError
from diagnosis.evidence import Gap, Signal
from diagnosis.kube.models import ContainerStatus, Pod
from diagnosis.kube.reader import KubeReader
from diagnosis.kube.signals import (
    DESCRIBE_NODE,
    container_signals,
    event_signals,
    log_signal,
    node_signals,
    source,
)
from diagnosis.lexicon import SignalKind
from diagnosis.logs import failing_line
from diagnosis.redact import Redactor
from diagnosis.report import EvidenceLine
from diagnosis.runai.models import Pod as RunaiPod
from diagnosis.runai.models import Workload

__all__ = ["MAX_PODS", "Tier2", "collect_tier2", "describe_nodes", "namespace_for"]

T = TypeVar("T")
MAX_PODS = 3
_FAILED_POD_PHASES = frozenset({"failed", "error", "oomkilled", "crashloopbackoff", "pending"})
_NODE_KINDS = frozenset({SignalKind.NODE_NOT_READY, SignalKind.NODE_EVICTION})


@dataclass
class Tier2:
    """What Tier 2 added: signals, context lines and gaps."""

    namespace: str | None
    signals: list[Signal] = field(default_factory=list)
    lines: list[EvidenceLine] = field(default_factory=list)
    gaps: list[Gap] = field(default_factory=list)
    memory: dict[str, tuple[str | None, str | None, str]] = field(default_factory=dict)
    nodes_read: set[str] = field(default_factory=set)


def namespace_for(workload: Workload) -> tuple[str | None, bool]:
    """(namespace, is_fallback): the workload's own, else `runai-<project>`, else None."""
    if workload.namespace:
        return workload.namespace, False
    if workload.project_name:
        return f"runai-{workload.project_name}", True
    return None, False


def _pods_to_read(pods: tuple[RunaiPod, ...]) -> list[str]:
    ranked = sorted(pods, key=lambda p: (p.k8s_phase or "").lower() not in _FAILED_POD_PHASES)
    return [p.name for p in ranked[:MAX_PODS]]


def _log_target(pod: Pod) -> tuple[ContainerStatus, bool] | None:
    """The container whose logs explain the failure, and whether to read `--previous`.

    An OOM-killed container needs no log to explain it (the kernel killed it mid-line), so
    it is not read.
    """
    statuses = [
        s
        for s in (*pod.status.init_container_statuses, *pod.status.container_statuses)
        if not _oom_killed(s)
    ]
    for status in statuses:
        last = status.last_state.terminated
        if last is not None and last.exit_code != 0:
            return status, True
    for status in statuses:
        now = status.state.terminated
        if now is not None and now.exit_code != 0:
            return status, False  # no restart: its current log is the one that failed
    return None


def _oom_killed(status: ContainerStatus) -> bool:
    return any(
        state.terminated is not None and (state.terminated.reason or "").lower() == "oomkilled"
        for state in (status.state, status.last_state)
    )


async def _safe(call: Awaitable[T], gap: str, gaps: list[Gap], cite: str) -> T | None:
    try:
        return await call
    except NotFound:
        gaps.append(Gap(source=cite, what=f"{gap}: not found"))
    except UpstreamError as error:
        status = f"HTTP {error.status}" if error.status is not None else type(error).__name__
        gaps.append(Gap(source=cite, what=f"{gap} unavailable ({status}: {error.args[0]})"))
    return None


async def _one_pod(
    kube: KubeReader, namespace: str, name: str, *, since: datetime, out: Tier2, redactor: Redactor
) -> None:
    describe = source("kubectl describe pod", namespace)
    events_cite = source("kubectl get events", namespace)
    pod, events = await asyncio.gather(
        _safe(kube.get_pod(namespace, name), f"pod {name} ({describe})", out.gaps, describe),
        _safe(
            kube.list_pod_events(namespace, name),
            f"events of pod {name} ({events_cite})",
            out.gaps,
            events_cite,
        ),
    )
    if events is not None:
        out.signals.extend(event_signals(events, events_cite, redactor))
    if pod is None:
        return
    out.signals.extend(container_signals(pod, describe, redactor))
    for container in (*pod.spec.init_containers, *pod.spec.containers):
        res = container.resources
        if "memory" in res.requests or "memory" in res.limits:
            memory = (res.requests.get("memory"), res.limits.get("memory"), describe)
            out.memory.setdefault(container.name, memory)
    target = _log_target(pod)
    if target is not None:
        status, previous = target
        command = "kubectl logs --previous" if previous else "kubectl logs"
        cite = source(command, namespace)
        log = await _safe(
            kube.get_logs(namespace, name, status.name, previous=previous),
            f"logs of container {status.name} ({cite})",
            out.gaps,
            cite,
        )
        if log is not None:
            line = failing_line(log)
            if line is not None:
                out.signals.append(
                    log_signal(line, container=status.name, cite=cite, redactor=redactor)
                )
            else:
                which = "previous" if previous else "current (it never restarted)"
                out.lines.append(
                    EvidenceLine(
                        text=f"The {which} logs of container {status.name} in pod {name} "
                        "show no error line",
                        source=cite,
                    )
                )
    node = pod.spec.node_name
    if node and (
        any(s.kind in _NODE_KINDS for s in out.signals)
        or (pod.status.reason or "").lower() == "evicted"
    ):
        out.nodes_read.add(node)
        described = await _safe(
            kube.get_node(node), f"node {node} ({DESCRIBE_NODE})", out.gaps, DESCRIBE_NODE
        )
        if described is not None:
            out.signals.extend(node_signals(described, since=since, redactor=redactor))


async def collect_tier2(
    kube: KubeReader,
    workload: Workload,
    pods: tuple[RunaiPod, ...] | None,
    *,
    since: datetime,
    redactor: Redactor,
) -> Tier2:
    """Describe the failing pods, read their events and the failed container's logs."""
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
    await asyncio.gather(
        *(
            _one_pod(kube, namespace, name, since=since, out=out, redactor=redactor)
            for name in names
        )
    )
    return out


async def describe_nodes(
    kube: KubeReader, names: list[str], *, since: datetime, redactor: Redactor
) -> tuple[list[Signal], list[Gap]]:
    """`kubectl describe node` for nodes that Run:ai evidence (history, status) implicated."""
    gaps: list[Gap] = []
    nodes = await asyncio.gather(
        *(
            _safe(kube.get_node(n), f"node {n} ({DESCRIBE_NODE})", gaps, DESCRIBE_NODE)
            for n in names
        )
    )
    signals = [
        s
        for node in nodes
        if node is not None
        for s in node_signals(node, since=since, redactor=redactor)
    ]
    return signals, gaps
