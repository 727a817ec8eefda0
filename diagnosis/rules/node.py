"""NODE_FAILURE: the node under the pod went NotReady, was lost, drained or under pressure."""

from __future__ import annotations

from diagnosis.evidence import Evidence
from diagnosis.lexicon import SignalKind
from diagnosis.redact import Redactor, shorten
from diagnosis.report import Category, EvidenceLine
from diagnosis.rules.base import Finding, cite_all, latest

__all__ = ["node_failure"]

_KINDS = (SignalKind.NODE_NOT_READY, SignalKind.NODE_EVICTION)


def _node_lines(ev: Evidence, failing: str | None) -> list[EvidenceLine]:
    lines = []
    redactor = Redactor()
    for node in ev.nodes or ():
        if node.name != failing and (node.status or "").lower() == "ready":
            continue  # a healthy bystander says nothing about this failure
        conditions = "; ".join(
            shorten(redactor.clean(f"{c.type}={c.reason or '?'}: {c.message or ''}"), 120)
            for c in node.conditions
        )
        taints = ", ".join(f"{t.key}:{t.effect}" for t in node.taints)
        text = f"Node {node.name} status now: {node.status or 'unknown'}"
        text += f"; conditions: {conditions}" if conditions else ""
        text += f"; taints: {taints}" if taints else ""
        lines.append(EvidenceLine(text=text, source="list_nodes"))
    return lines


def node_failure(ev: Evidence) -> Finding | None:
    """A NotReady/unreachable/lost node, a drain, or a node-pressure eviction (not preemption)."""
    signals = ev.of(*_KINDS)
    if not signals:
        return None
    node = next((s.detail for s in reversed(signals) if s.detail), None)
    if node is None:
        node = next((p.node_name for p in ev.pods or () if p.node_name), None)
    what = f"Node {node}" if node else "The node running the workload"
    kind = "went NotReady or was lost"
    if not any(s.kind is SignalKind.NODE_NOT_READY for s in signals):
        kind = "evicted the pod (node pressure or drain)"
    not_ready = [s.at for s in signals if s.kind is SignalKind.NODE_NOT_READY and s.at]
    when = min(not_ready) if not_ready else latest(signals)
    stamp = f" at {when:%Y-%m-%d %H:%M:%SZ}" if when else ""
    return Finding(
        category=Category.NODE_FAILURE,
        at=latest(signals),
        headline=f"{what} {kind}{stamp} while the workload ran.",
        evidence=(*cite_all(signals), *_node_lines(ev, node)),
        details={"node": node} if node else {},
    )
