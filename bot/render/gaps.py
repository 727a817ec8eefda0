"""Where a CPU-memory series has no samples: its runs, which nothing may draw across.

Usage is scraped at a steady interval, so a step much longer than the series' usual one means
samples are missing (the pod was not running, or the metrics store lost them). Two consecutive
samples more than `GAP_FACTOR` times the series' median step apart have a gap between them:
at least two scrapes in a row are missing, which one late or lost scrape never causes. The
median is the lower middle step, so a series that is half gaps still finds them; a series of
fewer than three samples has no usual step to compare with, and no gap. The chart breaks its
line at a gap and the sparkline leaves a space: a line drawn across would show memory falling
slowly through hours nobody measured.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Sequence

from diagnosis import MemorySample

__all__ = ["GAP_FACTOR", "runs"]

GAP_FACTOR = 3
_MIN_SAMPLES = 3


def runs(samples: Sequence[MemorySample]) -> list[tuple[MemorySample, ...]]:
    """`samples` (oldest first) split at every gap: one run when nothing is missing."""
    if len(samples) < _MIN_SAMPLES:
        return [tuple(samples)] if samples else []
    steps = [(b.at - a.at).total_seconds() for a, b in itertools.pairwise(samples)]
    longest = GAP_FACTOR * statistics.median_low(steps)
    found: list[tuple[MemorySample, ...]] = []
    start = 0
    for index, step in enumerate(steps, start=1):
        if step > longest:
            found.append(tuple(samples[start:index]))
            start = index
    found.append(tuple(samples[start:]))
    return found
