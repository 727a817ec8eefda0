"""Step 1, Option B: resolve `workload_name` + `project` to exactly one workload, by intent.

Never guesses: no match is `not_found`, an unconfirmed symptom or a tie is `needs_input`
with the candidates listed, so the user (or the bot's buttons) can pick the workload ID.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime

from diagnosis.errors import InvalidRequest, NotFound
from diagnosis.fetch import Fetched, fetch_events
from diagnosis.phase import confirms
from diagnosis.redact import Redactor
from diagnosis.report import Outcome, Report, WorkloadRef
from diagnosis.request import DiagnosisRequest, Symptom
from diagnosis.runai.models import Event, Workload
from diagnosis.runai.reader import RunaiReader
from diagnosis.signals import events_signals, status_signals

__all__ = ["Resolved", "resolve_by_name", "workload_ref"]

TERMINAL = frozenset({"failed", "crashed", "stopped", "completed", "succeeded"})
ACTIVE = frozenset({"running", "pending"})
#: At most this many active candidates are inspected for a symptom (newest first).
MAX_ACTIVE_CANDIDATES = 10


@dataclass(frozen=True)
class Resolved:
    """The selected workload, with events when they were already fetched to confirm it."""

    workload: Workload
    events: Fetched[tuple[Event, ...]] | None = None


def workload_ref(workload: Workload) -> WorkloadRef:
    """The report's view of a workload."""
    return WorkloadRef(
        id=workload.id,
        name=workload.name,
        project=workload.project_name,
        cluster_id=workload.cluster_id,
        phase=workload.phase,
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


async def _confirm(
    runai: RunaiReader, candidate: Workload, symptom: Symptom, since: datetime
) -> Resolved | None:
    try:
        workload = await runai.get_workload(candidate.id)
    except NotFound:
        return None  # deleted between list and get: not a candidate any more
    events = await fetch_events(runai, workload.id, since)
    redactor = Redactor()
    signals = [*status_signals(workload, redactor), *events_signals(events.value or (), redactor)]
    return Resolved(workload, events) if confirms(symptom, signals) else None


async def resolve_by_name(
    request: DiagnosisRequest, runai: RunaiReader, *, cutoff: datetime
) -> Resolved | Report:
    """Select the workload named in the request, or explain why one cannot be selected."""
    if not (request.cluster_id and request.workload_name and request.project):
        raise InvalidRequest("resolving by name needs cluster_id, workload_name and project")
    name, project = request.workload_name, request.project
    matches = await runai.list_workloads(cluster_id=request.cluster_id, project=project, name=name)
    if not matches:
        return Report(
            outcome=Outcome.NOT_FOUND,
            headline=f"No workload named {name} in project {project} on this cluster.",
            missing=("workload",),
        )
    if request.symptom is None:
        terminal = [w for w in matches if (w.phase or "").lower() in TERMINAL]
        if not terminal:
            phases = ", ".join(sorted({w.phase or "unknown" for w in matches}))
            return _ask(
                f"{name} in {project} has no finished run (current phase: {phases}). "
                "Is it failing right now (crash loop, image pull, init, mount)? "
                "Or reply with the workload ID you meant.",
                matches,
            )
        tied = _ties(terminal)
        if len(tied) > 1:
            return _ask(
                f"{len(tied)} finished workloads named {name} in {project} match equally. "
                "Which one? Reply with its workload ID.",
                tied,
            )
        return Resolved(terminal[0])
    active = [w for w in matches if (w.phase or "").lower() in ACTIVE][:MAX_ACTIVE_CANDIDATES]
    checked = await asyncio.gather(*(_confirm(runai, w, request.symptom, cutoff) for w in active))
    confirmed = [c for c in checked if c is not None]
    if not confirmed:
        return _ask(
            f"None of the running or pending workloads named {name} in {project} shows "
            f"{request.symptom.value}. Which workload did you mean? Reply with its workload ID.",
            matches,
        )
    tied_ids = {w.id for w in _ties([c.workload for c in confirmed])}
    if len(tied_ids) > 1:
        return _ask(
            f"{len(tied_ids)} workloads named {name} in {project} show {request.symptom.value}. "
            "Which one? Reply with its workload ID.",
            [c.workload for c in confirmed if c.workload.id in tied_ids],
        )
    return confirmed[0]
