"""One request's trace: its request ID, stage timings and upstream calls, and what it logs.

A request ID is made where a request comes in (`begin_request`: the Slack route, the CLI)
and bound with structlog's contextvars under the key `request_id`, so every log line of the
request carries it; the trace rides along in a context variable, which asyncio copies into
every task the request starts. `observe_stage` records a stage's time in `STAGE_SECONDS`
and in the trace; `record_diagnosis` counts the diagnosis and writes its one canonical log
line, `diagnosis_finished`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import structlog

from bot.ops.metrics import DIAGNOSES, REDACTIONS, STAGE_SECONDS, STAGES
from diagnosis import Report

__all__ = [
    "CANONICAL_EVENT",
    "REQUEST_ID",
    "ReplyClock",
    "Trace",
    "begin_request",
    "current_trace",
    "observe_stage",
    "record_diagnosis",
    "timed",
]

#: The structlog contextvars key the request ID is bound under (the queue carries it on).
REQUEST_ID = "request_id"
#: The canonical log line: one per diagnosis.
CANONICAL_EVENT = "diagnosis_finished"
#: `DIAGNOSES` outcomes for diagnoses that ended without a report.
UPSTREAM_ERROR = "upstream_error"


@dataclass
class Trace:
    """What one request did so far.

    `shared` is how it was answered from another's diagnosis (`flight`, `cache`), None
    when it ran its own.
    """

    request_id: str
    started: float = field(default_factory=time.perf_counter)
    timings: dict[str, float] = field(default_factory=dict)
    upstream_calls: int = 0
    shared: str | None = None


_TRACE: ContextVar[Trace | None] = ContextVar("runai_why_trace", default=None)


def begin_request(request_id: str | None = None) -> Trace:
    """Start the current context's trace (a new ID unless given) and bind its ID for logs."""
    trace = Trace(request_id or uuid.uuid4().hex)
    _TRACE.set(trace)
    structlog.contextvars.bind_contextvars(**{REQUEST_ID: trace.request_id})
    return trace


def current_trace() -> Trace | None:
    """The current request's trace, or None outside a request."""
    return _TRACE.get()


def observe_stage(stage: str, seconds: float) -> None:
    """Record `seconds` spent in `stage` (one of `STAGES`), in the metric and the trace."""
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}; stages are {', '.join(STAGES)}")
    STAGE_SECONDS.labels(stage=stage).observe(seconds)
    trace = _TRACE.get()
    if trace is not None:
        trace.timings[stage] = trace.timings.get(stage, 0.0) + seconds


@contextmanager
def timed(stage: str) -> Iterator[None]:
    """Time the block as `stage` (see `observe_stage`)."""
    started = time.perf_counter()
    try:
        yield
    finally:
        observe_stage(stage, time.perf_counter() - started)


class ReplyClock:
    """Times showing one report: `render` (building the messages) and `post` (the rest)."""

    def __init__(self) -> None:
        self._started = time.perf_counter()
        self._render = 0.0

    @contextmanager
    def rendering(self) -> Iterator[None]:
        """Time the block as rendering."""
        started = time.perf_counter()
        try:
            yield
        finally:
            self._render += time.perf_counter() - started

    def done(self) -> None:
        """Record both stages: render, and everything else since the clock started as post."""
        total = time.perf_counter() - self._started
        observe_stage("render", self._render)
        observe_stage("post", max(0.0, total - self._render))


def record_diagnosis(
    report: Report | None,
    *,
    failed: str | None,
    seconds: float,
    fields: dict[str, Any],
) -> None:
    """Count one finished diagnosis and log its canonical line.

    `report` is None when a call the diagnosis needs failed (`failed` names it). `fields`
    are the platform-neutral ids of who asked where (platform, team, channel, user, cluster).
    `seconds` is the diagnosis's own time; `total_ms` in the line runs from the request's
    arrival (its trace) to now, after the answer was shown.
    """
    outcome = report.outcome.value if report else UPSTREAM_ERROR
    category = report.category.value if report and report.category else "none"
    DIAGNOSES.labels(outcome=outcome, category=category).inc()
    redactions = report.redactions if report else 0
    if redactions:
        REDACTIONS.inc(redactions)
    trace = _TRACE.get()
    timings = dict(trace.timings) if trace else {}
    structlog.get_logger(__name__).info(
        CANONICAL_EVENT,
        **fields,
        **({REQUEST_ID: trace.request_id} if trace else {}),
        workload_id=report.workload.id if report and report.workload else None,
        outcome=outcome,
        category=None if category == "none" else category,
        failed_call=failed,
        stages_ms={k: round(v * 1000, 1) for k, v in timings.items()},
        upstream_calls=trace.upstream_calls if trace else None,
        gaps=len(report.missing) if report else 0,
        redactions=redactions,
        shared=trace.shared if trace else None,
        diagnosis_ms=round(seconds * 1000, 1),
        total_ms=round((time.perf_counter() - trace.started) * 1000, 1) if trace else None,
    )
