"""The one-line memory sparkline shared by the console, the CLI and chat fallbacks."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.render.sparkline import MAX_WIDTH, gib, memory_sparkline, sparkline
from diagnosis import MemoryFigures, MemorySample

GIB = 1024**3
START = datetime(2025, 11, 4, 0, 18, tzinfo=UTC)


@pytest.mark.parametrize(
    ("values", "top", "line"),
    [
        ([0, 1, 2, 3, 4, 5, 6, 7], 7, "▁▂▃▄▅▆▇█"),
        ([7, 7], 7, "██"),
        ([7], 14, "▅"),  # half the limit.
        ([20], 10, "█"),  # above the top stays the full bar.
        ([], 10, ""),
        ([5], 0, ""),
    ],
)
def test_sparkline(values, top, line):
    assert sparkline(values, top) == line


def test_long_series_keep_every_spike():
    values = [0] * 400
    values[123] = 100
    line = sparkline(values, 100)
    assert len(line) == MAX_WIDTH
    assert line.count("█") == 1  # the spike survives the reduction.


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "not read"),  # a figure nobody read is a gap, never "not set"
        (32 * GIB, "32 GiB"),
        (int(31.6 * GIB), "31.6 GiB"),
        (GIB // 2, "0.5 GiB"),
        (GIB // 4, "0.25 GiB"),  # not "0.2": a quarter is shown as one
        (GIB + GIB // 4, "1.3 GiB"),  # halves round up, never down
        (int(0.049 * GIB), "0.049 GiB"),
        (0, "0 GiB"),
    ],
)
def test_gib(value, shown):
    assert gib(value) == shown
    assert gib(value, read=True) == ("not set" if value is None else shown)


@pytest.mark.parametrize(
    ("limit", "requested", "read", "shown"),
    [
        (None, None, False, "limit not read, request not read"),
        (None, None, True, "limit not set, request not set"),
        (32 * GIB, None, True, "limit 32 GiB, request not set"),
        (32 * GIB, 16 * GIB, True, "limit 32 GiB, request 16 GiB"),
    ],
)
def test_the_sparkline_says_not_set_only_of_a_figure_read(limit, requested, read, shown):
    memory = MemoryFigures(
        request_bytes=requested,
        limit_bytes=limit,
        peak_bytes=8 * GIB,
        samples=(MemorySample(at=START, usage_bytes=8 * GIB),),
        configured_read=read,
    )
    line = memory_sparkline(memory)
    assert line is not None
    assert line.endswith(f"peak 8 GiB, {shown}")


def test_memory_sparkline_names_the_window_and_the_figures():
    series = tuple(
        MemorySample(at=START + timedelta(minutes=10 * i), usage_bytes=v * GIB)
        for i, v in enumerate([4, 16, 32])
    )
    memory = MemoryFigures(
        request_bytes=16 * GIB, limit_bytes=32 * GIB, peak_bytes=32 * GIB, samples=series
    )
    assert memory_sparkline(memory) == (
        "CPU memory 2025-11-04 00:18:00Z to 2025-11-04 00:38:00Z: ▂▅█ peak 32 GiB, limit 32 GiB, "
        "request 16 GiB"
    )


@pytest.mark.parametrize(
    "memory",
    [None, MemoryFigures(request_bytes=1, limit_bytes=2, peak_bytes=None)],
)
def test_no_series_no_sparkline(memory):
    assert memory_sparkline(memory) is None


def test_missing_samples_leave_a_space_in_the_line():
    minutes = [0, 1, 2, 3, 60, 61, 62]  # nothing was scraped for most of an hour
    series = tuple(
        MemorySample(at=START + timedelta(minutes=m), usage_bytes=v * GIB)
        for m, v in zip(minutes, [4, 8, 16, 32, 2, 2, 2], strict=True)
    )
    memory = MemoryFigures(
        request_bytes=None, limit_bytes=32 * GIB, peak_bytes=32 * GIB, samples=series
    )
    line = memory_sparkline(memory) or ""
    bars = line.split(": ", 1)[1].split(" peak", 1)[0]
    assert bars == "▂▃▅█ ▁▁▁"
