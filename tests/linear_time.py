"""Holding a function of untrusted text to linear time: its CPU time against a linear scan.

Both are measured in CPU time of this thread (another process's load does not count), with
the collector off, as the best of a few runs; a bound is missed only if it is missed again
when measured more carefully. Tests calibrate the bound on ordinary input, measured in the
same test, so a slower machine moves both sides: the point is to catch a quadratic blow-up
(10x to 100x past the bound at the sizes tested), never to time micro-differences.
"""

from __future__ import annotations

import gc
import re
import statistics
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

import pytest

from bench.parsing import repeated

__all__ = ["FLOOR_S", "assert_grows_linearly", "assert_linear", "linear_scan", "ratio", "repeated"]

#: Fixed costs (a parse makes some thirty regex calls) dominate a short text's ratio.
FLOOR_S = 0.002
_SCAN = re.compile(r"\b(?:the|in|on)\b", re.IGNORECASE)
_PUNCTUATION = ".,;:!?\"'()[]*_~<>"

Work = Callable[[str], object]


def linear_scan(text: str) -> int:
    """One linear pass of the kind text handling makes: every word, a case-blind regex pass."""
    words = [w.strip(_PUNCTUATION).lower() for w in text.split()]
    return len(words) + len(_SCAN.findall(text))


@contextmanager
def _collector_off() -> Iterator[None]:
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _cpu_s(work: Work, text: str, runs: int) -> float:
    """The least CPU time of this thread over `runs` runs of `work(text)`."""
    best = float("inf")
    with _collector_off():
        for _ in range(runs):
            started = time.thread_time()
            work(text)
            best = min(best, time.thread_time() - started)
    return best


def _measured(work: Work, text: str, runs: int) -> tuple[float, float]:
    """CPU seconds of `work(text)`, and of a linear scan of `text`."""
    return _cpu_s(work, text, runs), _cpu_s(linear_scan, text, 2 * runs)


def ratio(work: Work, ordinary: Iterable[str]) -> float:
    """The median of `work`'s time over a linear scan's, on ordinary texts."""
    ratios = [spent / scanned for spent, scanned in (_measured(work, t, 5) for t in ordinary)]
    return statistics.median(ratios)


def assert_linear(work: Work, text: str, allowed: float) -> None:
    """`work(text)` within `allowed` times a linear scan of `text` (plus `FLOOR_S`)."""
    for runs in (3, 9):
        spent, scanned = _measured(work, text, runs)
        if spent <= allowed * scanned + FLOOR_S:
            return
    pytest.fail(
        f"{len(text)} characters ({text[:60]!r}…) took {spent * 1000:.1f} ms of CPU, "
        f"{spent / scanned:.0f}x a linear scan's {scanned * 1000:.2f} ms (allowed {allowed:.0f}x)"
    )


def assert_grows_linearly(work: Work, text_of: Callable[[int], str], size: int) -> None:
    """`work` on a text four times as long takes at most eight times as long (plus `FLOOR_S`).

    For work that is linear but costly per character on some input (a Python check on every
    candidate match), where a ratio to a plain scan says little: a quadratic cost grows 16x.
    """
    small, large = text_of(size), text_of(4 * size)
    for runs in (3, 9):
        before, after = _cpu_s(work, small, runs), _cpu_s(work, large, runs)
        if after <= 8 * before + FLOOR_S:
            return
    pytest.fail(
        f"{len(large)} characters ({large[:60]!r}…) took {after * 1000:.1f} ms of CPU, "
        f"{after / before:.1f}x the {before * 1000:.1f} ms of a quarter as many (allowed 8x)"
    )
