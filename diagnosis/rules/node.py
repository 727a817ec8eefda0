"""NODE_FAILURE: the node under the pod went NotReady, was lost, drained or under pressure."""

from __future__ import annotations

import re

from diagnosis.evidence import Evidence, Signal
from diagnosis.lexicon import SignalKind
from diagnosis.redact import quote
from diagnosis.report import Category, EvidenceLine
from diagnosis.rules.base import CategoryRow, Details, Finding, NodeCause, cite_all, latest

__all__ = ["ROW", "node_failure"]

_KINDS = (SignalKind.NODE_NOT_READY, SignalKind.NODE_EVICTION)
#: The kubelet's eviction message for a container using more memory than it requested, in
#: its current ("which exceeds its request of") and older ("request is") wording.
_OVER_REQUEST = re.compile(
    r"low on resource: memory\b.*?\bcontainer \"?([\w.-]+)\"? was using (\S+?),? "
    r"(?:which exceeds its request of|request is) ([^\s.,]+)",
    re.IGNORECASE,
)
_DRAIN = re.compile(r"\bdrain|EvictionByEvictionAPI|Eviction API", re.IGNORECASE)
_TAINT = re.compile(
    r"TaintManagerEviction|node\.kubernetes\.io/(unreachable|not-ready)", re.IGNORECASE
)


def _node_lines(ev: Evidence, failing: str | None) -> list[EvidenceLine]:
    lines = []
    for node in ev.nodes or ():
        if node.name != failing and (node.status or "").lower() == "ready":
            continue  # a healthy bystander says nothing about this failure
        conditions = "; ".join(
            quote(f"{c.type}={c.reason or '?'}: {c.message or ''}", 120) for c in node.conditions
        )
        taints = ", ".join(f"{t.key}:{t.effect}" for t in node.taints)
        text = f"Node {node.name} status now: {node.status or 'unknown'}"
        text += f"; conditions: {conditions}" if conditions else ""
        text += f"; taints: {taints}" if taints else ""
        lines.append(EvidenceLine(text=text, source="list_nodes"))
    return lines


def _cause(signals: list[Signal]) -> NodeCause:
    """What happened to the node, from the strongest signal present."""
    texts = [f"{s.reason or ''} {s.text}" for s in signals]
    if any(_TAINT.search(t) for t in texts):
        return NodeCause.TAINT_EVICTION
    if any(s.kind is SignalKind.NODE_NOT_READY for s in signals):
        return NodeCause.NOT_READY
    if any(_DRAIN.search(t) for t in texts):
        return NodeCause.DRAIN
    return NodeCause.PRESSURE_EVICTION


_WHAT = {
    NodeCause.NOT_READY: "went NotReady or was lost",
    NodeCause.TAINT_EVICTION: "became unreachable or NotReady, and its pods were evicted",
    NodeCause.DRAIN: "was drained, which evicted the pod",
    NodeCause.PRESSURE_EVICTION: "evicted the pod (node pressure or drain)",
}


def node_failure(ev: Evidence) -> Finding | None:
    """A NotReady/unreachable/lost node, a drain, or a node-pressure eviction (not preemption)."""
    signals = ev.of(*_KINDS)
    if not signals:
        return None
    node = next((s.detail for s in reversed(signals) if s.detail), None)
    if node is None:
        node = next((p.node_name for p in ev.pods or () if p.node_name), None)
    what = f"Node {node}" if node else "The node running the workload"
    cause = _cause(signals)
    not_ready = [s.at for s in signals if s.kind is SignalKind.NODE_NOT_READY and s.at]
    when = min(not_ready) if not_ready else latest(signals)
    stamp = f" at {when:%Y-%m-%d %H:%M:%SZ}" if when else ""
    headline = f"{what} {_WHAT[cause]}{stamp} while the workload ran."
    over = next((m for s in signals if (m := _OVER_REQUEST.search(s.text))), None)
    container = None
    if over is not None and cause is NodeCause.PRESSURE_EVICTION:
        container = over.group(1)
        headline = (
            f"{what} ran short of memory{stamp} and evicted the pod: container {container} "
            f"was using {over.group(2)}, more than its request of {over.group(3)}."
        )
    return Finding(
        category=Category.NODE_FAILURE,
        at=latest(signals),
        headline=headline,
        evidence=(*cite_all(signals), *_node_lines(ev, node)),
        details=Details(
            node=node, node_cause=cause, container=container, over_request=container is not None
        ),
    )


def _advise(ev: Evidence, finding: Finding) -> list[str]:
    if finding.details.over_request:
        who = f"container {finding.details.container}"
        return [
            f"Raise the CPU-memory request of {who} to what it really uses, or set request = "
            "limit (Guaranteed QoS): the kubelet evicts first the pods that use more than "
            "they requested when a node runs short of memory.",
        ]
    restart = (ev.spec.spec.restart_policy if ev.spec and ev.spec.spec else None) or ""
    if restart.lower() == "onfailure":
        return [
            "Retry on a healthy node: the restart policy is OnFailure, so the "
            "workload can be retried; ask SRE to check the node."
        ]
    return [
        "Resubmit the workload (restart policy is not OnFailure); ask SRE to "
        "check the node's health before it takes more work."
    ]


def _owner(finding: Finding) -> str | None:
    if finding.details.over_request:
        return "User: memory request; infrastructure/SRE: node memory"
    return None


ROW = CategoryRow(
    category=Category.NODE_FAILURE,
    rule=node_failure,
    owner="Infrastructure/SRE",
    advise=_advise,
    owner_for=_owner,
)
