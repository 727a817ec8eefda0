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

__all__ = ["FAILURE_PHASES", "recurrence"]

FAILURE_PHASES = frozenset({"failed", "crashed", "stopped"})
#: The seed: one occurrence is one-off; two or more are recurring.
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
    if not covered:
        count += 1  # the failure being diagnosed has no anchor of its own in history
    return Recurrence(count=count, lookback=lookback, recurring=count >= RECURRING)
