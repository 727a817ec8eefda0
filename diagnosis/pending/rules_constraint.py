"""The Pending row for node constraints (P7): selector, affinity, taints, or a pool with no nodes.

Pure like the other rows. Tolerations the API did not return are unknown, never "none": then
a taint on every Ready node is a question (`unread_tolerations`), and the scheduler's own fit
text, when it says why the nodes were ruled out, decides over any taint inference.
"""

from __future__ import annotations

import re

from diagnosis.pending.evidence import PendingEvidence
from diagnosis.pending.figures import PoolFigures
from diagnosis.pending.texts import FitPart, Saying
from diagnosis.pending.verdict import PendingReason, Verdict, in_pool, verdict
from diagnosis.report import EvidenceLine
from diagnosis.runai.models import Node

__all__ = ["node_constraint", "unread_tolerations"]

R = PendingReason
_BLOCKING_EFFECTS = frozenset({"NoSchedule", "NoExecute"})
_NO_CAPACITY_PHASES = frozenset({"empty", "unschedulable"})
_TAINT = re.compile(r"untolerated taint", re.IGNORECASE)
_PLACEMENT_RULES = re.compile(r"affinity|node selector", re.IGNORECASE)


def _fit_text(ev: PendingEvidence, fig: PoolFigures) -> bool:
    """Whether the scheduler's own fit text for this pool says why its nodes were ruled out."""
    return any(s.fit for s in ev.saying(*Saying, pool=fig.pool))


def _untolerated(ev: PendingEvidence, fig: PoolFigures) -> tuple[str | None, bool]:
    """A blocking taint every Ready node of the pool has that the pods may not tolerate.

    Returns the taint (None: some Ready node has none the pods fail to tolerate) and whether
    the pods' tolerations were read: a pod the API returned no tolerations for tolerates an
    unknown set, so its taint is a question, never a finding.
    """
    nodes = ev.pool_nodes.get(fig.pool or "", ())
    ready = [n for n in nodes if (n.status or "").lower() == "ready"]
    pods = ev.pods or ()
    if not ready or not pods:
        return None, True
    read = [p.tolerations for p in pods if p.tolerations is not None]
    known = len(read) == len(pods)

    def blocking(node: Node) -> list[str]:
        return [
            f"{t.key}={t.value or ''}:{t.effect}"
            for t in node.taints
            if t.effect in _BLOCKING_EFFECTS
            and not any(x.tolerates(t) for tolerations in read for x in tolerations)
        ]

    found = [blocking(n) for n in ready]
    return (found[0][0] if all(found) else None), known


def unread_tolerations(ev: PendingEvidence, fig: PoolFigures) -> str | None:
    """What would decide P7 by taints, when every Ready node is tainted and tolerations unread.

    Nothing when the scheduler's own fit text for the pool says why its nodes were ruled out.
    """
    taint, known = _untolerated(ev, fig)
    if taint is None or known or _fit_text(ev, fig):
        return None
    return (
        f"whether its pods tolerate taint {taint}, which every Ready node{in_pool(fig)} has "
        "(the API returned no tolerations for its pods)"
    )


def node_constraint(ev: PendingEvidence, fig: PoolFigures) -> Verdict | None:
    """P7: selector, affinity or taints rule out every node of the pool (waiting never helps)."""
    said = [s for s in ev.saying(Saying.FIT, pool=fig.pool) if s.fit == {FitPart.CONSTRAINT}]
    if said:
        found = verdict(
            R.NODE_CONSTRAINT_MISMATCH,
            fig,
            f"No node{in_pool(fig)} matches its node selector, affinity or tolerations.",
            said[0],
        )
        return found.model_copy(update={"actions": _constraint_actions(said[0].text)})
    pool = next((p for p in ev.node_pools or () if p.name == fig.pool), None)
    if pool is not None and (pool.phase or "").lower() in _NO_CAPACITY_PHASES:
        text = f"Node pool {pool.name}: phase {pool.phase}"
        text += f" ({pool.phase_message})" if pool.phase_message else ""
        found = verdict(
            R.NODE_CONSTRAINT_MISMATCH,
            fig,
            f"Node pool {pool.name} is {pool.phase}: no node there can take work.",
            lines=(EvidenceLine(text=text, source="get_nodepools"),),
        )
        empty = (
            f"Ask for another node pool ({pool.name} has no node that can take work), or ask "
            "an administrator whether it should have nodes."
        )
        return found.model_copy(update={"actions": (empty,)})
    taint, known = _untolerated(ev, fig)
    if taint is None or not known or _fit_text(ev, fig):
        return None  # tolerations unread are unknown; the scheduler's own fit text decides
    line = EvidenceLine(
        text=f"Taint {taint} on every Ready node; pod tolerations do not cover it",
        source="list_nodes, get_workload_pods",
    )
    found = verdict(
        R.NODE_CONSTRAINT_MISMATCH,
        fig,
        f"Every Ready node{in_pool(fig)} has taint {taint}, which its pods do not tolerate.",
        lines=(line,),
    )
    tolerate = f"Add a toleration for taint {taint} to the workload, or use another node pool."
    return found.model_copy(update={"actions": (tolerate,)})


def _constraint_actions(text: str) -> tuple[str, ...]:
    """What to change for the constraints a fit text blames: tolerations only for a taint."""
    taint, placement = _TAINT.search(text) is not None, _PLACEMENT_RULES.search(text) is not None
    if taint and not placement:
        return ("Add the toleration the nodes' taint needs, or use another node pool.",)
    if placement and not taint:
        return ("Change the node pool, node type, node selector or affinity.",)
    return ()  # both, or neither named plainly: the row's advice covers every constraint
