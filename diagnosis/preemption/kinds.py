"""The preemption table: which kind of eviction it was, first match wins, UNKNOWN last.

Each row reads the eviction records of the decisive eviction (annotations first, then texts).
Consistency is checked, not assumed: a priority preemption names a preemptor in the same
project with a strictly higher priority, and evicts only a preemptible victim (one whose
preemptibility is not known is no mismatch); a reclaim takes from another queue. A record
that contradicts itself or those rules means the mapping is wrong, so the kind is UNKNOWN and
the contradiction is stated. Whether the preemptor's priority is above the victim's is the
preemptor's to tell: an asker who may not read it gets the flags its records alone give
(`KindVerdict.flags_for`), and a neutral one when the kind turned on that comparison alone.
A policy stop or a node failure never gets here: the failure diagnosis keeps them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from diagnosis.preemption.evidence import Eviction, PreemptionEvidence, nearest
from diagnosis.preemption.party import describe
from diagnosis.preemption.texts import PreemptionKind

__all__ = ["KINDS", "UNSEEN_PRIORITY", "KindVerdict", "decide_kind"]

K = PreemptionKind


#: The priority contradiction, for an asker who may not read the preemptor: no comparison.
UNSEEN_PRIORITY = (
    "the eviction record says a priority preemption, which the named preemptor's workload "
    "does not bear out (its details are shown only to whoever may read it in Run:ai)"
)


@dataclass(frozen=True)
class KindVerdict:
    """The kind, the record that decided it, and any contradiction found on the way.

    `unseen_flags`: the contradictions stated to an asker who may not read the preemptor,
    when they differ from `flags` (None: the same).
    """

    kind: PreemptionKind
    eviction: Eviction | None = None
    flags: tuple[str, ...] = ()
    unseen_flags: tuple[str, ...] | None = None

    def flags_for(self, *, seen: bool) -> tuple[str, ...]:
        """The contradictions stated to whoever may read the preemptor (`seen`), or anyone else."""
        return self.flags if seen or self.unseen_flags is None else self.unseen_flags


Rule = Callable[[PreemptionEvidence, list[Eviction]], KindVerdict | None]


def _said(records: list[Eviction], kind: PreemptionKind) -> Eviction | None:
    """The newest record whose annotation, else text, says `kind`."""
    by_annotation = [e for e in records if e.action is kind]
    by_text = [e for e in records if e.said is not None and e.said.kind is kind]
    found = by_annotation or by_text
    return found[0] if found else None


def contradiction(_: PreemptionEvidence, records: list[Eviction]) -> KindVerdict | None:
    """Records of one eviction that disagree on its kind: the mapping cannot be trusted."""
    kinds = {e.action for e in records if e.action} | {e.said.kind for e in records if e.said}
    if len(kinds) < 2:  # noqa: PLR2004 - "more than one kind"
        return None
    named = " and ".join(sorted(k.value for k in kinds if k))
    return KindVerdict(K.UNKNOWN, records[0], (f"the eviction records disagree: {named}",))


def priority_preemption(ev: PreemptionEvidence, records: list[Eviction]) -> KindVerdict | None:
    """A higher-priority workload of the same project took a preemptible victim's place."""
    found = _said(records, K.PRIORITY_PREEMPTION)
    if found is None:
        return None
    flags: list[str] = []
    hidden: str | None = None  # the flag only the preemptor's workload gives
    namespace, _ = found.evictor()
    victim = ev.workload
    if namespace and victim.namespace and namespace != victim.namespace:
        flags.append(
            f"a priority preemption names a preemptor in namespace {namespace}, not the "
            f"victim's {victim.namespace} (priority preemption stays inside a project)"
        )
    theirs = ev.preemptor.priority if ev.preemptor else None
    if (
        ev.preemptor
        and theirs is not None
        and victim.priority is not None
        and theirs <= victim.priority
    ):
        # Named by its description, which is masked whole for who may not read it; they get
        # `flags_for(seen=False)`, which leaves the comparison out.
        hidden = (
            f"the named preemptor {describe(ev.preemptor)} is not above the victim's "
            f"priority {victim.priority}"
        )
        flags.append(hidden)
    movable = ev.victim_preemptibility
    if movable.preemptible is False:
        flags.append(
            f"a priority preemption of a non-preemptible victim ({movable.why}): priority "
            "preemption only evicts preemptible workloads"
        )
    if hidden is None:
        return KindVerdict(K.UNKNOWN if flags else K.PRIORITY_PREEMPTION, found, tuple(flags))
    unseen = tuple(f for f in flags if f != hidden) or (UNSEEN_PRIORITY,)
    return KindVerdict(K.UNKNOWN, found, tuple(flags), unseen)


def reclaim(ev: PreemptionEvidence, records: list[Eviction]) -> KindVerdict | None:
    """Another project's queue took back GPUs it deserves (fair share)."""
    found = _said(records, K.RECLAIM_FAIR_SHARE)
    if found is None:
        return None
    namespace, _ = found.evictor()
    queues = found.said.queues if found.said else ()
    same_queue = len(queues) >= 2 and queues[0].queue == queues[1].queue  # noqa: PLR2004 - two lines
    if (namespace and namespace == ev.workload.namespace) or same_queue:
        flag = "a reclaim names a preemptor in the victim's own project (reclaim is across queues)"
        return KindVerdict(K.UNKNOWN, found, (flag,))
    return KindVerdict(K.RECLAIM_FAIR_SHARE, found)


def consolidation(_: PreemptionEvidence, records: list[Eviction]) -> KindVerdict | None:
    """Moved by bin packing: evicted to be placed again elsewhere, nothing taken."""
    found = _said(records, K.CONSOLIDATION)
    return None if found is None else KindVerdict(K.CONSOLIDATION, found)


def stale_gang(_: PreemptionEvidence, records: list[Eviction]) -> KindVerdict | None:
    """Its own gang fell below its minimum, so the remaining pods were evicted."""
    found = _said(records, K.STALE_GANG_EVICTION)
    return None if found is None else KindVerdict(K.STALE_GANG_EVICTION, found)


def unknown(_: PreemptionEvidence, records: list[Eviction]) -> KindVerdict:
    """Preempted, but no record says how (or by whom)."""
    return KindVerdict(K.UNKNOWN, records[0] if records else None)


KINDS: tuple[tuple[str, Rule], ...] = (
    ("contradiction", contradiction),
    (K.PRIORITY_PREEMPTION.value, priority_preemption),
    (K.RECLAIM_FAIR_SHARE.value, reclaim),
    (K.CONSOLIDATION.value, consolidation),
    (K.STALE_GANG_EVICTION.value, stale_gang),
    (K.UNKNOWN.value, unknown),
)


def decide_kind(ev: PreemptionEvidence) -> KindVerdict:
    """The first row that matches the records of the decisive eviction."""
    records = nearest(ev.evictions, ev.at)
    for _, rule in KINDS:
        verdict = rule(ev, records)
        if verdict is not None:
            return verdict
    raise AssertionError("unreachable: the UNKNOWN row always answers")
