"""`diagnose`: the runai-diagnose-failed-workload skill's Steps 1-5, read-only, deterministic.

resolve → status → access check → cluster guard → events ∥ (spec, pods, history) →
preemption routing → phase table → collect (then Kubernetes, metrics, nodes) → phase table
again, on the current run's signals → classify → compose. The only orchestrator, with
`diagnosis.examine` (the steps from the events on); every step below them is either a client
call or a pure function.

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

from diagnosis.access import AccessDenied, Authorize, access_of, may_read_department
from diagnosis.asker import for_asker
from diagnosis.errors import NotFound
from diagnosis.examine import early_reads, examine_workload
from diagnosis.fetch import DEFAULT_DEADLINE_S, EVIDENCE_WINDOW, deadline, within_deadline
from diagnosis.kube.reader import KubeConnector
from diagnosis.report import Outcome, Report
from diagnosis.request import DiagnosisRequest
from diagnosis.resolve import WAITING, Resolved, resolve_by_name, workload_ref
from diagnosis.runai.models import Workload
from diagnosis.runai.reader import RunaiReader
from diagnosis.sharing import Share, SharedLookups, report_key, shared_report
from diagnosis.stages import StageObserver, Stopwatch
from diagnosis.stops import needs_input
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


async def _reads_department(workload: Workload, authorize: Authorize | None) -> bool:
    """Whether this asker's answer may read the workload's department (its quota and usage).

    Those sum other projects': only an asker who may read the department gets them (everyone
    without a per-asker check). Asked only where a Pending answer could read them: for any
    other phase it is False for everyone, so it never splits the report they share.
    """
    if (workload.phase or "").lower() not in WAITING:  # only a Pending answer reads a department
        return False
    return await may_read_department(authorize, workload.cluster_id, workload.department_id)


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

    # A department's figures sum other projects': read only for an asker who may see them.
    department = await _reads_department(workload, authorize)

    async def examine() -> Report:
        early = early_reads(runai, workload, now=now, cutoff=cutoff)
        try:
            return await examine_workload(
                request,
                resolved,
                runai=runai,
                kube=kube,
                now=now,
                cutoff=cutoff,
                watch=watch,
                early=early,
                read_department=department,
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
            key = report_key(request, workload, tier2=kube is not None, department=department)
            report = await shared_report(share, key, examine)
            if report.workload is not None and report.workload.id != workload.id:
                log.warning("shared_report_mismatch", workload_id=workload.id)
                report = await examine()  # never show an asker a report about another workload
        # What it names about other workloads and departments is cut to what this asker may read.
        report = await for_asker(report, authorize)
        with watch.stage("collect"):
            return await around.add(report)
    finally:
        around.cancel()
