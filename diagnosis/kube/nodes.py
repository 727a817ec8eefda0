"""`kubectl describe node` as API reads: the node, its events, and what they say.

Each read that fails is a gap. `read_node` only reads; `node_evidence` turns what was read
into signals, so Tier 2 can read a node early and use it only if a pod implicates it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from datetime import datetime
from typing import TypeVar

from diagnosis.errors import NotFound, UpstreamError
from diagnosis.evidence import Gap, Signal
from diagnosis.fetch import gap_for, within_deadline
from diagnosis.kube.client import DESCRIBE_NODE
from diagnosis.kube.event_models import KubeEvent
from diagnosis.kube.models import KubeNode
from diagnosis.kube.node_signals import node_event_signals, node_signals
from diagnosis.kube.reader import KubeReader
from diagnosis.redact import Redactor

__all__ = [
    "NodeRead",
    "describe_node",
    "describe_nodes",
    "guarded_read",
    "node_evidence",
    "read_node",
]

T = TypeVar("T")


async def guarded_read(call: Awaitable[T], gap: str, gaps: list[Gap], cite: str) -> T | None:
    """`call` within the deadline; a failed read appends its gap (`gap`: what was lost)."""
    try:
        return await within_deadline(call, cite)
    except NotFound:
        gaps.append(Gap(source=cite, what=f"{gap}: not found", cause="HTTP 404"))
    except UpstreamError as error:
        gaps.append(gap_for(cite, gap, error))
    return None


NodeRead = tuple[KubeNode | None, list[KubeEvent] | None, list[Gap]]


async def read_node(kube: KubeReader, name: str) -> NodeRead:
    """The two reads of `kubectl describe node`, as read (nothing redacted or counted yet)."""
    gaps: list[Gap] = []
    node, events = await asyncio.gather(
        guarded_read(kube.get_node(name), f"node {name} ({DESCRIBE_NODE})", gaps, DESCRIBE_NODE),
        guarded_read(
            kube.list_node_events(name),
            f"events of node {name} ({DESCRIBE_NODE})",
            gaps,
            DESCRIBE_NODE,
        ),
    )
    return node, events, gaps


def node_evidence(
    name: str, read: NodeRead, *, since: datetime, redactor: Redactor
) -> tuple[list[Signal], list[Gap]]:
    """A node's read parts as evidence: its signals (redacted now) and the gaps of its reads."""
    node, events, gaps = read
    signals = [] if node is None else list(node_signals(node, since=since, redactor=redactor))
    if events is not None:
        signals.extend(node_event_signals(name, events, since=since, redactor=redactor))
    return signals, gaps


async def describe_node(
    kube: KubeReader, name: str, *, since: datetime, redactor: Redactor
) -> tuple[list[Signal], list[Gap]]:
    """`kubectl describe node`: its Ready condition, cordon and its own events."""
    return node_evidence(name, await read_node(kube, name), since=since, redactor=redactor)


async def describe_nodes(
    kube: KubeReader, names: list[str], *, since: datetime, redactor: Redactor
) -> tuple[list[Signal], list[Gap]]:
    """`kubectl describe node` for nodes that Run:ai evidence (history, status) implicated."""
    described = await asyncio.gather(
        *(describe_node(kube, n, since=since, redactor=redactor) for n in names)
    )
    return (
        [s for signals, _ in described for s in signals],
        [g for _, gaps in described for g in gaps],
    )
