"""The preemption report: the kind on line one, who (only if signalled), was it fair, how often.

It is written twice: for whoever may read the preemptor, and for anyone else
(`Report.without_preemptor`, which `visibility` gives them): what only the preemptor's
workload tells (whether the two departments differ, whose queue the reclaimer's is, its
figures, how its priority compares with the victim's) is left out of the second, not masked
in the first.
"""

from __future__ import annotations

from datetime import datetime

from diagnosis.lexicon import SignalKind
from diagnosis.moments import utc_text
from diagnosis.pending.figures import DEPARTMENT, PROJECT, Level
from diagnosis.preemption.evidence import PreemptionEvidence
from diagnosis.preemption.fairness import QuotaPosition, count, protection, quota_position
from diagnosis.preemption.kinds import KindVerdict
from diagnosis.preemption.party import NOT_FOUND, UNREAD, candidate_line, describe
from diagnosis.preemption.queues import ReclaimSay, queue_figures, reclaim_say
from diagnosis.preemption.texts import PreemptionKind
from diagnosis.redact import quote
from diagnosis.report import EvidenceLine, Outcome, Report
from diagnosis.report_facts import PreemptionFacts
from diagnosis.resolve import workload_ref
from diagnosis.rules.base import cite_all
from diagnosis.signals import unique

__all__ = ["OWNER", "TIER2_PREEMPTION_MISSING", "compose_preemption"]

K = PreemptionKind
#: The reads that look the named preemptor up.
_LOOKUPS = frozenset({"list_projects", "list_workloads"})
OWNER = "User — checkpointing and priority; administrator — quotas and priorities"
TIER2_PREEMPTION_MISSING = (
    "the PodGroup's Evict events and their annotations (Kubernetes Tier 2 access is not "
    "configured for this cluster)"
)
#: The recurrence at which a preempted workload needs a change, not a rerun.
RECURRING = 2

_ADVICE: dict[PreemptionKind, str] = {
    K.PRIORITY_PREEMPTION: "Higher-priority work in the project goes first: if this must not "
    "be interrupted, give it a non-preemptible priority and keep it within the project's "
    "deserved quota.",
    K.RECLAIM_FAIR_SHARE: "Reclaim takes only GPUs used beyond the deserved quota: stay within "
    "the project's deserved quota in this node pool (or ask for more) to be safe from it.",
    K.CONSOLIDATION: "It was moved to pack GPUs tighter, not deprived: it should be placed "
    "again; checkpointing makes moves cheap.",
    K.STALE_GANG_EVICTION: "Its own gang broke: find why a pod of the gang stopped (ask about "
    "that pod), since the remaining pods cannot run without it.",
    K.UNKNOWN: "Configure Kubernetes access (Tier 2) for this cluster: the PodGroup's Evict "
    "event says who preempted it and how.",
}
#: The reclaim advice by the quota position the headline states: (whose, over it); whose is
#: None when the reclaim line's queue is neither recognisably (`fairness.queue_level`).
_RECLAIM_ADVICE: dict[tuple[Level | None, bool], str] = {
    (PROJECT, True): "Over-quota GPUs are lent, not owned: stay within the project's deserved "
    "quota (or ask for more) to be safe from reclaim.",
    (PROJECT, False): "Within its deserved quota it should have been safe from reclaim: report "
    "it to a Run:ai administrator with the eviction record above (the scheduler's own "
    "figures); staying within quota is what it already did.",
    (DEPARTMENT, True): "Its department used more than its deserved quota, so GPUs of any of "
    "its projects were on loan: staying within the project's own quota may not be enough; ask "
    "an administrator about the department's deserved quota in this node pool.",
    (DEPARTMENT, False): "Its department was within its deserved quota, which reclaim should "
    "not take: report it to a Run:ai administrator with the eviction record above.",
    (None, True): "Its queue used more than its deserved quota, so its GPUs were on loan: stay "
    "within the project's deserved quota in this node pool (or ask for more); if that queue is "
    "its department's, that may not be enough: ask an administrator about the department's "
    "deserved quota in this node pool.",
    (None, False): "Its queue was within its deserved quota, which reclaim should not take "
    "(whether the queue is its project's or its department's): report it to a Run:ai "
    "administrator with the eviction record above.",
}
#: What is said missing when the project's own quota position is not known, by whose line.
_POSITION_MISSING: dict[str | None, str] = {
    None: "the project's quota position at the eviction (no reclaim line or metrics)",
    DEPARTMENT: "the project's own quota position at the eviction (the scheduler's reclaim "
    "line gives its department's{why})",
}
#: ...why, to whoever may read the preemptor (its department is the preemptor's to tell).
_DEPARTMENTS_DIFFER = ": the two workloads' projects have different departments"
#: ...and when the reclaim line's queue for it is not known to be the project's.
_QUEUE_NOT_KNOWN = (
    "the project's own quota position at the eviction (the scheduler's reclaim line names a "
    "queue that may be its department's)"
)
#: UNKNOWN with Kubernetes read: the record is gone, or says nothing.
_UNKNOWN_WITH_TIER2 = (
    "Ask again soon after an eviction (Kubernetes keeps events about an hour), or read the "
    "scheduler's log for the eviction: no record that was read says who preempted it."
)


def _when(ev: PreemptionEvidence, verdict: KindVerdict) -> datetime | None:
    """When it was evicted: the deciding record's time, else the preemption signal's."""
    found = verdict.eviction.at if verdict.eviction else None
    return found or ev.at


def _reclaim_advice(position: QuotaPosition) -> str:
    """The reclaim advice for the position the headline states, whoever's queue it is.

    The general one only when whether it was over is not known: a queue of unknown level
    within its quota is still one reclaim should not have taken (`queues._victim_sentence`).
    """
    if position.over is None:
        return _ADVICE[K.RECLAIM_FAIR_SHARE]
    return _RECLAIM_ADVICE[position.level, position.over]


def _headline(ev: PreemptionEvidence, verdict: KindVerdict, *, say: ReclaimSay) -> str:
    moment = _when(ev, verdict)
    at = f" at {utc_text(moment)}" if moment else ""
    by = ev.preemptor
    if verdict.kind is K.PRIORITY_PREEMPTION:
        mine = ev.workload.priority
        vs = f", above its {mine}" if mine is not None and by and by.priority is not None else ""
        who = describe(by) if by else "a workload the scheduler named"
        return f"Preempted{at} by higher-priority workload {who}{vs}."
    if verdict.kind is K.RECLAIM_FAIR_SHARE:
        who = describe(by) if by else "a workload the scheduler named"
        return f"Reclaimed{at} by {who}.{say.victim}"
    if verdict.kind is K.CONSOLIDATION:
        return (
            f"Moved{at} by consolidation (bin packing): evicted to be placed again, not deprived."
        )
    if verdict.kind is K.STALE_GANG_EVICTION:
        need = (
            verdict.eviction.said.min_member if verdict.eviction and verdict.eviction.said else None
        )
        minimum = f" ({need} pods)" if need else ""
        return f"Evicted{at} because its own gang fell below its minimum{minimum}; no preemptor."
    why = (
        "the eviction record contradicts itself"
        if verdict.flags
        else "no eviction record names one"
    )
    return f"Preempted{at}; the preemptor is not determinable: {why}."


def _party_lines(ev: PreemptionEvidence) -> list[EvidenceLine]:
    lines: list[EvidenceLine] = []
    if ev.preemptor is not None:
        unread = any(g.source in _LOOKUPS for g in ev.gaps)
        how = ""
        if ev.preemptor_workload is None:
            how = UNREAD if unread else NOT_FOUND
        lines.append(
            EvidenceLine(
                text=f"Named preemptor: {describe(ev.preemptor)}{how}", source="list_workloads"
            )
        )
    lines.extend(
        EvidenceLine(text=candidate_line(party), source="list_workloads") for party in ev.candidates
    )
    return lines


def _position_missing(position: QuotaPosition, *, seen: bool) -> str:
    """What is said missing when the project's own position is not known (`seen`: why too)."""
    if position.level is None and position.queue is not None:
        return _QUEUE_NOT_KNOWN
    said = _POSITION_MISSING.get(position.level, _POSITION_MISSING[None])
    return said.format(why=_DEPARTMENTS_DIFFER if seen else "")


def compose_preemption(ev: PreemptionEvidence, verdict: KindVerdict) -> Report:
    """The `preempted` report for the kind the table decided, and for who may not see its taker.

    The second is carried (`without_preemptor`) only when it differs.
    """
    report = _compose(ev, verdict, seen=True)
    unseen = _compose(ev, verdict, seen=False)
    return report if unseen == report else report.model_copy(update={"without_preemptor": unseen})


def _compose(ev: PreemptionEvidence, verdict: KindVerdict, *, seen: bool) -> Report:
    """The report for whoever may read the preemptor (`seen`), or for anyone else.

    Only a reclaim's record is trusted to name the preemptor's queue (a contradicted one maps
    to a workload wrongly): in any other, the preemptor's workload tells nothing of the
    queues, and the other queue's figures are for nobody who is checked.
    """
    flags = verdict.flags_for(seen=seen)
    seen = seen and verdict.kind is K.RECLAIM_FAIR_SHARE
    position = quota_position(ev, verdict, seen=seen)
    violated, broken = protection(ev, verdict.kind)
    times = count(ev)
    evidence: list[EvidenceLine] = []
    if verdict.eviction is not None:
        e = verdict.eviction
        when = f" at {utc_text(e.at)}" if e.at else ""
        text = f"{e.origin[:1].upper()}{e.origin[1:]}{when}: {quote(e.text, 600)}"
        evidence.append(EvidenceLine(text=text, source=e.source))
    else:
        evidence += cite_all(unique(s for s in ev.signals if s.kind is SignalKind.PREEMPTED))
    evidence += [
        EvidenceLine(
            text=f"Contradiction: {f}",
            source=verdict.eviction.source if verdict.eviction else "get_workload_status",
        )
        for f in flags
    ]
    evidence += _party_lines(ev)
    say = reclaim_say(ev, verdict, position, seen=seen)
    evidence += [line for line in (position.line, say.reclaimer) if line is not None]
    evidence += [
        EvidenceLine(text=f"Protection broken: {b}", source="get_workload_status") for b in broken
    ]
    w = ev.workload
    mine = f"priority {w.priority}" if w.priority is not None else "priority unknown"
    movable = ev.victim_preemptibility
    evidence.append(
        EvidenceLine(
            text=f"Victim {w.name}: {mine}, {movable.describe()}, phase {w.phase or '?'}",
            source="get_workload_status",
        )
    )
    lookback = ev.request.lookback_label()
    if times is not None:
        noun = "time" if times == 1 else "times"
        evidence.append(
            EvidenceLine(
                text=f"Preempted {times} {noun} in the last {lookback}",
                source="get_workload_history",
            )
        )
    unknown_read = verdict.kind is K.UNKNOWN and ev.tier2
    actions = [_UNKNOWN_WITH_TIER2 if unknown_read else _ADVICE[verdict.kind]]
    advice: tuple[str, str] | None = None
    if verdict.kind is K.RECLAIM_FAIR_SHARE:
        actions = [_reclaim_advice(position)]
        advice = (actions[0], _ADVICE[K.RECLAIM_FAIR_SHARE])
    queues = queue_figures(ev, position, say, advice, seen=seen)
    if broken:
        actions.insert(
            0,
            "Report it to a Run:ai administrator: a protection that should have "
            f"applied did not ({'; '.join(broken)}).",
        )
    if times is not None and times >= RECURRING:
        # A non-preemptible victim is not told to become what it already is.
        how = (
            "or use another node pool"
            if movable.preemptible is False
            else "use a non-preemptible priority within quota, or another node pool"
        )
        actions.append(
            f"Preempted {times} times in {lookback}: checkpoint so a run can resume, {how}."
        )
    elif verdict.kind is not K.CONSOLIDATION:
        actions.append("Checkpoint so a preempted run resumes instead of starting over.")
    missing = [g.what for g in ev.gaps]
    if times is None:
        missing.append("how often it was preempted (history unavailable)")
    if position.project is None and verdict.kind is K.RECLAIM_FAIR_SHARE:
        missing.append(_position_missing(position, seen=seen))
    if not ev.tier2:
        missing.append(TIER2_PREEMPTION_MISSING)
    facts = PreemptionFacts(
        kind=verdict.kind.value,
        at=_when(ev, verdict),
        by=ev.preemptor,
        candidates=ev.candidates,
        victim_over_quota=position.project,
        protection_violated=violated,
        count=times,
        queues=queues,
    )
    return Report(
        outcome=Outcome.PREEMPTED,
        workload=workload_ref(w),
        headline=_headline(ev, verdict, say=say),
        evidence=tuple(dict.fromkeys(evidence)),
        recommendations=tuple(actions),
        missing=tuple(dict.fromkeys(missing)),
        recovery_owner=OWNER,
        preemption=facts,
    )
