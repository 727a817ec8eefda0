"""The simulator's calls, timed, and the level of each in the chain of calls a diagnosis waits on."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from bench.stats import Timed, chain_levels
from runai_sim.app import RecordedRequest, Simulator

__all__ = ["LATENCY_MS", "level", "timed_calls"]

#: Long enough that concurrent calls always overlap, even on a busy machine under coverage.
LATENCY_MS = 100


@contextmanager
def timed_calls() -> Iterator[list[Timed]]:
    """Every simulator call made inside the block, with when it started and ended."""
    calls: list[Timed] = []

    def observe(_: Simulator, entry: RecordedRequest) -> None:
        calls.append(Timed(entry.time.timestamp(), time.time(), entry.path))  # ended just now

    undo = Simulator.observe(observe)
    try:
        yield calls
    finally:
        undo()


def level(call: Timed, calls: list[Timed]) -> int:
    """1 + the longest chain of calls that ended before `call` started."""
    return 1 + chain_levels([c for c in calls if c.end <= call.start])
