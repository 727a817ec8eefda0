"""Which run of a workload is diagnosed: from its last start to, once it failed, its failure.

A workload that is resumed, retried or resubmitted runs again under the same ID, and the
evidence window (the lookback) can hold several runs. What decides today's verdict, and the
memory peak it quotes, must come from today's run: an OOM three runs ago is history (it still
counts for recurrence), and a node that went NotReady half an hour after the workload failed
did not fail it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from diagnosis.evidence import Evidence, Signal
from diagnosis.runai.models import Pod

__all__ = [
    "ACTIVE_PHASES",
    "AFTERMATH",
    "FAILURE_PHASES",
    "GRACE",
    "RUN_SPREAD",
    "Run",
    "current_run",
    "latest_run_first",
    "run_of",
]

FAILURE_PHASES = frozenset({"failed", "crashed", "stopped"})
#: A phase update into one of these starts (or resumes) a run of the workload.
ACTIVE_PHASES = frozenset({"running", "pending", "creating", "initializing", "resuming"})
#: Events describing a termination may be recorded shortly after its phase update.
GRACE = timedelta(minutes=2)
#: How long after a workload entered its failure phase a signal may still describe that
#: failure (a node is marked NotReady up to a minute or so after it stopped answering, and a
#: pod is evicted minutes after that); anything later is the failure's aftermath.
AFTERMATH = timedelta(minutes=10)
#: Pods created within this of the newest are taken for one run (a distributed job's pods
#: are created together; a rerun's come after a failure and a new start).
RUN_SPREAD = timedelta(minutes=10)


@dataclass(frozen=True)
class Run:
    """The bounds of the run diagnosed; None where it is not known (nothing is cut there)."""

    start: datetime | None
    end: datetime | None

    def holds(self, at: datetime | None) -> bool:
        """Whether a moment belongs to this run; an undated one always does."""
        if at is None:
            return True
        return (self.start is None or at >= self.start) and (self.end is None or at <= self.end)


def run_of(ev: Evidence) -> Run:
    """The run diagnosed, from the workload's record and its history.

    It starts at its last start in history (less `GRACE`); a workload in a failure phase
    ended `AFTERMATH` after entering it. Without history its start is unknown, since runs
    cannot be told apart.
    """
    failed_at = ev.workload.phase_updated_at
    if (ev.workload.phase or "").lower() not in FAILURE_PHASES:
        failed_at = None
    end = ev.workload.phase_updated_at or ev.now
    starts = [
        r.at
        for r in ev.history or ()
        if r.spec.phase_update is not None
        and r.spec.phase_update.phase.lower() in ACTIVE_PHASES
        and r.at <= end
    ]
    return Run(
        start=max(starts) - GRACE if starts else None,
        end=failed_at + AFTERMATH if failed_at is not None else None,
    )


def current_run(ev: Evidence) -> tuple[Signal, ...]:
    """The signals of the run diagnosed (`run_of`); undated ones are kept."""
    run = run_of(ev)
    return tuple(s for s in ev.signals if run.holds(s.at))


def latest_run_first(pods: Iterable[Pod], wanted: frozenset[str]) -> list[Pod]:
    """`pods` in a phase of `wanted` first, and among each lot the latest run's first.

    The pod list of a workload that ran several times holds every run's pods, in no useful
    order. The latest run's are those created within `RUN_SPREAD` of the newest wanted one,
    its first failure first (in a distributed job, the one that failed the others); earlier
    runs' follow, newest first; undated pods keep their place in the list, last.
    """
    listed = list(pods)

    def is_wanted(pod: Pod) -> bool:
        return (pod.k8s_phase or "").lower() in wanted

    newest = max((p.created_at for p in listed if is_wanted(p) and p.created_at), default=None)

    def key(item: tuple[int, Pod]) -> tuple[bool, int, float, int]:
        index, pod = item
        moment = pod.k8s_phase_updated_at or pod.created_at
        if moment is None:
            return (not is_wanted(pod), 2, 0.0, index)
        created = pod.created_at
        if newest is not None and created is not None and created >= newest - RUN_SPREAD:
            return (not is_wanted(pod), 0, moment.timestamp(), index)
        return (not is_wanted(pod), 1, -moment.timestamp(), index)

    return [pod for _, pod in sorted(enumerate(listed), key=key)]
