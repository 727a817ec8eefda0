"""The Pending precedence table: one row per reason, first match wins, UNKNOWN last.

Each row owns its rule, who acts on it, whether waiting fixes it, and what to do. The order is
the reference's fixed precedence: not waiting on the scheduler at all; nothing can be placed
before a queue and all pods exist; typed verdicts (the scheduler rejects those jobs before it
tries any node, the limit before the quota); hard constraints waiting never fixes; the gang's
explicit message; then the typed delay (which replaces the derived split when present); and
last the two derived rows. Node pools are decided one by one; the headline is the verdict of
highest precedence across the requested pools, the others are listed under it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from diagnosis.pending import rules_capacity as capacity
from diagnosis.pending import rules_constraint as constraint
from diagnosis.pending import rules_quota as quota
from diagnosis.pending import rules_storage as storage
from diagnosis.pending import rules_typed as typed
from diagnosis.pending.evidence import PendingEvidence
from diagnosis.pending.figures import GPUS, PROJECT, PoolFigures, gpu_count, gpus, pool_figures
from diagnosis.pending.verdict import Doubt, PendingReason, Verdict, cannot_tell

__all__ = ["PRECEDENCE", "PendingRow", "advice", "advice_across", "decide", "owner", "row"]

R = PendingReason
Rule = Callable[[PendingEvidence, PoolFigures], Verdict | None]


@dataclass(frozen=True)
class PendingRow:
    """One reason: its rule, who acts, what waiting does, and the next actions.

    `never`: waiting never fixes it (a hard constraint). `doubted`: the whole advice instead,
    when what was read now disagrees with the statement the verdict rests on (`Doubt`), and
    `doubted_owner` who acts then, where that differs from `owner` (the two always agree).
    """

    reason: PendingReason
    rule: Rule
    owner: str
    waiting: str
    actions: tuple[str, ...]
    never: bool = False
    doubted: Mapping[Doubt, tuple[str, ...]] = field(default_factory=dict)
    doubted_owner: Mapping[Doubt, str] = field(default_factory=dict)


PRECEDENCE: tuple[PendingRow, ...] = (
    PendingRow(
        R.NOT_WAITING_ON_SCHEDULER,
        typed.not_waiting,
        "User — the workload's start-up (image, volumes, init containers)",
        "Waiting fixes it if start-up succeeds; it is not queued.",
        (
            "If the pods fail to start, ask again: the failure diagnosis reads the pull, mount or "
            "init error.",
        ),
    ),
    PendingRow(
        R.QUEUE_MISSING,
        typed.queue_missing,
        "Administrator — the project's scheduling queue",
        "Waiting will never fix this: the scheduler does not consider it without its queue.",
        (
            "Ask a Run:ai administrator to check the project's scheduling queue for this node pool "
            "and the pods' queue label.",
        ),
        never=True,
    ),
    PendingRow(
        R.HELD_NOT_READY,
        typed.held_not_ready,
        "User — scheduling gates, or the controller that creates its pods",
        "Waiting fixes it only once every pod it needs exists and is released.",
        ("Check what holds its pods back: scheduling gates, or the controller that creates them.",),
    ),
    PendingRow(
        R.OVER_LIMIT,
        quota.over_limit,
        "User; administrator — the limit",
        "Waiting fixes it only when the {level}'s own workloads in this pool release {resource}.",
        (
            "Lower the request, or wait for the {level}'s own workloads to finish.",
            "Or ask an administrator to raise the {level}'s {limit} for this node pool.",
        ),
    ),
    PendingRow(
        R.NON_PREEMPTIBLE_OVER_QUOTA,
        quota.over_quota_non_preemptible,
        "User; administrator — the deserved quota",
        "Waiting fixes it only when the {level}'s own non-preemptible workloads finish.",
        (
            "Make it preemptible (a priority below 100, or preemptibility: preemptible) to use "
            "over-quota GPUs; it may then be preempted.",
            "Or ask for more deserved quota for the {level}: non-preemptible work runs only "
            "inside it.",
        ),
        doubted={
            Doubt.PREEMPTIBLE: (
                "Whether waiting helps depends on which is right: the scheduler acts on its "
                "PodGroup's preemptibility and priority class, not on the workload's fields.",
                "Check them (`kubectl get podgroups -n {namespace} -o yaml`: spec.preemptibility, "
                "spec.priorityClassName); if the PodGroup is non-preemptible, resubmit it as "
                "preemptible or ask for more deserved quota for the {level}.",
            ),
            Doubt.QUOTA_NOW_COVERS: (
                "Waiting may fix it: the {level}'s figures now leave room for it, and the "
                "scheduler re-evaluates it every cycle; its statement may predate a quota change.",
                "Ask again in a few minutes. If it is still Pending with this statement, ask an "
                "administrator to compare the {level}'s scheduling queue (`kubectl get queues`) "
                "with its quota in Run:ai.",
            ),
        },
        doubted_owner={
            Doubt.QUOTA_NOW_COVERS: "Nobody yet — the scheduler re-evaluates it; administrator "
            "if the statement persists (the scheduling queue's quota)",
        },
    ),
    PendingRow(
        R.PVC_UNBOUND,
        storage.pvc_unbound,
        "Storage administrator",
        "Waiting will never fix this unless the storage is provisioned.",
        (
            "Check the claim, its storage class and the volumes' node affinity with the storage "
            "administrator.",
        ),
        never=True,
    ),
    PendingRow(
        R.NODE_CONSTRAINT_MISMATCH,
        constraint.node_constraint,
        "User — node pool, node type, selector or tolerations",
        "Waiting will never fix this: no node of the pool meets the constraint.",
        ("Change the node pool, node type or selector, or add the toleration it needs.",),
        never=True,
    ),
    PendingRow(
        R.REQUEST_EXCEEDS_LARGEST_NODE,
        typed.request_too_big,
        "User — the request per pod",
        "Waiting will never fix this: no node of the pool is big enough.",
        (
            "Ask for at most one node's GPUs per pod, make it a distributed workload, or use a "
            "node pool with larger nodes.",
        ),
        never=True,
    ),
    PendingRow(
        R.GPU_TYPE_OR_FRACTION_UNAVAILABLE,
        typed.gpu_kind,
        "User; administrator — the pool's GPU configuration",
        "Waiting will never fix this: the pool does not offer that kind of GPU.",
        ("Ask for a GPU type, MIG profile or fraction the pool offers, or use another node pool.",),
        never=True,
    ),
    PendingRow(
        R.GANG_MIN_MEMBER_NOT_MET,
        typed.gang,
        "User — the gang's size",
        "Waiting fixes it only when room for the whole gang frees at once.",
        ("Lower the minimum number of pods that must start together, or the GPUs per pod.",),
    ),
    PendingRow(
        R.PREEMPTION_DELAYED,
        typed.preemption_delayed,
        "Nobody — it is waiting by design",
        "Waiting fixes it: after the delay it may evict lower-priority workloads.",
        (),
    ),
    PendingRow(
        R.PROJECT_OVER_QUOTA,
        capacity.project_over_quota,
        "User; administrator — quota and over-quota weight",
        "Waiting fixes it when over-quota GPUs free up (they are shared by weight and rank).",
        (
            "Or ask for more deserved quota (or a higher over-quota weight) for the {level} in "
            "this node pool, or request fewer GPUs.",
        ),
    ),
    PendingRow(
        R.NODE_POOL_FULL,
        capacity.node_pool_full,
        "Nobody yet — the scheduler should reclaim; administrator if it lasts",
        "Waiting should fix it while the project and its department are within their quotas: the "
        "scheduler reclaims GPUs others use over their quota, and preempts the project's own "
        "lower-priority workloads where it must.",
        (
            "If it lasts, tell an administrator: the pool may be over-subscribed (deserved quotas "
            "add up to more than its GPUs), or no single node has room.",
        ),
    ),
    PendingRow(
        R.UNKNOWN,
        capacity.unknown,
        "Undetermined",
        "Whether waiting helps cannot be told.",
        (),
    ),
)
_BY_REASON = {r.reason: r for r in PRECEDENCE}
#: The row that taints decide; the rows after it could be wrong when tolerations are unread.
_TAINT_ROW = [r.reason for r in PRECEDENCE].index(R.NODE_CONSTRAINT_MISMATCH)
#: The derived rows, whose "waiting fixes it" a taint on every node would make wrong.
_DERIVED = frozenset({R.PROJECT_OVER_QUOTA, R.NODE_POOL_FULL})
#: What each resource's limit is called where an administrator sets it.
_LIMITS = {GPUS: 'GPU limit ("Max GPU device allocation")', "CPU cores": "CPU limit"}


def row(reason: PendingReason) -> PendingRow:
    """The table row of a reason."""
    return _BY_REASON[reason]


def owner(verdict: Verdict) -> str:
    """Who acts on the verdict: the row's owner, or its doubts' when every doubt names one.

    The owner line agrees with the advice: a statement the figures now contradict is not
    the user's or an administrator's to fix by more quota.
    """
    found = row(verdict.reason)
    owners = [found.doubted_owner[d] for d in verdict.doubts if d in found.doubted_owner]
    if owners and len(owners) == len(verdict.doubts):
        return owners[0]
    return found.owner


def advice(verdict: Verdict, *, namespace: str | None = None) -> list[str]:
    """The row's next actions, in the verdict's words: whose limit or quota, which resource.

    A doubted verdict gets the row's advice for its doubts instead: never an action the
    disagreement makes wrong (make preemptible what already reads preemptible); a verdict
    whose rule knows more than its row (which constraint, which claims) gets its own actions.
    A command names the workload's `namespace`, so it runs as written (a placeholder when
    unknown).
    """
    found = row(verdict.reason)
    words = {
        "level": verdict.level,
        "resource": verdict.resource,
        "limit": _LIMITS.get(verdict.resource, f"{verdict.resource} limit"),
        "namespace": namespace or "<namespace>",
    }
    doubted = [text for doubt in verdict.doubts for text in found.doubted.get(doubt, ())]
    texts = [text.format(**words) for text in doubted or [found.waiting, *found.actions]]
    if verdict.actions:  # the rule's own, in its words (never formatted)
        texts = [*(texts if doubted else texts[:1]), *verdict.actions]
    if Doubt.QUOTA_NOW_COVERS in verdict.doubts and (full := _pool_full(verdict)):
        texts.append(full)
    return list(dict.fromkeys(texts))


def _pool_full(verdict: Verdict) -> str | None:
    """What waits after a stale statement clears: a pool with too few free GPUs, reclaim."""
    fig = verdict.figures
    if fig is None or fig.pool is None or fig.free is None or fig.requested is None:
        return None
    if fig.free >= fig.requested:
        return None
    return (
        f"Node pool {fig.pool} has {gpus(fig.free)} of {gpu_count(fig.total)} free, fewer than "
        f"the {gpu_count(fig.requested)} it asks for: once the statement clears, it still waits "
        "until GPUs are freed, or reclaimed from workloads over their quota."
    )


def _lower(text: str) -> str:
    return text[:1].lower() + text[1:]


def advice_across(
    best: Verdict, others: list[Verdict], *, namespace: str | None = None
) -> list[str]:
    """The headline verdict's advice, its "never" said of its pool alone when it has others.

    The scheduler tries every node pool listed: waiting that never fixes the headline pool
    may still start it in another listed pool, and that pool's prospect is said next to it.
    """
    actions = advice(best, namespace=namespace)
    other = [v for v in others if v.pool is not None and not row(v.reason).never]
    if not row(best.reason).never or best.pool is None or not other:
        return actions
    there = [
        f"But it may also start in node pool {v.pool} ({v.reason.value}); there, "
        + _lower(advice(v, namespace=namespace)[0])
        for v in other
    ]
    return [f"In node pool {best.pool}, {_lower(actions[0])}", *there, *actions[1:]]


def _first(ev: PendingEvidence, fig: PoolFigures) -> tuple[int, Verdict]:
    for index, candidate in enumerate(PRECEDENCE):
        verdict = candidate.rule(ev, fig)
        if verdict is not None:
            return index, _unread(ev, fig, index, verdict)
    raise AssertionError("unreachable: the UNKNOWN row always answers")


def _unread(ev: PendingEvidence, fig: PoolFigures, index: int, verdict: Verdict) -> Verdict:
    """The verdict naming tolerations never read, when they could have put P7 above it.

    The derived split (P11/P12) says waiting fixes it; a taint every Ready node has would
    make that wrong, so with the tolerations unread it is UNKNOWN naming them (never a
    confident "waiting should fix it"). A row that holds whatever the taint keeps its verdict.
    """
    if index <= _TAINT_ROW:
        return verdict
    unread = constraint.unread_tolerations(ev, fig)
    if unread is None:
        return verdict
    if verdict.reason not in _DERIVED:
        return verdict.model_copy(update={"missing": (*verdict.missing, unread)})
    return verdict.model_copy(
        update={
            "reason": R.UNKNOWN,
            "headline": cannot_tell(fig, decided_by_gaps=True),
            "missing": (unread, *verdict.missing),
            "level": PROJECT,
        }
    )


def decide(ev: PendingEvidence) -> tuple[Verdict, list[Verdict]]:
    """The headline verdict (highest precedence across pools) and the other pools' verdicts."""
    pools: list[str | None] = [*ev.pools()] or [None]
    found = [_first(ev, pool_figures(ev, pool)) for pool in pools]
    ranked = sorted(range(len(found)), key=lambda i: (found[i][0], i))
    best = found[ranked[0]][1]
    others = [
        found[i][1]
        for i in ranked[1:]
        if (found[i][1].reason, found[i][1].pool) != (best.reason, best.pool)
        and found[i][1].pool is not None
    ]
    return best, others
