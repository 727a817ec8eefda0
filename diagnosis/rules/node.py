"""NODE_FAILURE: the node under the pod went NotReady, was lost, drained or under pressure.

A drain is a cordon (`spec.unschedulable`, the `node.kubernetes.io/unschedulable` taint or a
`NodeNotSchedulable` event) together with the pod being killed or evicted; a cordon alone
terminates nothing and is not a verdict. A taint-manager eviction follows an unreachable or
not-ready node. A kill from outside (exit 137/143) is explained by any of these.
"""

from __future__ import annotations

from diagnosis.evidence import Evidence, Signal
from diagnosis.lexicon import SignalKind
from diagnosis.redact import Redactor, shorten
from diagnosis.report import Category, EvidenceLine
from diagnosis.rules.base import Finding, cite_all, latest

__all__ = ["node_failure"]

_KINDS = (SignalKind.NODE_NOT_READY, SignalKind.NODE_EVICTION)
_KILL_EXITS = frozenset({137, 143})
_NODE_DETAIL = frozenset({*_KINDS, SignalKind.NODE_CORDONED})  # signals whose detail is a node
_TAINT_MANAGER = frozenset({"taintmanagereviction", "deletionbytaintmanager"})


def _drain(ev: Evidence) -> list[Signal]:
    """A cordon with a kill or an eviction of the pod: the signals of a drain, else none."""
    cordons = ev.of(SignalKind.NODE_CORDONED)
    killed = [
        s
        for s in ev.of(SignalKind.KILLED, SignalKind.EXIT_CODE)
        if s.kind is SignalKind.KILLED or s.exit_code in _KILL_EXITS
    ]
    if not cordons or not (killed or ev.of(SignalKind.NODE_EVICTION)):
        return []
    return [*cordons, *killed]


def _what(signals: list[Signal]) -> str:
    reasons = {(s.reason or "").lower() for s in signals}
    kinds = {s.kind for s in signals}
    if reasons & _TAINT_MANAGER:
        return "became unreachable or not ready, and the taint manager evicted the pod"
    if SignalKind.NODE_NOT_READY in kinds:
        return "went NotReady or was lost"
    if SignalKind.NODE_CORDONED in kinds:
        return "was drained (cordoned, and the pod evicted or killed)"
    if "evictionbyevictionapi" in reasons:
        return "was drained (the pod was evicted through the Eviction API)"
    return "evicted the pod (node pressure or drain)"


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
    direct = ev.of(*_KINDS)
    drain = _drain(ev)
    if not direct and not drain:
        return None
    signals = sorted(
        {s.key or id(s): s for s in [*direct, *drain]}.values(),
        key=lambda s: (s.at is None, s.at or ev.now),
    )
    kills = [s for s in ev.of(SignalKind.EXIT_CODE) if s.exit_code in _KILL_EXITS]
    node = next((s.detail for s in reversed(signals) if s.detail and s.kind in _NODE_DETAIL), None)
    if node is None:
        node = next((p.node_name for p in ev.pods or () if p.node_name), None)
    what = f"Node {node}" if node else "The node running the workload"
    kind = _what(signals)
    not_ready = [s.at for s in signals if s.kind is SignalKind.NODE_NOT_READY and s.at]
    cordoned = [s.at for s in drain if s.kind is SignalKind.NODE_CORDONED and s.at]
    when = min(not_ready) if not_ready else min(cordoned) if cordoned else latest(signals)
    stamp = f" at {when:%Y-%m-%d %H:%M:%SZ}" if when else ""
    explained = ""
    if kills:
        code = kills[-1].exit_code
        explained = f" That explains the exit code {code} (killed from outside)."
    return Finding(
        category=Category.NODE_FAILURE,
        at=latest(signals),
        headline=f"{what} {kind}{stamp} while the workload ran.{explained}",
        evidence=(
            *cite_all(signals),
            *cite_all(k for k in kills[-1:] if k not in signals),
            *_node_lines(ev, node),
        ),
        details={"node": node} if node else {},
    )
