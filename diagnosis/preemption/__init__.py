"""The preemption answer: who took the workload's GPUs, how, and whether that was fair.

`explain_preemption` reads (`collect`), decides the kind by its table (`kinds`), judges the
quota position and protections (`fairness`), says what each queue of the reclaim line states
(`queues`) and writes the report (`compose`); `for_asker` (`visibility`) then hides, per
asker, every named workload and every department's figures they may not read.
"""

from __future__ import annotations

from datetime import datetime

from diagnosis.evidence import Gap, Signal
from diagnosis.kube.reader import KubeReader
from diagnosis.preemption.collect import collect_preemption
from diagnosis.preemption.compose import compose_preemption
from diagnosis.preemption.kinds import decide_kind
from diagnosis.preemption.texts import PreemptionKind
from diagnosis.preemption.visibility import for_asker
from diagnosis.report import Report
from diagnosis.request import DiagnosisRequest
from diagnosis.runai.models import Event, HistoryRecord, Workload
from diagnosis.runai.reader import RunaiReader

__all__ = ["explain_preemption", "for_asker"]


async def explain_preemption(
    request: DiagnosisRequest,
    runai: RunaiReader,
    *,
    workload: Workload,
    decisive: Signal,
    signals: list[Signal],
    events: tuple[Event, ...],
    history: tuple[HistoryRecord, ...] | None = None,
    history_gap: Gap | None = None,
    now: datetime,
    cutoff: datetime,
    since: datetime,
    kube: KubeReader | None,
) -> Report:
    """Why `workload` was preempted: the kind from the table, the preemptor only if named."""
    ev = await collect_preemption(
        request,
        runai,
        workload=workload,
        decisive=decisive,
        signals=signals,
        events=events,
        history=history,
        history_gap=history_gap,
        now=now,
        cutoff=cutoff,
        since=since,
        kube=kube,
    )
    verdict = decide_kind(ev)
    if verdict.kind is PreemptionKind.UNKNOWN and ev.preemptor is not None:
        # A contradicted record names someone: a candidate at most, never the verdict.
        note = "named by an eviction record that contradicts itself"
        unconfirmed = ev.preemptor.model_copy(update={"confirmed": False, "note": note})
        ev = ev.model_copy(update={"preemptor": None, "candidates": (unconfirmed, *ev.candidates)})
    return compose_preemption(ev, verdict)
