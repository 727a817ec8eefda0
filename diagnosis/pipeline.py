"""`diagnose`: the runai-diagnose-failed-workload skill's Steps 1-5, read-only, deterministic.

resolve → status → access check → cluster guard → events ∥ (spec, pods, history) →
preemption routing → phase table → collect (then Kubernetes, metrics, nodes) → phase table
again, on the current run's signals → classify → compose. The only orchestrator; every step
below it is either a client call or a pure function.

Why three chain levels and not two: nothing about a workload is read before the asker's
access to it is granted, and the access check needs the workload's project and kind, which
only its status (or the listing, by name) gives. Reading events, pods and history alongside
the status and dropping them on a refusal would show the asker nothing, but it would have
the bot's service account read, on a refused person's behalf, evidence that person may not
see: it would cost Run:ai calls (and shared call-limit slots) per guessed ID, and leave that
evidence in memory where a log line, a gap text, a cache or a metric could one day carry it
out. So `Reads` starts the moment the status is authorized, next to the events, never before.
"""

from __future__ import annotations

from datetime import UTC, datetime

import structlog

from diagnosis.access import AccessDenied, Authorize, access_of
from diagnosis.collect import Reads, collect
from diagnosis.compose import compose
from diagnosis.errors import NotFound
from diagnosis.evidence import Evidence, Gap, Signal
from diagnosis.fetch import (
    DEFAULT_DEADLINE_S,
    EVIDENCE_WINDOW,
    HISTORY,
    deadline,
    evidence_since,
    fetch_events,
    within_deadline,
)
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
from diagnosis.preemption import explain_preemption, for_asker
from diagnosis.redact import Redactor
from diagnosis.report import Outcome, Report
from diagnosis.request import DiagnosisRequest, Symptom
from diagnosis.resolve import Resolved, resolve_by_name, workload_ref
from diagnosis.rules import classify
from diagnosis.runai.models import Workload
from diagnosis.runai.reader import RunaiReader
from diagnosis.runs import current_run
from diagnosis.sharing import Share, SharedLookups, report_key, shared_report
from diagnosis.signals import events_signals, status_signals
from diagnosis.stages import StageObserver, Stopwatch
from diagnosis.stops import needs_input, status_lines, stop, unconfirmed
from diagnosis.surroundings import Surroundings

__all__ = ["DEFAULT_DEADLINE_S", "EVIDENCE_WINDOW", "diagnose"]


async def _resolve(
    request: DiagnosisRequest,
    runai: RunaiReader,
    *,
    now: datetime,
    cutoff: datetime,
    authorize: Authorize | None,
) -> Resolved | Report:
    if request.workload_id is None:
        return await resolve_by_name(request, runai, now=now, cutoff=cutoff, authorize=authorize)
    try:
        status = await within_deadline(
            runai.get_workload(request.workload_id), "get_workload_status"
        )
    except NotFound:
        return Report(
            outcome=Outcome.NOT_FOUND,
            headline=f"No workload with ID {request.workload_id} on the control plane.",
        )
    if authorize is not None and not await authorize(access_of(status)):
        raise AccessDenied  # before the cluster guard: nothing of it, not even its name
    return Resolved(status)


async def diagnose(
    request: DiagnosisRequest,
    *,
    runai: RunaiReader,
    kube: KubeConnector | None = None,
    now: datetime | None = None,
    deadline_s: float = DEFAULT_DEADLINE_S,
    authorize: Authorize | None = None,
    share: Share | None = None,
    observe: StageObserver | None = None,
) -> Report:
    """Diagnose one workload; read-only. Raises only `diagnosis.errors` exceptions.

    Missing identifiers, unknown workloads, a cluster mismatch and out-of-scope phases are
    outcomes in the returned `Report`, not exceptions. An upstream failure of a call the
    diagnosis cannot do without (resolution, status) raises `UpstreamError`; any other
    failed call is recorded as a gap in the report. After `deadline_s` seconds every call
    still running is cancelled: the report is what was collected, the rest named as gaps.

    `authorize` (see `diagnosis.access`) is asked about every workload before anything of
    it is used: by ID, a refusal raises `AccessDenied`; by name, refused workloads are
    left out of the matches and the near matches, as if they did not exist.

    `share` (see `diagnosis.sharing`) lets concurrent askers share the work: the resolution's
    reads, then, once this asker's access to the workload is confirmed, the report itself.
    `observe`, when given, is told how long each stage took (`diagnosis.stages`).
    """
    watch = Stopwatch(observe)
    try:
        with deadline(deadline_s):
            return await _diagnose(
                request,
                runai=runai,
                kube=kube,
                now=now,
                authorize=authorize,
                share=share,
                watch=watch,
            )
    finally:
        watch.report()


async def _diagnose(
    request: DiagnosisRequest,
    *,
    runai: RunaiReader,
    kube: KubeConnector | None,
    now: datetime | None,
    authorize: Authorize | None,
    share: Share | None,
    watch: Stopwatch,
) -> Report:
    log = structlog.get_logger(__name__)
    missing = request.missing()
    if missing:
        return needs_input(missing)
    now = now or datetime.now(UTC)
    cutoff = now - request.lookback
    lookups = runai if share is None else SharedLookups(runai, share)
    with watch.stage("resolve"):
        resolved = await _resolve(request, lookups, now=now, cutoff=cutoff, authorize=authorize)
    if isinstance(resolved, Report):
        return resolved
    workload = resolved.workload
    if workload.cluster_id != request.cluster_id:
        log.info("cluster_mismatch", workload_id=workload.id)
        return Report(
            outcome=Outcome.CLUSTER_MISMATCH,
            workload=workload_ref(workload),
            headline=f"Workload {workload.name} belongs to cluster {workload.cluster_id}, "
            f"not {request.cluster_id}; stopping rather than diagnosing the wrong cluster.",
        )

    async def examine() -> Report:
        early = _early_reads(runai, workload, now=now, cutoff=cutoff)
        try:
            return await _examine(
                request,
                resolved,
                runai=runai,
                kube=kube,
                now=now,
                cutoff=cutoff,
                watch=watch,
                early=early,
            )
        finally:
            if early is not None:
                early.cancel()

    # What this asker may see around the failure is read alongside it, never shared as such.
    around = Surroundings(workload, runai, lookups, share, authorize, cutoff, resolved.submissions)
    around.start()
    try:
        if share is None:
            report = await examine()
        else:
            # This asker may see the workload (authorized above): its report may be shared.
            key = report_key(request, workload, tier2=kube is not None)
            report = await shared_report(share, key, examine)
            if report.workload is not None and report.workload.id != workload.id:
                log.warning("shared_report_mismatch", workload_id=workload.id)
                report = await examine()  # never show an asker a report about another workload
        # What it names about other workloads is cut to what this asker may read.
        report = await for_asker(report, authorize)
        with watch.stage("collect"):
            return await around.add(report)
    finally:
        around.cancel()


async def _examine(
    request: DiagnosisRequest,
    resolved: Resolved,
    *,
    runai: RunaiReader,
    kube: KubeConnector | None,
    now: datetime,
    cutoff: datetime,
    watch: Stopwatch,
    early: Reads | None = None,
) -> Report:
    """Steps 2-5 for the resolved workload: events, phase routing, evidence, classification."""
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

    async def preemption(decisive: Signal, ev: Evidence | None = None) -> Report:
        """The preemption answer, from the evidence read so far (history, when read)."""
        history = ev.history if ev is not None else None
        gaps = ev.gaps if ev is not None else tuple(g for g in (events.gap, kube_gap) if g)
        with watch.stage("collect"):
            report = await explain_preemption(
                request,
                runai,
                workload=workload,
                decisive=decisive,
                signals=list(ev.signals) if ev is not None else status,
                events=events.value or (),
                history=history,
                history_gap=next((g for g in gaps if g.source == HISTORY), None),
                now=now,
                cutoff=cutoff,
                since=since,
                kube=reader,
            )
        return _with_gaps(report, *gaps)

    async def pending() -> Report:
        """The Pending answer (it reads what it needs itself)."""
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
            )
        return _with_gaps(report, kube_gap)

    if preempted is not None:
        return await preemption(preempted)
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
            reads=early,
        )
    if kube_gap is not None:
        ev = ev.model_copy(update={"gaps": (*ev.gaps, kube_gap)})
    with watch.stage("classify"):
        preempted = recent_preemption(ev.signals, ev.history or (), cutoff=since)
    if preempted is not None:
        return await preemption(preempted, ev)
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


def _early_reads(
    runai: RunaiReader, workload: Workload, *, now: datetime, cutoff: datetime
) -> Reads | None:
    """Spec, pods and history, started next to the events when the status alone is a failure.

    Only ever called once the asker's access to `workload` was granted (see the module's
    docstring); a workload the status does not show failing waits for its events first.
    """
    if phase_gate(workload.phase, list(status_signals(workload, Redactor()))) is not None:
        return None
    return Reads(runai, workload, now=now, since=evidence_since(workload, now=now, cutoff=cutoff))


def _with_gaps(report: Report, *gaps: Gap | None) -> Report:
    """`report` with gaps found before it was composed added to what was not measured."""
    found = [g.what for g in gaps if g is not None]
    if not found:
        return report
    return report.model_copy(update={"missing": tuple(dict.fromkeys((*found, *report.missing)))})


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
