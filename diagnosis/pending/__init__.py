"""The Pending answer: why a workload is not running yet, with one reason and its figures.

`explain_pending` reads (`collect`), decides by the precedence table (`table`) and writes the
report (`compose`); the rules are pure (`rules_typed`, `rules_quota`, `rules_capacity`). An
answer that read the workload's department, or quotes the scheduler on it (a typed reason at
the department's level), also carries itself decided without it, for anyone it is shown to
who may not read that department (`visibility`); an asker who may not read it gets only that.
"""

from __future__ import annotations

from datetime import datetime

from diagnosis.evidence import Signal
from diagnosis.fetch import Fetched
from diagnosis.kube.reader import KubeReader
from diagnosis.pending.collect import collect_pending
from diagnosis.pending.compose import compose_pending
from diagnosis.pending.evidence import PendingEvidence
from diagnosis.pending.table import decide
from diagnosis.pending.withheld import speaks_of_department, without_department
from diagnosis.report import Report, WithoutDepartment
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
    `read_department`: whether its department's quota may be read and shown (see `collect`),
    and what the scheduler says of it quoted (`withheld`).
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
    if not read_department:
        ev = without_department(ev)
        return compose_pending(ev, *decide(ev))
    return _with_its_alternative(ev, compose_pending(ev, *decide(ev)))


def _department_id(ev: PendingEvidence) -> str:
    """The workload's department's ID, as its access is checked ("" when none names one)."""
    if ev.department is not None:
        return ev.department.id
    found = ev.workload.department_id or (ev.project.parent_id if ev.project else None)
    return (found or "").strip()


def _with_its_alternative(ev: PendingEvidence, report: Report) -> Report:
    """`report`, carrying the answer as someone who may not read its department would get it.

    Carried when it read the department, or quotes the scheduler on it; one whose department
    is not known is checked as such (`may_read_department`: only an unchecked reader sees it).
    """
    if ev.department is None and not speaks_of_department(ev):
        return report
    withheld = without_department(ev)
    held = WithoutDepartment(
        cluster_id=ev.workload.cluster_id,
        department_id=_department_id(ev),
        report=compose_pending(withheld, *decide(withheld)),
    )
    return report.model_copy(update={"without_department": held})
