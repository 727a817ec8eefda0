"""Step 1, Option B: resolve `workload_name` + `project` to exactly one workload, by intent.

Never guesses: no match, an unconfirmed symptom or a tie is `needs_input` with the
candidates listed, so the user (or the bot's buttons) can pick the workload ID. With no
match, the candidates are near matches by name in the same project and cluster, never in
another cluster.
"""

from __future__ import annotations

import asyncio
import difflib
from dataclasses import dataclass, replace
from datetime import datetime

from diagnosis.access import Authorize, readable
from diagnosis.errors import InvalidRequest, NotFound, UpstreamError
from diagnosis.fetch import Fetched, evidence_since, fetch_events, within_deadline
from diagnosis.phase import confirms
from diagnosis.redact import Redactor
from diagnosis.report import Outcome, Report
from diagnosis.report_parts import WorkloadRef
from diagnosis.request import DiagnosisRequest, Symptom
from diagnosis.runai.models import Event, Workload
from diagnosis.runai.reader import RunaiReader
from diagnosis.signals import events_signals, status_signals

__all__ = ["WAITING", "Resolved", "resolve_by_name", "workload_ref"]

TERMINAL = frozenset({"failed", "crashed", "stopped", "completed", "succeeded"})
ACTIVE = frozenset({"running", "pending"})
#: A "why is it pending?" question is about a workload in one of these phases.
WAITING = frozenset({"pending", "initializing", "creating"})
#: At most this many active candidates are inspected for a symptom (newest first).
MAX_ACTIVE_CANDIDATES = 10
#: At most this many near matches are offered when no workload has the name.
MAX_NEAR_MATCHES = 3
#: How similar (difflib ratio) a name must be to be offered as a near match.
NEAR_MATCH_RATIO = 0.6


@dataclass(frozen=True)
class Resolved:
    """The selected workload, with events when they were already fetched to confirm it.

    `submissions` are the workloads of its name the asker may read, when resolution listed
    them (by name): what changed since the last good run is looked for among them.
    """

    workload: Workload
    events: Fetched[tuple[Event, ...]] | None = None
    submissions: tuple[Workload, ...] | None = None


def workload_ref(workload: Workload) -> WorkloadRef:
    """The report's view of a workload."""
    return WorkloadRef(
        id=workload.id,
        name=workload.name,
        project=workload.project_name,
        cluster_id=workload.cluster_id,
        phase=workload.phase,
        kind=workload.type,
        namespace=workload.namespace,
        submitted_at=workload.created_at,
        phase_updated_at=workload.phase_updated_at,
    )


def _ask(question: str, candidates: list[Workload]) -> Report:
    return Report(
        outcome=Outcome.NEEDS_INPUT,
        headline=question,
        question=question,
        candidates=tuple(workload_ref(w) for w in candidates),
        missing=("workload_id",),
    )


def _ties(matches: list[Workload]) -> list[Workload]:
    first = matches[0].phase_updated_at
    return [w for w in matches if w.phase_updated_at == first]


def near_matches(name: str, workloads: list[Workload]) -> list[Workload]:
    """The newest workload of each name like `name` (close spelling or containing it)."""
    newest: dict[str, Workload] = {}
    for workload in workloads:  # newest first
        newest.setdefault(workload.name, workload)
    wanted = name.casefold()
    scored = []
    for other, workload in newest.items():
        folded = other.casefold()
        contains = wanted in folded or folded in wanted
        similar = difflib.SequenceMatcher(None, wanted, folded)
        # ratio() is quadratic in the lengths (the name is the asker's); quick_ratio() bounds
        # it from above in linear time, so a name that cannot be near is never compared.
        if not contains and similar.quick_ratio() < NEAR_MATCH_RATIO:
            continue
        ratio = similar.ratio()
        if ratio >= NEAR_MATCH_RATIO or contains:
            scored.append((-ratio, other, workload))
    return [w for _, _, w in sorted(scored, key=lambda t: (t[0], t[1]))[:MAX_NEAR_MATCHES]]


async def _no_match(
    runai: RunaiReader, *, cluster: str, project: str, name: str, authorize: Authorize | None
) -> Report:
    """No matching candidate is a question (the skill asks), with near matches by name if any."""
    try:
        listed = await within_deadline(
            runai.list_project_workloads(cluster_id=cluster, project=project), "list_workloads"
        )
    except UpstreamError:
        listed = []  # suggestions are a courtesy; the question stands without them
    mine = await readable((w for w in listed if w.cluster_id == cluster), authorize)
    near = near_matches(name, mine)
    question = f"No workload named {name} in project {project} on this cluster."
    if near:
        names = ", ".join(w.name for w in near)
        question += f" Did you mean {names}?"
    else:
        question += " Which workload did you mean?"
    return _ask(question, near)


async def _confirm(
    runai: RunaiReader, candidate: Workload, symptom: Symptom, *, now: datetime, cutoff: datetime
) -> Resolved | str | None:
    """The candidate if it shows `symptom`; the events gap's cause if it could not be checked."""
    try:
        workload = await within_deadline(runai.get_workload(candidate.id), "get_workload_status")
    except NotFound:
        return None  # deleted between list and get: not a candidate any more
    since = evidence_since(workload, now=now, cutoff=cutoff)
    events = await fetch_events(runai, workload.id, since)
    redactor = Redactor()
    signals = [*status_signals(workload, redactor), *events_signals(events.value or (), redactor)]
    if confirms(symptom, signals):
        return Resolved(workload, events)
    return (events.gap.cause or "unavailable") if events.gap is not None else None


def _waiting(name: str, project: str, matches: list[Workload]) -> Resolved | Report:
    """A Pending question picks the newest match that is still waiting to run."""
    waiting = [w for w in matches if (w.phase or "").lower() in WAITING]
    if not waiting:
        phases = ", ".join(sorted({w.phase or "unknown" for w in matches}))
        return _ask(
            f"No workload named {name} in {project} is waiting to run (current phase: "
            f"{phases}). Which workload did you mean?",
            matches,
        )
    tied = _ties(waiting)
    if len(tied) > 1:
        return _ask(
            f"{len(tied)} workloads named {name} in {project} are waiting to run. Which one?",
            tied,
        )
    return Resolved(waiting[0], submissions=tuple(matches))


async def resolve_by_name(
    request: DiagnosisRequest,
    runai: RunaiReader,
    *,
    now: datetime,
    cutoff: datetime,
    authorize: Authorize | None = None,
) -> Resolved | Report:
    """Select the workload named in the request, or explain why one cannot be selected.

    Workloads `authorize` refuses are not candidates: they are neither used nor listed.
    """
    if not (request.cluster_id and request.workload_name and request.project):
        raise InvalidRequest("resolving by name needs cluster_id, workload_name and project")
    name, project = request.workload_name, request.project
    matches = await within_deadline(
        runai.list_workloads(cluster_id=request.cluster_id, project=project, name=name),
        "list_workloads",
    )
    matches = await readable(matches, authorize)
    if not matches:
        return await _no_match(
            runai, cluster=request.cluster_id, project=project, name=name, authorize=authorize
        )
    if request.symptom is None:
        terminal = [w for w in matches if (w.phase or "").lower() in TERMINAL]
        if not terminal:
            phases = ", ".join(sorted({w.phase or "unknown" for w in matches}))
            return _ask(
                f"{name} in {project} has no finished run (current phase: {phases}). "
                "Is it failing right now (crash loop, image pull, init, mount)? "
                "Or did you mean another run?",
                matches,
            )
        tied = _ties(terminal)
        if len(tied) > 1:
            return _ask(
                f"{len(tied)} finished workloads named {name} in {project} match equally. "
                "Which one?",
                tied,
            )
        return Resolved(terminal[0], submissions=tuple(matches))
    if request.symptom is Symptom.PENDING:
        return _waiting(name, project, matches)
    active = [w for w in matches if (w.phase or "").lower() in ACTIVE][:MAX_ACTIVE_CANDIDATES]
    checked = await asyncio.gather(
        *(_confirm(runai, w, request.symptom, now=now, cutoff=cutoff) for w in active)
    )
    confirmed = [c for c in checked if isinstance(c, Resolved)]
    unchecked = sorted({c for c in checked if isinstance(c, str)})
    if not confirmed:
        lost = ""
        if unchecked:  # lost events are not "does not show it"
            lost = (
                f" For {sum(isinstance(c, str) for c in checked)} of them the events were "
                f"unavailable ({', '.join(unchecked)}), so it could not be checked there."
            )
        return _ask(
            f"None of the running or pending workloads named {name} in {project} shows "
            f"{request.symptom.value} in its status or events.{lost} Which workload did you "
            "mean?",
            matches,
        )
    tied_ids = {w.id for w in _ties([c.workload for c in confirmed])}
    if len(tied_ids) > 1:
        return _ask(
            f"{len(tied_ids)} workloads named {name} in {project} show {request.symptom.value}. "
            "Which one?",
            [c.workload for c in confirmed if c.workload.id in tied_ids],
        )
    return replace(confirmed[0], submissions=tuple(matches))
