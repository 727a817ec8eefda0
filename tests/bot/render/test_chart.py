"""The memory chart, rendered for real: its size, that it draws, and where the lines fall.

The PNG is decoded and its pixels read: the limit line must sit on the row the data puts it
on, the request line likewise, and the usage line must reach the peak's row.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from matplotlib import image
from matplotlib.colors import to_rgb

from bot.render.chart import (
    AXES_BOX,
    HEIGHT_PX,
    LIMIT_COLOUR,
    REQUEST_COLOUR,
    USAGE_COLOUR,
    WIDTH_PX,
    data_row,
    memory_chart,
)
from diagnosis import MemoryFigures, MemorySample

GIB = 1024**3
START = datetime(2025, 11, 4, 0, 0, tzinfo=UTC)


def figures(values_gib, *, limit=None, request=None, step_min=10) -> MemoryFigures:
    series = tuple(
        MemorySample(at=START + timedelta(minutes=i * step_min), usage_bytes=int(v * GIB))
        for i, v in enumerate(values_gib)
    )
    return MemoryFigures(
        request_bytes=None if request is None else int(request * GIB),
        limit_bytes=None if limit is None else int(limit * GIB),
        peak_bytes=max(s.usage_bytes for s in series) if series else None,
        samples=series,
    )


def drawn(memory: MemoryFigures) -> bytes:
    """The PNG of `memory`'s chart; the test fails when there is none."""
    chart = memory_chart(memory, workload="w")
    assert chart is not None, "no chart drawn"
    return chart.png


def pixels(png: bytes) -> np.ndarray:
    """RGB floats, rows from the top."""
    return np.asarray(image.imread(io.BytesIO(png), format="png"))[..., :3]


def rows_of(rgb: np.ndarray, colour: str, *, share: float = 0.15) -> list[int]:
    """Rows of the plot area where at least `share` of the pixels have `colour`."""
    left, _, width, _ = AXES_BOX
    x0, x1 = int(WIDTH_PX * left) + 2, int(WIDTH_PX * (left + width)) - 2
    close = np.all(np.abs(rgb[:, x0:x1] - np.array(to_rgb(colour))) < 0.08, axis=2)
    return [int(r) for r in np.nonzero(close.mean(axis=1) >= share)[0]]


def test_the_chart_is_a_png_of_the_fixed_size():
    chart = memory_chart(figures([4, 8, 16, 30], limit=32, request=16), workload="train")
    assert chart is not None
    assert chart.png.startswith(b"\x89PNG\r\n\x1a\n")
    assert pixels(chart.png).shape == (HEIGHT_PX, WIDTH_PX, 3)
    assert chart.title == "CPU memory of train"


@pytest.mark.parametrize(
    ("values", "limit", "reserved"),
    [
        ([4, 8, 16, 31.6], 32, 16),  # an OOM: usage climbs to the limit.
        ([2, 2.5, 3, 2.8], 16, 4),  # far below the limit.
        ([10, 30, 50, 45], 40, 20),  # usage above the limit (axis grows to the peak).
        ([0.2, 0.3, 0.25], 0.5, 0.25),  # well under a GiB.
    ],
)
def test_the_limit_and_request_lines_sit_where_the_data_puts_them(values, limit, reserved):
    memory = figures(values, limit=limit, request=reserved)
    rgb = pixels(drawn(memory))
    for value, colour in ((limit, LIMIT_COLOUR), (reserved, REQUEST_COLOUR)):
        rows = rows_of(rgb, colour)
        assert rows, f"no {colour} line found"
        assert abs(float(np.mean(rows)) - data_row(int(value * GIB), memory)) <= 1.5


@pytest.mark.parametrize("values", [[4, 8, 16, 31.6], [31.6, 8, 4], [1, 12, 3, 12, 2]])
def test_the_usage_line_reaches_the_peak_row_and_no_higher(values):
    memory = figures(values, limit=40)
    rgb = pixels(drawn(memory))
    top_row = min(rows_of(rgb, USAGE_COLOUR, share=0.0015))  # any usage pixel at all.
    assert abs(top_row - data_row(int(max(values) * GIB), memory)) <= 2.5


def test_without_limit_or_request_only_usage_is_drawn():
    rgb = pixels(drawn(figures([1, 2, 3])))
    assert rows_of(rgb, LIMIT_COLOUR) == []
    assert rows_of(rgb, REQUEST_COLOUR) == []
    assert rows_of(rgb, USAGE_COLOUR, share=0.0015)


def test_a_single_sample_still_draws():
    chart = memory_chart(figures([5], limit=8), workload="w")
    assert chart is not None
    assert rows_of(pixels(chart.png), USAGE_COLOUR, share=0.0015)


@pytest.mark.parametrize("memory", [None, figures([])])
def test_no_series_no_chart(memory):
    assert memory_chart(memory, workload="w") is None


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("$x^2$ \\frac{1}{0}", "$x^2$ \\frac{1}{0}"),  # never parsed as mathtext.
        ("evil\u202ename\x1b[2J", "evilname[2J"),
        ("two\nlines", "two lines"),
        ("", "the workload"),
    ],
)
def test_upstream_names_cannot_break_the_chart(name, shown):
    chart = memory_chart(figures([1, 2], limit=4, request=2), workload=name)
    assert chart is not None
    assert chart.title == f"CPU memory of {shown}"
    assert chart.alt_text == (
        f"CPU memory of {shown} from 2025-11-04 00:00Z to 2025-11-04 00:10Z: peak 2 GiB, "
        "limit 4 GiB, request 2 GiB"
    )


def test_askers_of_one_diagnosis_share_its_drawn_chart():
    memory = figures([4, 8, 16, 30], limit=32)
    first = memory_chart(memory, workload="train")
    # Equal figures (a shared report read back from Redis) are drawn once.
    again = memory_chart(
        MemoryFigures.model_validate_json(memory.model_dump_json()), workload="train"
    )
    other = memory_chart(memory, workload="eval")
    assert first is again
    assert other is not None
    assert other is not first
    assert other.title == "CPU memory of eval"
