"""The Pending rows decided by what the scheduler says or the cluster shows (P1-P3, P8-P10, P13).

Each rule is pure: it reads `PendingEvidence` and one node pool's figures, and returns a
`Verdict` or None. The order they are tried in is the precedence table (`table.py`), not here.
"""

from __future__ import annotations

from diagnosis.moments import restated
from diagnosis.pending.evidence import PendingEvidence
from diagnosis.pending.figures import PoolFigures, gpu_count
from diagnosis.pending.texts import Saying
from diagnosis.pending.verdict import PendingReason, Verdict, in_pool, verdict
from diagnosis.report import EvidenceLine

__all__ = [
    "gang",
    "gpu_kind",
    "held_not_ready",
    "not_waiting",
    "preemption_delayed",
    "queue_missing",
    "request_too_big",
]

R = PendingReason
#: What a scheduler says once it has tried to place the pods (so the pods exist).
_PLACEMENT = frozenset(
    {
        Saying.FIT,
        Saying.GANG,
        Saying.LARGEST_NODE,
        Saying.NO_GPU_NODE,
        Saying.GPU_KIND,
        Saying.PVC,
        Saying.OVER_LIMIT,
        Saying.NON_PREEMPTIBLE_OVER_QUOTA,
        Saying.PREEMPTION_DELAY,
    }
)


def required_pods(ev: PendingEvidence) -> int:
    """How many pods must exist before it can be placed (`min` for a gang, else `number`)."""
    wanted = ev.workload.requested_pods
    return max(1, (wanted.min or wanted.number or 1) if wanted else 1)


def not_waiting(ev: PendingEvidence, fig: PoolFigures) -> Verdict | None:
    """P1: its pods are already placed (or it is Initializing): it is starting, not queued."""
    phase = (ev.workload.phase or "").lower()
    pods = ev.pods or ()
    placed = [p for p in pods if p.node_name]
    everyone = bool(pods) and len(placed) == len(pods) and len(placed) >= required_pods(ev)
    if phase != "initializing" and not everyone:
        return None
    nodes = ", ".join(sorted({p.node_name for p in placed if p.node_name})) or "its nodes"
    headline = (
        f"It is not waiting for the scheduler: {len(placed)} of {len(pods)} pods are placed on "
        f"{nodes} and starting (phase {ev.workload.phase})."
        if pods
        else f"It is not waiting for the scheduler: the phase is {ev.workload.phase}."
    )
    lines = tuple(
        EvidenceLine(text=f"Pod {p.name} placed on node {p.node_name}", source="get_workload_pods")
        for p in placed[:3]
    )
    return verdict(R.NOT_WAITING_ON_SCHEDULER, fig, headline, lines=lines)


def queue_missing(ev: PendingEvidence, fig: PoolFigures) -> Verdict | None:
    """P2: its queue does not exist, or no PodGroup could be built: never scheduled."""
    said = ev.saying(Saying.QUEUE_MISSING, Saying.GROUPER_FAILED)
    if said:
        queue = said[0].values.get("queue")
        what = (
            f"its scheduling queue {queue} does not exist"
            if queue
            else (
                "its scheduling queue does not exist"
                if said[0].saying is Saying.QUEUE_MISSING
                else "the pod grouper could not build its PodGroup"
            )
        )
        return verdict(R.QUEUE_MISSING, fig, f"Never scheduled: {what}.", said[0])
    if ev.queue_missing:
        line = EvidenceLine(text=f"Queue {ev.queue_missing}: not found", source="kubectl get queue")
        return verdict(
            R.QUEUE_MISSING,
            fig,
            f"Never scheduled: its PodGroup names queue {ev.queue_missing}, which does not exist.",
            lines=(line,),
        )
    return None


def held_not_ready(ev: PendingEvidence, fig: PoolFigures) -> Verdict | None:
    """P3: fewer pods exist than it needs (scheduling gates, controller lag)."""
    said = ev.saying(Saying.NOT_READY, Saying.GATED)
    if said:
        v = said[0].values
        if {"required", "exist", "gated"} <= v.keys():
            why = f"it needs {v['required']} pods, {v['exist']} exist and {v['gated']} are gated"
        else:
            why = "its pods are held by scheduling gates"
        return verdict(R.HELD_NOT_READY, fig, f"Held before scheduling: {why}.", said[0])
    pods, required = ev.pods, required_pods(ev)
    tried = any(s.saying in _PLACEMENT for s in ev.said)
    if pods is None or tried or (ev.workload.running_pods or 0) > 0 or len(pods) >= required:
        return None
    line = EvidenceLine(
        text=f"{len(pods)} pods returned, {required} required", source="get_workload_pods"
    )
    return verdict(
        R.HELD_NOT_READY,
        fig,
        f"Held before scheduling: it needs {required} pods and {len(pods)} exist; the scheduler "
        "has not tried to place it.",
        lines=(line,),
    )


def request_too_big(ev: PendingEvidence, fig: PoolFigures) -> Verdict | None:
    """P8: one pod asks for more GPUs than the largest node of the pool has."""
    said = ev.saying(Saying.LARGEST_NODE, Saying.NO_GPU_NODE, pool=fig.pool)
    if said:
        largest = said[0].values.get("largest")
        plural = "" if largest == "1" else "s"
        size = f"the largest node has {largest} GPU{plural}" if largest else "no node has GPUs"
        return verdict(
            R.REQUEST_EXCEEDS_LARGEST_NODE,
            fig,
            f"One pod asks for {gpu_count(fig.per_pod)}, but {size}{in_pool(fig)}.",
            said[0],
        )
    nodes = [
        n for n in ev.pool_nodes.get(fig.pool or "", ()) if (n.status or "").lower() == "ready"
    ]
    counts = [n.gpu_info.gpu_count if n.gpu_info else None for n in nodes]
    if not nodes or None in counts or fig.per_pod is None:
        return None
    largest_count = max(c or 0 for c in counts)
    if fig.per_pod <= largest_count:
        return None
    line = EvidenceLine(
        text=f"{len(nodes)} Ready node{'' if len(nodes) == 1 else 's'}{in_pool(fig)}, largest "
        f"{gpu_count(largest_count)}",
        source="list_nodes",
    )
    return verdict(
        R.REQUEST_EXCEEDS_LARGEST_NODE,
        fig,
        f"One pod asks for {gpu_count(fig.per_pod)}, but the largest Ready node{in_pool(fig)} has "
        f"{largest_count}.",
        lines=(line,),
    )


def gpu_kind(ev: PendingEvidence, fig: PoolFigures) -> Verdict | None:
    """P9: the GPU type, MIG profile or fraction it asks for is not offered by the pool."""
    said = ev.saying(Saying.GPU_KIND, pool=fig.pool)
    if not said:
        return None
    return verdict(
        R.GPU_TYPE_OR_FRACTION_UNAVAILABLE,
        fig,
        f"No node{in_pool(fig)} offers the kind of GPU it asks for (type, MIG profile or "
        "fraction).",
        said[0],
    )


def gang(ev: PendingEvidence, fig: PoolFigures) -> Verdict | None:
    """P10: room was found for fewer pods than the gang's minimum."""
    said = ev.saying(Saying.GANG, pool=fig.pool)
    if not said:
        return None
    v = said[0].values
    return verdict(
        R.GANG_MIN_MEMBER_NOT_MET,
        fig,
        f"Gang minimum not met{in_pool(fig)}: room for {v.get('found', '?')} pods, "
        f"{v.get('required', '?')} must start together.",
        said[0],
    )


def preemption_delayed(ev: PendingEvidence, fig: PoolFigures) -> Verdict | None:
    """P13: it is inside its preemption-delay window and may not evict anything yet."""
    said = ev.saying(Saying.PREEMPTION_DELAY, pool=fig.pool)
    if not said:
        return None
    until = restated(said[0].values.get("until", "?"))
    return verdict(
        R.PREEMPTION_DELAYED,
        fig,
        f"Inside its preemption-delay window ({said[0].values.get('delay', '?')}): it may not "
        f"evict other workloads before {until}.",
        said[0],
    )
