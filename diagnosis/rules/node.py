"""NODE_FAILURE: the node under the pod went NotReady, was lost, drained or under pressure.

A drain is a cordon (`spec.unschedulable`, the `node.kubernetes.io/unschedulable` taint or a
`NodeNotSchedulable` event) together with the pod being killed or evicted; a cordon alone
terminates nothing and is not a verdict. A taint-manager eviction follows an unreachable or
not-ready node. A kill from outside (exit 137/143) is explained by any of these.

One documented exception to the skill's recovery owner (Infrastructure/SRE): a memory-pressure
eviction of a container using more than it requested, on a node that shows no problem of its
own, is the user's to fix (the request); owner and advice both say so, and both bring SRE back
when the node does show a problem (NotReady, a cordon, a node-class Xid, not Ready now).
"""

from __future__ import annotations

import re
from datetime import datetime

from diagnosis.evidence import Evidence, Signal
from diagnosis.lexicon import SignalKind
from diagnosis.moments import utc_text
from diagnosis.redact import quote
from diagnosis.report import Category, EvidenceLine
from diagnosis.rules.base import CategoryRow, Details, Finding, NodeCause, cite_all, latest
from diagnosis.xid import XidPoints, xid_in

__all__ = ["ROW", "node_failure"]

_KINDS = (SignalKind.NODE_NOT_READY, SignalKind.NODE_EVICTION)
_KILL_EXITS = frozenset({137, 143})
_NODE_DETAIL = frozenset({*_KINDS, SignalKind.NODE_CORDONED})  # signals whose detail is a node
_TAINT_MANAGER = frozenset({"taintmanagereviction", "deletionbytaintmanager"})
#: The kubelet's eviction message for a container using more memory than it requested, in
#: its current ("which exceeds its request of") and older ("request is") wording.
_OVER_REQUEST = re.compile(
    r"low on resource: memory\b.*?\bcontainer \"?([\w.-]+)\"? was using (\S+?),? "
    r"(?:which exceeds its request of|request is) ([^\s.,]+)",
    re.IGNORECASE,
)
_DRAIN = re.compile(r"\bdrain(?:ed|ing)?\b|EvictionByEvictionAPI|Eviction API", re.IGNORECASE)
_TAINT_MANAGER_TEXT = re.compile(r"\bTaint manager: deleting\b|\bTaintManagerEviction\b")
_TAINT = re.compile(
    r"TaintManagerEviction|node\.kubernetes\.io/(unreachable|not-ready)", re.IGNORECASE
)


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
    reasons = {(s.reason or "").lower() for s in signals}
    texts = [f"{s.reason or ''} {s.text}" for s in signals]
    if reasons & _TAINT_MANAGER:
        return NodeCause.TAINT_EVICTION
    if any(s.kind is SignalKind.NODE_NOT_READY for s in signals):
        return NodeCause.NOT_READY
    if any(_TAINT.search(t) for t in texts):
        return NodeCause.TAINT_EVICTION
    if any(s.kind is SignalKind.NODE_CORDONED for s in signals):
        return NodeCause.DRAIN
    if any(_DRAIN.search(t) for t in texts):
        return NodeCause.DRAIN
    return NodeCause.PRESSURE_EVICTION


def _what(cause: NodeCause, signals: list[Signal]) -> str:
    if cause is NodeCause.DRAIN and any(s.kind is SignalKind.NODE_CORDONED for s in signals):
        return "was drained (cordoned, and the pod evicted or killed)"
    return _WHAT[cause]


_WHAT = {
    NodeCause.NOT_READY: "went NotReady or was lost",
    NodeCause.TAINT_EVICTION: "became unreachable or not ready, and the taint manager "
    "evicted the pod",
    NodeCause.DRAIN: "was drained (the pod was evicted through the Eviction API)",
    NodeCause.PRESSURE_EVICTION: "evicted the pod (node pressure or drain)",
}


def _at(moment: datetime | None) -> str:
    return f" at {utc_text(moment)}" if moment else ""


def _taint_eviction(signal: Signal) -> bool:
    """The taint manager deleting the pod (its event or the pod's condition), not the node."""
    return (signal.reason or "").lower() in _TAINT_MANAGER or bool(
        _TAINT_MANAGER_TEXT.search(signal.text)
    )


def _hardware_xids(ev: Evidence) -> list[Signal]:
    """GPU Xids that point to the node (`diagnosis.xid`): cited with the node's failure."""
    return [
        s
        for s in ev.of(SignalKind.GPU_XID)
        if (xid := xid_in(s.text)) is not None and xid.points is XidPoints.NODE
    ]


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
    cause = _cause(signals)
    evictions = [s.at for s in signals if _taint_eviction(s) and s.at]
    not_ready = [
        s.at
        for s in signals
        if s.kind is SignalKind.NODE_NOT_READY and s.at and not _taint_eviction(s)
    ]
    cordoned = [s.at for s in drain if s.kind is SignalKind.NODE_CORDONED and s.at]
    when = min(not_ready) if not_ready else min(cordoned) if cordoned else latest(signals)
    stamp = _at(when)
    # The kill from outside it explains, as its exit code, next to what killed the pod: the
    # kill is cited in the evidence, and line one stays short.
    code = f" (exit code {kills[-1].exit_code})" if kills else ""
    if cause is NodeCause.TAINT_EVICTION:  # each event at its own time: down, then evicted
        down = _at(min(not_ready)) if not_ready else ""
        evicted = _at(min(evictions)) if evictions else _at(latest(signals))
        headline = (
            f"{what} became unreachable or not ready{down} and the taint manager evicted the "
            f"pod{evicted}{code}."
        )
    else:
        headline = f"{what} {_what(cause, signals)}{stamp} while the workload ran{code}."
    over = next((m for s in signals if (m := _OVER_REQUEST.search(s.text))), None)
    container = None
    if over is not None and cause is NodeCause.PRESSURE_EVICTION:
        container = over.group(1)
        headline = (
            f"{what} ran short of memory{stamp} and evicted the pod{code}: container "
            f"{container} was using {over.group(2)}, more than its request of {over.group(3)}."
        )
    return Finding(
        category=Category.NODE_FAILURE,
        at=latest(signals),
        headline=headline,
        evidence=(
            *cite_all(signals),
            *cite_all(k for k in kills[-1:] if k not in signals),
            *cite_all(_hardware_xids(ev)),
        ),
        context=tuple(_node_lines(ev, node)),
        details=Details(
            node=node,
            node_cause=cause,
            container=container,
            over_request=container is not None,
            node_trouble=_node_trouble(ev, node),
        ),
    )


def _node_trouble(ev: Evidence, node: str | None) -> bool:
    """Whether the node itself shows a problem, not only the pod it evicted.

    NotReady, a cordon, a node-class Xid, or the node not Ready as read now; a memory-pressure
    eviction of a pod using more than it requested is the pod's.
    """
    if ev.of(SignalKind.NODE_NOT_READY, SignalKind.NODE_CORDONED) or _hardware_xids(ev):
        return True
    return any(n.name == node and (n.status or "").lower() != "ready" for n in ev.nodes or ())


def _advise(ev: Evidence, finding: Finding) -> list[str]:
    """The skill's retry or resubmission by restart policy, after the request fix if it applies.

    After an eviction of a pod using more memory than it requested, the retry or resubmission
    is with the higher request, and SRE is sent to the node only if the node shows a problem.
    """
    advice = []
    over = finding.details.over_request
    if over:
        who = f"container {finding.details.container}"
        advice.append(
            f"Raise the CPU-memory request of {who} to what it really uses, or set request = "
            "limit (Guaranteed QoS): the kubelet evicts first the pods that use more than "
            "they requested when a node runs short of memory.",
        )
    sre = (
        "; ask SRE to check the node's health before it takes more work"
        if not over or finding.details.node_trouble
        else ""
    )
    higher = " with the higher memory request" if over else ""
    restart = ev.spec.spec.restart_policy if ev.spec and ev.spec.spec else None
    if restart is None:  # a policy not read is a gap, not "not OnFailure"
        advice.append(
            f"Resubmit the workload{higher}, or retry it if its restart policy is OnFailure "
            f"(the policy could not be read){sre}."
        )
    elif restart.lower() == "onfailure" and not over:
        advice.append(
            "Retry on a healthy node: the restart policy is OnFailure, so the "
            "workload can be retried; ask SRE to check the node."
        )
    elif restart.lower() == "onfailure":
        advice.append(f"Retry it{higher}: the restart policy is OnFailure{sre}.")
    else:
        advice.append(f"Resubmit the workload{higher} (restart policy is not OnFailure){sre}.")
    return advice


def _owner(finding: Finding) -> str | None:
    """Who fixes an over-request eviction: the user, and SRE only as the advice has it."""
    if not finding.details.over_request:
        return None
    if finding.details.node_trouble:
        return "User: memory request; infrastructure/SRE: the node's health"
    return "User: memory request (an exception: the pod's over-request, not the node)"


ROW = CategoryRow(
    category=Category.NODE_FAILURE,
    rule=node_failure,
    owner="Infrastructure/SRE",
    advise=_advise,
    owner_for=_owner,
    blast_radius=True,
)
