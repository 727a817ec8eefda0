"""Recurrence: how many distinct failures of the same category happened within the lookback.

A failure occurrence is anchored on a history phase update into a failure phase; repeated
failure phase updates without a recovery in between are one occurrence, and the events
around an anchor describe that same termination, so a phase update and an event for one
termination count once. Each occurrence is attributed by running the same rules over the
signals of its own time segment, so "recurring OOM" means the rules saw OOM each time.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from diagnosis.evidence import Evidence, Signal
from diagnosis.lexicon import SignalKind
from diagnosis.report import Category, Recurrence
from diagnosis.rules import classify
from diagnosis.signals import unique

__all__ = ["ACTIVE_PHASES", "FAILURE_PHASES", "current_run", "recurrence"]

FAILURE_PHASES = frozenset({"failed", "crashed", "stopped"})
#: A phase update into one of these starts (or resumes) a run of the workload.
ACTIVE_PHASES = frozenset({"running", "pending", "creating", "initializing", "resuming"})
#: The skill: one occurrence is one-off; two or more are recurring.
RECURRING = 2
#: Events describing a termination may be recorded shortly after its phase update.
GRACE = timedelta(minutes=2)


def _anchors(ev: Evidence) -> list[datetime]:
    anchors: list[datetime] = []
    failing = False
    for record in sorted(ev.history or (), key=lambda r: r.at):
        update = record.spec.phase_update
        if update is None:
            continue
        now_failing = update.phase.lower() in FAILURE_PHASES
        if now_failing and not failing and record.at >= ev.cutoff:
            anchors.append(record.at)
        failing = now_failing
    return anchors


def _attributed(ev: Evidence, segment: list[Signal]) -> Category | None:
    if any(s.kind is SignalKind.PREEMPTED for s in segment):
        return None  # a preemption is not a failure occurrence
    return classify(ev.model_copy(update={"signals": tuple(segment)})).category


def current_run(ev: Evidence) -> tuple[Signal, ...]:
    """The signals of the run being diagnosed: none from before its last start in history.

    An OOM three runs ago must not decide why the workload failed today; older signals still
    count for recurrence. Undated signals are kept; without history everything is kept,
    since runs cannot be told apart.
    """
    end = ev.workload.phase_updated_at or ev.now
    starts = [
        r.at
        for r in ev.history or ()
        if r.spec.phase_update is not None
        and r.spec.phase_update.phase.lower() in ACTIVE_PHASES
        and r.at <= end
    ]
    if not starts:
        return ev.signals
    start = max(starts) - GRACE
    return tuple(s for s in ev.signals if s.at is None or s.at >= start)


def recurrence(ev: Evidence, category: Category, lookback: str) -> Recurrence:
    """Count occurrences of `category` in the lookback; None when history was unavailable."""
    if ev.history is None:
        return Recurrence(count=None, lookback=lookback, recurring=False)
    dated = [s for s in unique(ev.signals) if s.at is not None and s.at >= ev.cutoff]
    count = 0
    lower = ev.cutoff - GRACE
    anchors = _anchors(ev)
    for anchor in anchors:
        upper = anchor + GRACE
        segment = [s for s in dated if s.at is not None and lower < s.at <= upper]
        lower = upper
        if _attributed(ev, segment) is category:
            count += 1
    current = ev.workload.phase_updated_at
    covered = current is not None and any(abs(a - current) <= GRACE for a in anchors)
    within = current is None or current >= ev.cutoff
    if not covered and within:
        count += 1  # the failure being diagnosed has no anchor of its own in history
    return Recurrence(count=count, lookback=lookback, recurring=count >= RECURRING)
