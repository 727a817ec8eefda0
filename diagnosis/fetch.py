"""Fetch helpers: an upstream failure, or the diagnosis deadline, becomes a gap, not an error.

The diagnosis deadline (`deadline`) is one point in time shared by every call of one
diagnosis: a call still running when it passes is cancelled and recorded as
"<what> unavailable (no answer before the N s diagnosis deadline)", so one hung endpoint
cannot hold the answer back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Generic, TypeVar

from diagnosis.errors import PartialHistory, UpstreamError, UpstreamTimeout
from diagnosis.evidence import Gap
from diagnosis.runai.models import Event, HistoryRecord, Workload
from diagnosis.runai.reader import RunaiReader

__all__ = [
    "DEFAULT_DEADLINE_S",
    "EVENTS",
    "EVIDENCE_WINDOW",
    "HISTORY",
    "DeadlinePassed",
    "Fetched",
    "cause",
    "deadline",
    "describe",
    "evidence_since",
    "fetch_events",
    "fetch_history",
    "gap_for",
    "gather_gap",
    "ready",
    "within_deadline",
]

T = TypeVar("T")
EVENTS = "get_workload_events"
HISTORY = "get_workload_history"
#: How long one diagnosis may take before it answers with what it has.
DEFAULT_DEADLINE_S = 30.0
#: How far before the failure its own evidence (events, history, metrics) is read.
EVIDENCE_WINDOW = timedelta(hours=24)

#: (loop time at which the diagnosis deadline passes, its length in seconds) or None.
_DEADLINE: ContextVar[tuple[float, float] | None] = ContextVar("diagnosis_deadline", default=None)


@dataclass(frozen=True)
class Fetched(Generic[T]):
    """A fetch result: the value, or None with the gap that says why it is missing.

    A partial read has both a value (what was read) and a gap (what was not).
    """

    value: T | None
    gap: Gap | None = None


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Within this block, every `within_deadline` call ends `seconds` from now at the latest."""
    token = _DEADLINE.set((asyncio.get_running_loop().time() + seconds, seconds))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


class DeadlinePassed(UpstreamTimeout):
    """The call was still running when the diagnosis deadline passed."""


async def within_deadline(call: Awaitable[T], operation: str) -> T:
    """Await `call`, cancelled at the diagnosis deadline (then `DeadlinePassed`)."""
    current = _DEADLINE.get()
    if current is None:
        return await call
    when, seconds = current
    try:
        async with asyncio.timeout_at(when):
            return await call
    except TimeoutError:
        raise DeadlinePassed(
            f"no answer before the {seconds:g} s diagnosis deadline", operation=operation, url=""
        ) from None


def describe(error: UpstreamError) -> str:
    """`HTTP 403: <message>`, or the error's class name when no response arrived."""
    if isinstance(error, DeadlinePassed):
        return str(error.args[0])
    status = f"HTTP {error.status}" if error.status is not None else type(error).__name__
    return f"{status}: {error.args[0]}"


def cause(error: UpstreamError) -> str:
    """The short reason a call failed: `HTTP 403`, `a malformed response`, `no answer in time`."""
    if isinstance(error, DeadlinePassed):
        return "no answer before the diagnosis deadline"
    if "not the documented shape" in str(error.args[0]):
        return "a malformed response"
    if error.status is not None:
        return f"HTTP {error.status}"
    if isinstance(error, UpstreamTimeout):
        return "no answer in time"
    return "unreachable"


def gap_for(source: str, what: str, error: UpstreamError) -> Gap:
    """`Gap(source, "<what> unavailable (<why>)")` for a failed call."""
    return Gap(source=source, what=f"{what} unavailable ({describe(error)})", cause=cause(error))


async def gather_gap(source: str, what: str, call: Awaitable[T]) -> Fetched[T]:
    """Await `call`; an `UpstreamError` becomes `Gap(source, "<what> unavailable: ...")`."""
    try:
        return Fetched(await within_deadline(call, source))
    except UpstreamError as error:
        return Fetched(None, gap_for(source, what, error))


def evidence_since(workload: Workload, *, now: datetime, cutoff: datetime) -> datetime:
    """Where a failure's own evidence starts: the lookback, or a day before the failure.

    The lookback bounds recurrence; the failure itself is read in full even when it is
    older than the lookback (a Friday failure asked about on Monday keeps its evidence).
    """
    return min(cutoff, (workload.phase_updated_at or now) - EVIDENCE_WINDOW)


async def fetch_events(
    runai: RunaiReader, workload_id: str, since: datetime
) -> Fetched[tuple[Event, ...]]:
    """Recent events; `events: null` and a failed call are both a gap, never "no events"."""
    fetched = await gather_gap(EVENTS, "events", runai.list_events(workload_id, since=since))
    if fetched.gap is not None:
        return Fetched(None, fetched.gap)
    if fetched.value is None:
        return Fetched(
            None,
            Gap(
                source=EVENTS,
                what="events unavailable (the API returned events: null)",
                cause="the API returned events: null",
            ),
        )
    return Fetched(tuple(fetched.value))


async def fetch_history(
    runai: RunaiReader, workload_id: str, since: datetime
) -> Fetched[list[HistoryRecord]]:
    """History since `since`; past the read cap, what was read is kept and the rest is a gap."""
    try:
        records = await within_deadline(runai.get_history(workload_id, cutoff=since), HISTORY)
    except PartialHistory as partial:
        what = (
            f"history {partial.missing} unavailable ({partial.args[0]}; "
            f"the {len(partial.records)} records within the lookback that were read are used)"
        )
        return Fetched(list(partial.records), Gap(source=HISTORY, what=what, cause="too long"))
    except UpstreamError as error:
        return Fetched(None, gap_for(HISTORY, "history", error))
    return Fetched(records)


async def ready(value: T) -> T:
    """`value` as an awaitable, to gather beside reads when it is already known."""
    return value
