"""Pure extraction of `Signal`s from a node: its cordon, its Ready condition, its own events."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime

from diagnosis.evidence import Signal
from diagnosis.kube.client import DESCRIBE_NODE
from diagnosis.kube.event_models import KubeEvent
from diagnosis.kube.models import KubeNode
from diagnosis.lexicon import SignalKind
from diagnosis.moments import utc_text
from diagnosis.redact import Redactor, shorten
from diagnosis.signals import text_signals

__all__ = [
    "cordon_signal",
    "node_event_signals",
    "node_signals",
]

UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"


def cordon_signal(node: KubeNode, redactor: Redactor) -> Signal | None:
    """A cordoned node: `spec.unschedulable` or the `node.kubernetes.io/unschedulable` taint."""
    taint = next((t for t in node.taints if t.key == UNSCHEDULABLE_TAINT), None)
    if not node.unschedulable and taint is None:
        return None
    marks = ["spec.unschedulable=true"] if node.unschedulable else []
    if taint is not None:
        added = f" added at {utc_text(taint.time_added)}" if taint.time_added else ""
        marks.append(f"taint {taint.key}:{taint.effect or 'NoSchedule'}{added}")
    return Signal(
        kind=SignalKind.NODE_CORDONED,
        at=taint.time_added if taint is not None else None,
        source=DESCRIBE_NODE,
        origin=f"node {node.name}",
        reason="NodeNotSchedulable",
        text=shorten(redactor.clean(f"Node {node.name} is cordoned: {'; '.join(marks)}")),
        detail=node.name,
        key=f"node:{node.name}:cordoned",
    )


def node_event_signals(
    node: str, events: Iterable[KubeEvent], *, since: datetime, redactor: Redactor
) -> Iterator[Signal]:
    """The node's own events (`NodeNotSchedulable`, `NodeNotReady`) within the window."""
    for index, event in enumerate(events):
        if event.last_timestamp is not None and event.last_timestamp < since:
            continue
        for signal in text_signals(
            event.reason,
            event.message,
            at=event.last_timestamp,
            source=DESCRIBE_NODE,
            origin=f"node {node} event",
            key=f"k8snodeevent:{node}:{index}:{event.reason}",
            redactor=redactor,
        ):
            yield signal if signal.detail else signal.model_copy(update={"detail": node})


def node_signals(node: KubeNode, *, since: datetime, redactor: Redactor) -> Iterator[Signal]:
    """A cordon, and a Ready condition that is not True since a time within the lookback."""
    cordoned = cordon_signal(node, redactor)
    if cordoned is not None:
        yield cordoned
    for cond in node.conditions:
        if cond.type != "Ready" or (cond.status or "").lower() == "true":
            continue
        changed = cond.last_transition_time
        if changed is not None and changed < since:
            continue
        taints = ", ".join(f"{t.key}:{t.effect}" for t in node.taints)
        why = f"{cond.reason or 'no reason'}: {cond.message or ''}"
        began = utc_text(changed) if changed is not None else "an unknown time"
        text = f"Node {node.name} Ready={cond.status} since {began} ({why})"
        text += f"; taints: {taints}" if taints else ""
        yield Signal(
            kind=SignalKind.NODE_NOT_READY,
            at=changed,
            source=DESCRIBE_NODE,
            origin=f"node {node.name}",
            reason=cond.reason,
            text=shorten(redactor.clean(text)),
            detail=node.name,
            key=f"node:{node.name}",
        )
