"""Fetch helpers that turn an upstream failure into a recorded gap instead of an exception."""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from datetime import datetime
from typing import Generic, TypeVar

from diagnosis.errors import UpstreamError
from diagnosis.evidence import Gap
from diagnosis.runai.models import Event
from diagnosis.runai.reader import RunaiReader

__all__ = ["EVENTS", "Fetched", "fetch_events", "gather_gap"]

T = TypeVar("T")
EVENTS = "get_workload_events"


@dataclass(frozen=True)
class Fetched(Generic[T]):
    """A fetch result: the value, or None with the gap that says why it is missing."""

    value: T | None
    gap: Gap | None = None


def _describe(error: UpstreamError) -> str:
    status = f"HTTP {error.status}" if error.status is not None else type(error).__name__
    return f"{status}: {error.args[0]}"


async def gather_gap(source: str, what: str, call: Awaitable[T]) -> Fetched[T]:
    """Await `call`; an `UpstreamError` becomes `Gap(source, "<what> unavailable: ...")`."""
    try:
        return Fetched(await call)
    except UpstreamError as error:
        return Fetched(None, Gap(source=source, what=f"{what} unavailable ({_describe(error)})"))


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
            Gap(source=EVENTS, what="events unavailable (the API returned events: null)"),
        )
    return Fetched(tuple(fetched.value))
