"""Stage timings of one diagnosis, told to an optional observer; metrics live with the caller.

`diagnose(..., observe=...)` calls `observe(stage, seconds)` once per stage it ran, in order,
when the diagnosis ends: `resolve` (find the workload and check access), `collect` (events
and every evidence source, concurrently), `classify` (phase routing, rules and the report).
A stage that ended the diagnosis early, or raised, is still reported; stages never reached
are not.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

__all__ = ["STAGE_NAMES", "StageObserver", "Stopwatch"]

#: The stages `diagnose` reports, in the order they run.
STAGE_NAMES = ("resolve", "collect", "classify")


class StageObserver(Protocol):
    """Told how long one stage of a diagnosis took."""

    def __call__(self, stage: str, seconds: float, /) -> None:
        """Record `seconds` spent in `stage`."""


class Stopwatch:
    """Adds up time per named stage; `report` tells `observe` (if any) each stage's total."""

    def __init__(self, observe: StageObserver | None) -> None:
        self._observe = observe
        self._totals: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time the block as (part of) stage `name`."""
        started = time.perf_counter()
        try:
            yield
        finally:
            elapsed = time.perf_counter() - started
            self._totals[name] = self._totals.get(name, 0.0) + elapsed

    def report(self) -> None:
        """Tell the observer every stage's total, in the order the stages first ran."""
        if self._observe is not None:
            for name, seconds in self._totals.items():
                self._observe(name, seconds)
