"""Step 1 gates: preemption routing, the skill's phase table, and symptom confirmation.

Pure functions over a workload and its signals; they decide whether the failure pipeline
continues (`None`) or which non-diagnosis outcome ends it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from diagnosis.evidence import Signal
from diagnosis.lexicon import SignalKind
from diagnosis.report import Outcome
from diagnosis.request import DiagnosisRequest, Symptom
from diagnosis.runai.models import HistoryRecord, Workload

__all__ = [
    "DIRECT_POD_FAILURE",
    "SYMPTOM_SIGNALS",
    "UNCONFIRMED_WITHOUT_EVENTS",
    "confirms",
    "phase_gate",
    "recent_preemption",
    "waits_on_scheduler",
]

#: Signals that are a direct failed-pod signal (keep a Pending workload in scope).
DIRECT_POD_FAILURE = frozenset(
    {
        SignalKind.IMAGE_PULL,
        SignalKind.MOUNT_FAILED,
        SignalKind.INIT_FAILED,
        SignalKind.CRASHLOOP,
        SignalKind.OOM_KILLED,
        SignalKind.POD_ERROR,
    }
)

#: Outcomes the phase table reaches on the absence of a failure signal: with events
#: unavailable that absence proves nothing, so history and Kubernetes are read first.
UNCONFIRMED_WITHOUT_EVENTS = frozenset({Outcome.PENDING_SCHEDULING, Outcome.RUNNING_NO_FAILURE})

#: What confirms each current-symptom intent.
SYMPTOM_SIGNALS: dict[Symptom, frozenset[SignalKind]] = {
    Symptom.CRASHLOOP: frozenset({SignalKind.CRASHLOOP}),
    Symptom.IMAGE_PULL: frozenset({SignalKind.IMAGE_PULL}),
    Symptom.INIT: frozenset({SignalKind.INIT_FAILED}),
    Symptom.MOUNT: frozenset({SignalKind.MOUNT_FAILED}),
    Symptom.STARTUP: frozenset(
        {
            SignalKind.IMAGE_PULL,
            SignalKind.INIT_FAILED,
            SignalKind.MOUNT_FAILED,
            SignalKind.CRASHLOOP,
        }
    ),
    Symptom.FAILED_POD: DIRECT_POD_FAILURE,
}

#: Two crashes of the workload's containers make "repeated container crashes".
REPEATED = 2
_CONTINUE = frozenset({"failed", "crashed", "stopped"})
_SUCCESS = frozenset({"completed", "succeeded"})
#: A phase update into one of these after an eviction: its pods were placed again. (Back to
#: Pending is not: Run:ai requeues an evicted workload as Pending; nor is a terminal phase,
#: which is how a workload that terminates after preemption ends.)
_RUNNING_AGAIN = frozenset({"running", "initializing", "resuming"})
#: A failure after an eviction that only a pod placed and started again can have. A plain
#: non-zero exit or an `Error` pod is not: the eviction's own kill ends the container so.
_FAILED_AFTER_RUNNING = frozenset(
    {
        SignalKind.OOM_KILLED,
        SignalKind.CRASHLOOP,
        SignalKind.IMAGE_PULL,
        SignalKind.INIT_FAILED,
        SignalKind.MOUNT_FAILED,
        SignalKind.START_ERROR,
    }
)
#: Phases where a "why is it pending?" question is answered by the Pending diagnosis.
_STARTING = frozenset({"initializing", "creating"})


def _repeated_crash(signals: Sequence[Signal]) -> bool:
    crashes = {
        s.key
        for s in signals
        if s.kind is SignalKind.POD_ERROR or (s.kind is SignalKind.EXIT_CODE and s.exit_code)
    }
    return len(crashes) >= REPEATED


def confirms(symptom: Symptom, signals: Sequence[Signal]) -> bool:
    """Whether status, conditions or events confirm the asked-for current symptom."""
    wanted = SYMPTOM_SIGNALS[symptom]
    if any(s.kind in wanted for s in signals):
        return True
    return symptom in {Symptom.CRASHLOOP, Symptom.FAILED_POD} and _repeated_crash(signals)


def recent_preemption(
    signals: Iterable[Signal],
    history: Iterable[HistoryRecord] = (),
    *,
    cutoff: datetime,
) -> Signal | None:
    """The newest preemption signal within the lookback, unless the workload ran again after it.

    It ran again when, after the eviction, a pod was scheduled or started (`RESTARTED`), the
    history moves it back to Running, or a failure only a running pod has (OOM-killed, a
    crash loop, a failed start: `_FAILED_AFTER_RUNNING`) was reported. That preemption was
    survived, and the failure that ended the later run is the diagnosis (the skill's
    strongest direct signal), not the eviction before it.
    """
    listed = list(signals)
    preemptions = [
        s for s in listed if s.kind is SignalKind.PREEMPTED and (s.at is None or s.at >= cutoff)
    ]
    if not preemptions:
        return None
    newest = max(preemptions, key=lambda s: s.at or cutoff)
    if newest.at is None:
        return newest
    after = newest.at
    ran_again = any(
        s.kind in _FAILED_AFTER_RUNNING or s.kind is SignalKind.RESTARTED
        for s in listed
        if s.at is not None and s.at > after
    ) or any(
        r.spec.phase_update is not None
        and r.spec.phase_update.phase.lower() in _RUNNING_AGAIN
        and r.at > after
        for r in history
    )
    return None if ran_again else newest


def phase_gate(phase: str | None, signals: Sequence[Signal]) -> Outcome | None:
    """The skill's phase table. None means "continue with the failure diagnosis"."""
    name = (phase or "").lower()
    if name in _CONTINUE:
        return None
    if name in _SUCCESS:
        return Outcome.SUCCEEDED
    if name == "pending":
        direct = any(s.kind in DIRECT_POD_FAILURE for s in signals)
        return None if direct else Outcome.PENDING_SCHEDULING
    if name == "suspended":
        return Outcome.SUSPENDED
    if name == "running":
        crashloop = any(s.kind is SignalKind.CRASHLOOP for s in signals)
        return None if crashloop or _repeated_crash(signals) else Outcome.RUNNING_NO_FAILURE
    return Outcome.NOT_TERMINAL


def waits_on_scheduler(
    request: DiagnosisRequest, workload: Workload, routed: Outcome | None
) -> bool:
    """Whether the Pending answer applies: a scheduling wait, or "why pending?" while starting.

    A Pending workload with only scheduling evidence (the phase table's `pending_scheduling`);
    or a Pending question about one that is Initializing or Creating, where the first rows of
    the Pending table (not waiting on the scheduler, pods held) decide.
    """
    if routed is Outcome.PENDING_SCHEDULING:
        return True
    phase = (workload.phase or "").lower()
    return request.symptom is Symptom.PENDING and phase in _STARTING
