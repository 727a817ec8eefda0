"""Recurrence: how many distinct failures of the same category happened within the lookback.

A failure occurrence is anchored on a history phase update into a failure phase; repeated
failure phase updates without a recovery in between are one occurrence, and the events
around an anchor describe that same termination, so a phase update and an event for one
termination count once. Each occurrence is attributed by running the same rules over the
signals of its own time segment, so "recurring OOM" means the rules saw OOM each time.

Inside a crash loop the workload never leaves Running, so history has no anchor for each
termination: a container's restarts (`kubectl describe pod`) are occurrences too, one per
termination, attributed by the rules over that container's own signals. History anchors
from the same pod's lifetime describe those same terminations and are not added again.
"""

from __future__ import annotations

from datetime import datetime

from diagnosis.evidence import Evidence, Restarts, Signal
from diagnosis.lexicon import SignalKind
from diagnosis.report import Category
from diagnosis.report_parts import Recurrence
from diagnosis.rules import classify
from diagnosis.runs import FAILURE_PHASES, GRACE
from diagnosis.signals import unique

__all__ = ["recurrence"]

#: The skill: one occurrence is one-off; two or more are recurring.
RECURRING = 2


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


def _loop_terminations(ev: Evidence, category: Category, restarts: Restarts) -> tuple[int, bool]:
    """The container's terminations of `category` within the lookback, and whether it ended.

    Its restarts, each an occurrence: all of them when the pod started within the lookback,
    otherwise only the latest, the one whose time is known. A container terminated for good
    ended with the workload: that last termination is the workload's, counted once for all
    the pods that ended with it (the second value), not once per pod.
    """
    if restarts.last_finished_at is None or restarts.last_finished_at < ev.cutoff:
        return 0, False
    own = [s for s in ev.signals if s.key.startswith(restarts.key)]
    if _attributed(ev, own) is not category:
        return 0, False
    started = restarts.pod_started_at
    whole = started is None or started >= ev.cutoff
    if restarts.final:
        return (restarts.restart_count if whole else 0), True
    return (restarts.terminations if whole else 1), False


def recurrence(ev: Evidence, category: Category, lookback: str) -> Recurrence:
    """Count occurrences of `category` in the lookback; None when history was unavailable."""
    if ev.history is None:
        return Recurrence(count=None, lookback=lookback, recurring=False)
    dated = [s for s in unique(ev.signals) if s.at is not None and s.at >= ev.cutoff]
    lower = ev.cutoff - GRACE
    anchors = _anchors(ev)
    attributed: list[datetime] = []
    current = ev.workload.phase_updated_at
    failed = (ev.workload.phase or "").lower() in FAILURE_PHASES
    for anchor in anchors:
        upper = anchor + GRACE
        segment = [s for s in dated if s.at is not None and lower < s.at <= upper]
        lower = upper
        if failed and current is not None and abs(anchor - current) <= GRACE:
            attributed.append(anchor)  # the failure diagnosed: its category is the verdict's
        elif _attributed(ev, segment) is category:
            attributed.append(anchor)
    covered = failed and current is not None and any(abs(a - current) <= GRACE for a in anchors)
    within = current is None or current >= ev.cutoff
    uncovered = 1 if not covered and within else 0  # the failure diagnosed, not in history
    loops = [(r, *_loop_terminations(ev, category, r)) for r in ev.restarts]
    ended = any(final for _, _, final in loops)  # the pods that ended together: one termination
    in_loop = sum(n for _, n, _ in loops) + (1 if ended else 0)
    if not in_loop:
        count = len(attributed) + uncovered
    else:
        # Anchors since the looping pods started are those same terminations: count once.
        starts = [
            r.pod_started_at
            for r, n, final in loops
            if (n or final) and r.pod_started_at is not None
        ]
        first = min(starts) - GRACE if starts else ev.cutoff - GRACE
        before = sum(1 for a in attributed if a < first)
        count = before + max(in_loop, len(attributed) - before + uncovered)
    return Recurrence(count=count, lookback=lookback, recurring=count >= RECURRING)
