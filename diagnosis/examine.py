"""Steps 2-5 for a resolved, authorized workload: events, phase routing, evidence, verdict.

`diagnosis.pipeline` resolves the workload and checks the asker's access; `examine_workload`
then reads its events, routes it (the preemption answer, the Pending answer, or a stop the
phase table decides), and otherwise collects the evidence, classifies and composes.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import structlog

from diagnosis.collect import Reads, collect
from diagnosis.compose import compose
from diagnosis.evidence import Gap, Signal
from diagnosis.fetch import HISTORY, Fetched, evidence_since, fetch_events, fetch_history
from diagnosis.kube.config import KubeAccessError
from diagnosis.kube.reader import KubeConnector, KubeReader
from diagnosis.lexicon import SignalKind
from diagnosis.pending import explain_pending
from diagnosis.phase import (
    UNCONFIRMED_WITHOUT_EVENTS,
    phase_gate,
    recent_preemption,
    waits_on_scheduler,
)
from diagnosis.preemption import explain_preemption
from diagnosis.redact import Redactor
from diagnosis.report import Outcome, Report
from diagnosis.request import DiagnosisRequest, Symptom
from diagnosis.resolve import Resolved
from diagnosis.rules import classify
from diagnosis.runai.models import HistoryRecord, Workload
from diagnosis.runai.reader import RunaiReader
from diagnosis.runs import current_run
from diagnosis.signals import events_signals, status_signals
from diagnosis.stages import Stopwatch
from diagnosis.stops import status_lines, stop, unconfirmed

__all__ = ["early_reads", "examine_workload"]


async def examine_workload(
    request: DiagnosisRequest,
    resolved: Resolved,
    *,
    runai: RunaiReader,
    kube: KubeConnector | None,
    now: datetime,
    cutoff: datetime,
    watch: Stopwatch,
    early: Reads | None = None,
    read_department: bool = False,
) -> Report:
    """Steps 2-5 for the resolved workload: events, phase routing, evidence, classification.

    `read_department`: whether a Pending answer may read and show the department's quota
    (only when every asker may see it: `diagnosis.pending.collect`).
    """
    log = structlog.get_logger(__name__)
    workload = resolved.workload
    since = evidence_since(workload, now=now, cutoff=cutoff)
    with watch.stage("collect"):
        # Fetched once per diagnosis, from where the failure's own evidence starts.
        events = resolved.events or await fetch_events(runai, workload.id, since)
    with watch.stage("classify"):
        redactor = Redactor()
        status = [
            *status_signals(workload, redactor),
            *events_signals(events.value or (), redactor),
        ]
        gaps = (events.gap.what,) if events.gap else ()
        preempted = recent_preemption(status, cutoff=since)
        routed_out = phase_gate(workload.phase, status)
        waiting = waits_on_scheduler(request, workload, routed_out)
        if waiting and request.symptom is Symptom.PENDING:
            preempted = None  # asked why it waits: the Pending answer cites the eviction
    reader, kube_gap = _kube_reader(kube, request.cluster_id)

    async def preemption(
        decisive: Signal,
        signals: list[Signal],
        history: Sequence[HistoryRecord] | None,
        history_gap: Gap | None,
        gaps: tuple[Gap | None, ...],
    ) -> Report:
        """The preemption answer, from the evidence read so far (history, when read)."""
        with watch.stage("collect"):
            report = await explain_preemption(
                request,
                runai,
                workload=workload,
                decisive=decisive,
                signals=signals,
                events=events.value or (),
                history=None if history is None else tuple(history),
                history_gap=history_gap,
                now=now,
                cutoff=cutoff,
                since=since,
                kube=reader,
            )
        return _with_gaps(report, *gaps)

    async def pending() -> Report:
        """The Pending answer (it reads what it needs itself, history unless read already)."""
        with watch.stage("collect"):
            report = await explain_pending(
                request,
                runai,
                workload=workload,
                events=events,
                signals=status,
                now=now,
                since=since,
                kube=reader,
                history=history_read,
                read_department=read_department,
            )
        return _with_gaps(report, kube_gap)

    with watch.stage("collect"):
        # Whether it ran again after the eviction is in its history too, not only in the
        # events: read it (once) before the eviction is taken for what ended the run.
        preempted, history_read = await _unless_survived(
            runai, workload, status, preempted, since=since, early=early
        )
    if preempted is not None and history_read is not None:
        found = (events.gap, kube_gap)
        return await preemption(preempted, status, history_read.value, history_read.gap, found)
    if waiting and not events.gap:
        return await pending()
    if routed_out is not None and not (events.gap and routed_out in UNCONFIRMED_WITHOUT_EVENTS):
        return stop(routed_out, workload, status_lines(workload, status), gaps)

    # Without events, a Pending or Running workload's status alone cannot route it out:
    # history and Kubernetes are read first, and the phase table is asked again with them.
    with watch.stage("collect"):
        ev = await collect(
            request,
            runai,
            workload=workload,
            events=events,
            status=status,
            now=now,
            cutoff=cutoff,
            since=since,
            redactor=redactor,
            kube=reader,
            reads=early or _reads_with(runai, workload, now, since, history_read),
        )
    if kube_gap is not None:
        ev = ev.model_copy(update={"gaps": (*ev.gaps, kube_gap)})
    with watch.stage("classify"):
        preempted = recent_preemption(ev.signals, ev.history or (), cutoff=since)
    if preempted is not None:
        lost = next((g for g in ev.gaps if g.source == HISTORY), None)
        return await preemption(preempted, list(ev.signals), ev.history, lost, ev.gaps)
    with watch.stage("classify"):
        # The phase table again, on the run being diagnosed alone: neither lost events nor an
        # earlier run's pull error or crash loop in the window make this run a failure.
        run = current_run(ev)
        routed = phase_gate(workload.phase, run)
    if routed is not None and events.gap:
        return unconfirmed(routed, ev, events.gap, status_lines(workload, list(run)))
    if routed is Outcome.PENDING_SCHEDULING:
        return await pending()
    if routed is not None:
        lines = status_lines(workload, list(run))
        return stop(routed, workload, lines, tuple(g.what for g in ev.gaps))
    with watch.stage("classify"):
        finding = classify(ev.model_copy(update={"signals": run}))
        report = compose(ev, finding)
    log.info(
        "diagnosis_classified",
        workload_id=workload.id,
        category=report.category,
        gaps=len(report.missing),
        signals=sorted({s.kind.value for s in ev.signals if s.kind is not SignalKind.RESTARTED}),
    )
    return report


def early_reads(
    runai: RunaiReader, workload: Workload, *, now: datetime, cutoff: datetime
) -> Reads | None:
    """Spec, pods and history, started next to the events when the status alone is a failure.

    Only ever called once the asker's access to `workload` was granted (see
    `diagnosis.pipeline`); a workload the status does not show failing waits for its events
    first.
    """
    if phase_gate(workload.phase, list(status_signals(workload, Redactor()))) is not None:
        return None
    return Reads(runai, workload, now=now, since=evidence_since(workload, now=now, cutoff=cutoff))


async def _unless_survived(
    runai: RunaiReader,
    workload: Workload,
    status: list[Signal],
    preempted: Signal | None,
    *,
    since: datetime,
    early: Reads | None,
) -> tuple[Signal | None, Fetched[list[HistoryRecord]] | None]:
    """The eviction the status and events show, unless the history shows it ran again after.

    Returns it (None: survived, or none) with the history read to tell (None: not read). The
    early reads' history is used when they were started, so it is never read twice.
    """
    if preempted is None:
        return None, None
    read = await (early.history if early is not None else fetch_history(runai, workload.id, since))
    return recent_preemption(status, read.value or (), cutoff=since), read


def _reads_with(
    runai: RunaiReader,
    workload: Workload,
    now: datetime,
    since: datetime,
    history: Fetched[list[HistoryRecord]] | None,
) -> Reads | None:
    """The evidence reads, with the history read already (None: `collect` starts its own)."""
    if history is None:
        return None
    return Reads(runai, workload, now=now, since=since, history=history)


def _with_gaps(report: Report, *gaps: Gap | None) -> Report:
    """`report` with gaps found before it was composed added to what was not measured."""
    found = [g.what for g in gaps if g is not None]
    if not found:
        return report
    missing = tuple(dict.fromkeys((*found, *report.missing)))
    held = report.without_department
    if held is not None:  # the same answer without its department misses them too
        held = held.model_copy(update={"report": _with_gaps(held.report, *gaps)})
    unseen = report.without_preemptor  # and so does the one without the preemptor
    unseen = _with_gaps(unseen, *gaps) if unseen is not None else None
    return report.model_copy(
        update={"missing": missing, "without_department": held, "without_preemptor": unseen}
    )


def _kube_reader(
    kube: KubeConnector | None, cluster_id: str | None
) -> tuple[KubeReader | None, Gap | None]:
    """The cluster's Kubernetes reader; a broken access configuration is a gap, not a crash."""
    if kube is None or cluster_id is None:
        return None, None
    try:
        return kube.for_cluster(cluster_id), None
    except KubeAccessError as error:
        return None, Gap(
            source="kubectl", what=f"Kubernetes evidence: access misconfigured ({error})"
        )
