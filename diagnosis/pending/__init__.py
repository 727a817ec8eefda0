"""The Pending answer: why a workload is not running yet, with one reason and its figures.

`explain_pending` reads (`collect`), decides by the precedence table (`table`) and writes the
report (`compose`); the rules are pure (`rules_typed`, `rules_quota`, `rules_capacity`).
"""

from __future__ import annotations

from datetime import datetime

from diagnosis.evidence import Signal
from diagnosis.fetch import Fetched
from diagnosis.kube.reader import KubeReader
from diagnosis.pending.collect import collect_pending
from diagnosis.pending.compose import compose_pending
from diagnosis.pending.table import decide
from diagnosis.report import Report
from diagnosis.request import DiagnosisRequest
from diagnosis.runai.models import Event, HistoryRecord, Workload
from diagnosis.runai.reader import RunaiReader

__all__ = ["explain_pending"]


async def explain_pending(
    request: DiagnosisRequest,
    runai: RunaiReader,
    *,
    workload: Workload,
    events: Fetched[tuple[Event, ...]],
    signals: list[Signal],
    now: datetime,
    since: datetime,
    kube: KubeReader | None,
    history: Fetched[list[HistoryRecord]] | None = None,
    read_department: bool = False,
) -> Report:
    """Why `workload` is Pending: one reason from the precedence table, with its figures.

    `history`, when given, is the workload's history read already (it is not read again).
    `read_department`: whether its department's quota may be read and shown (see `collect`).
    """
    ev = await collect_pending(
        request,
        runai,
        workload=workload,
        events=events,
        signals=signals,
        now=now,
        since=since,
        kube=kube,
        history_read=history,
        read_department=read_department,
    )
    best, others = decide(ev)
    return compose_pending(ev, best, others)
