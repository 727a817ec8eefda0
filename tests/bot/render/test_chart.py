"""The memory chart, rendered for real: its size, where the lines fall, and that it tells the truth.

The PNG is decoded and its pixels read: the limit and request lines sit on the rows the data
puts them on, the usage line reaches the peak's row from an axis that starts at zero, a gap
with no samples is a break in the line, a request equal to the limit is one line labelled
once, no label lies on the plot area, and the OOM kill is a line at its own column.
"""

from __future__ import annotations

import hashlib
import io
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from PIL import Image, ImageChops, ImageColor

from bot.render.chart import (
    GAP_COLOUR,
    HEIGHT_PX,
    KILL_COLOUR,
    LEGEND_BOX,
    LIMIT_COLOUR,
    PLOT_BOX,
    REQUEST_COLOUR,
    TEXT_COLOUR,
    USAGE_COLOUR,
    WIDTH_PX,
    data_column,
    data_row,
    legend,
    memory_chart,
)
from diagnosis import MemoryFigures, MemorySample

GIB = 1024**3
START = datetime(2025, 11, 4, 0, 0, tzinfo=UTC)
LEFT, TOP, RIGHT, BOTTOM = PLOT_BOX
SOFT = 60  # a line's softened edge pixel is at least three quarters its colour.


def figures(values_gib, *, limit=None, request=None, step_min=10, killed_min=None, gaps=()):
    """A series `step_min` apart, shifted by the (after index, minutes) `gaps` given."""
    shift = dict(gaps)
    minutes, series = 0.0, []
    for i, v in enumerate(values_gib):
        minutes += shift.get(i, 0)
        series.append(MemorySample(at=START + timedelta(minutes=minutes), usage_bytes=int(v * GIB)))
        minutes += step_min
    return MemoryFigures(
        request_bytes=None if request is None else int(request * GIB),
        limit_bytes=None if limit is None else int(limit * GIB),
        peak_bytes=max(s.usage_bytes for s in series) if series else None,
        samples=tuple(series),
        configured_read=limit is not None or request is not None,
        killed_at=None if killed_min is None else START + timedelta(minutes=killed_min),
    )


def drawn(memory: MemoryFigures) -> bytes:
    """The PNG of `memory`'s chart; the test fails when there is none."""
    chart = memory_chart(memory, workload="w")
    assert chart is not None, "no chart drawn"
    return chart.png


class Picture:
    """A decoded PNG: which pixels have a colour, by row and by column."""

    def __init__(self, png: bytes) -> None:
        self._image = Image.open(io.BytesIO(png)).convert("RGB")
        self.size = self._image.size

    def where(
        self, colour: str, box: tuple[int, int, int, int] = PLOT_BOX, *, near: int = 0
    ) -> set[tuple[int, int]]:
        """The (column, row) of every pixel of `colour` inside `box` (edges excluded).

        `near`: how far each channel may be off, for the softened edges of slanted lines.
        """
        left, top, right, bottom = box
        crop = self._image.crop((left + 1, top + 1, right, bottom))
        masks = [
            band.point(lambda v, c=c: 255 if abs(v - c) <= near else 0)
            for band, c in zip(crop.split(), ImageColor.getrgb(colour)[:3], strict=True)
        ]
        mask = ImageChops.multiply(ImageChops.multiply(masks[0], masks[1]), masks[2])
        width = crop.size[0]
        return {
            (left + 1 + i % width, top + 1 + i // width)
            for i, v in enumerate(mask.get_flattened_data())
            if v
        }

    def rows(self, colour: str, share: float = 0.15) -> list[int]:
        """Rows of the plot area where at least `share` of the pixels have `colour`."""
        counts = Counter(y for _, y in self.where(colour))
        return sorted(y for y, n in counts.items() if n >= share * (RIGHT - LEFT - 1))

    def columns(self, colour: str, share: float = 0.5) -> list[int]:
        """Columns of the plot area where at least `share` of the pixels have `colour`."""
        counts = Counter(x for x, _ in self.where(colour))
        return sorted(x for x, n in counts.items() if n >= share * (BOTTOM - TOP - 1))


def test_the_chart_is_a_png_of_the_fixed_size():
    chart = memory_chart(figures([4, 8, 16, 30], limit=32, request=16), workload="train")
    assert chart is not None
    assert chart.png.startswith(b"\x89PNG\r\n\x1a\n")
    assert Picture(chart.png).size == (WIDTH_PX, HEIGHT_PX)
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
    picture = Picture(drawn(memory))
    for value, colour in ((limit, LIMIT_COLOUR), (reserved, REQUEST_COLOUR)):
        rows = picture.rows(colour)
        assert rows, f"no {colour} line found"
        assert abs(sum(rows) / len(rows) - data_row(int(value * GIB), memory)) <= 1.5


@pytest.mark.parametrize("values", [[4, 8, 16, 31.6], [31.6, 8, 4], [1, 12, 3, 12, 2]])
def test_the_usage_line_reaches_the_peak_row_and_no_higher(values):
    memory = figures(values, limit=40)
    top_row = min(y for _, y in Picture(drawn(memory)).where(USAGE_COLOUR))
    assert abs(top_row - data_row(int(max(values) * GIB), memory)) <= 2.5


def test_the_y_axis_starts_at_zero():
    """Usage between 30 and 31 GiB stays in the top of the plot: the axis is not zoomed in."""
    memory = figures([30, 30.5, 31, 30.2])
    rows = [y for _, y in Picture(drawn(memory)).where(USAGE_COLOUR)]
    assert data_row(0, memory) == BOTTOM
    assert abs(min(rows) - data_row(31 * GIB, memory)) <= 2.5
    assert abs(max(rows) - data_row(30 * GIB, memory)) <= 2.5
    assert max(rows) < TOP + (BOTTOM - TOP) * 0.2


def test_without_limit_or_request_only_usage_is_drawn():
    picture = Picture(drawn(figures([1, 2, 3])))
    assert picture.rows(LIMIT_COLOUR) == []
    assert picture.rows(REQUEST_COLOUR) == []
    assert picture.where(USAGE_COLOUR)


def test_a_single_sample_still_draws():
    chart = memory_chart(figures([5], limit=8), workload="w")
    assert chart is not None
    assert Picture(chart.png).where(USAGE_COLOUR)


@pytest.mark.parametrize("memory", [None, figures([])])
def test_no_series_no_chart(memory):
    assert memory_chart(memory, workload="w") is None


GAPPED = figures([4, 5, 6, 7, 8, 9, 10, 11], limit=32, gaps=[(4, 12 * 60)])  # 12 h unsampled


def test_a_gap_with_no_samples_breaks_the_line():
    """No usage pixel between the samples either side of a 12-hour gap: never a slow fall."""
    picture = Picture(drawn(GAPPED))
    before, after = GAPPED.samples[3].at, GAPPED.samples[4].at
    x0, x1 = data_column(before, GAPPED), data_column(after, GAPPED)
    columns = {x for x, _ in picture.where(USAGE_COLOUR, near=SOFT)}
    assert any(x <= x0 for x in columns)
    assert any(x >= x1 for x in columns)
    assert not [x for x in columns if x0 + 3 < x < x1 - 3]
    assert picture.where(GAP_COLOUR)  # the gap is shaded ...
    assert "no samples" in [e.label for e in legend(GAPPED, gaps=True)]  # ... and named.


def test_a_gap_narrower_than_its_line_ends_is_not_shaded():
    """Half an hour missing from a week: a break two pixels wide, named, but not shaded."""
    memory = figures([4] * 1000, step_min=10, gaps=[(500, 30)])
    picture = Picture(drawn(memory))
    assert picture.where(USAGE_COLOUR)
    assert not picture.where(GAP_COLOUR)


def test_a_steady_series_is_one_unbroken_line():
    """The gap test's check would see a bridging line: a steady series fills every column."""
    memory = figures([4, 5, 6, 7, 8, 9, 10, 11], limit=32)
    picture = Picture(drawn(memory))
    first = round(data_column(memory.samples[0].at, memory))
    last = round(data_column(memory.samples[-1].at, memory))
    line = picture.where(USAGE_COLOUR, near=SOFT)
    assert {x for x, _ in line} >= set(range(first + 1, last))
    assert not picture.where(GAP_COLOUR)


@pytest.mark.parametrize(
    ("limit", "reserved", "labels"),
    [
        (32, 32, ["usage", "request = limit 32 GiB"]),
        (32, 16, ["usage", "limit 32 GiB", "request 16 GiB"]),
        (32, None, ["usage", "limit 32 GiB"]),
        (None, 16, ["usage", "request 16 GiB"]),
        (None, None, ["usage"]),
    ],
)
def test_the_legend_names_each_line_once(limit, reserved, labels):
    memory = figures([1, 2], limit=limit, request=reserved)
    assert [e.label for e in legend(memory, gaps=False)] == labels


def test_a_request_equal_to_the_limit_is_one_line_labelled_once():
    memory = figures([4, 8, 16, 31.6], limit=32, request=32)
    picture = Picture(drawn(memory))
    assert picture.rows(LIMIT_COLOUR)
    everywhere = (0, 0, WIDTH_PX, HEIGHT_PX)
    assert not picture.where(REQUEST_COLOUR, everywhere)  # no hidden line, no legend sample.


KILLED = [
    figures([4, 8, 16, 31.6], limit=32, killed_min=31),  # killed just after the last sample.
    figures([4, 8, 16, 31.6, 6, 9], limit=32, request=8, killed_min=33),  # then restarted.
    figures([31.6, 31.6, 31.6], limit=32, request=32, killed_min=-200),  # killed long before.
    GAPPED,
]


@pytest.mark.parametrize("memory", KILLED)
def test_labels_never_lie_on_the_plot_area(memory):
    """No text inside the plot; the legend has a band of its own above it, and fits in it."""
    picture = Picture(drawn(memory))
    assert LEGEND_BOX[3] < TOP
    assert not picture.where(TEXT_COLOUR)
    legend_band = picture.where(TEXT_COLOUR, LEGEND_BOX)
    assert legend_band
    assert max(x for x, _ in legend_band) < WIDTH_PX - 4


@pytest.mark.parametrize("memory", KILLED[:3])
def test_the_kill_is_a_labelled_line_at_its_own_column(memory):
    picture = Picture(drawn(memory))
    assert memory.killed_at is not None
    columns = picture.columns(KILL_COLOUR)
    assert columns
    assert abs(sum(columns) / len(columns) - data_column(memory.killed_at, memory)) <= 1.5
    label_band = (0, LEGEND_BOX[3], WIDTH_PX, TOP)
    assert len(picture.where(KILL_COLOUR, label_band)) > 20  # the label's text.


@pytest.mark.parametrize(
    "killed_at",
    [
        datetime(2025, 11, 4, 0, 35),  # noqa: DTZ001 - no zone given upstream: read as UTC, never an error
        datetime(2125, 11, 4, tzinfo=UTC),  # a century off: drawn where it says, few ticks
    ],
)
def test_odd_kill_times_still_draw(killed_at):
    memory = figures([4, 8, 16, 31.6], limit=32).model_copy(update={"killed_at": killed_at})
    picture = Picture(drawn(memory))
    columns = picture.columns(KILL_COLOUR)
    assert abs(sum(columns) / len(columns) - data_column(killed_at, memory)) <= 1.5


def test_no_kill_time_no_kill_line():
    picture = Picture(drawn(figures([4, 8, 16, 31.6], limit=32)))
    assert not picture.where(KILL_COLOUR, (0, 0, WIDTH_PX, HEIGHT_PX))


def test_the_alt_text_says_what_the_picture_shows():
    chart = memory_chart(GAPPED.model_copy(update={"killed_at": START + timedelta(hours=14)}),
                         workload="train")  # fmt: skip
    assert chart is not None
    assert chart.alt_text == (
        "CPU memory of train from 2025-11-04 00:00:00Z to 2025-11-04 13:10:00Z: peak 11 GiB, "
        "limit 32 GiB, request not set; no samples from 2025-11-04 00:30:00Z to 2025-11-04 12:40:00Z; "
        "OOM-killed at 2025-11-04 14:00:00Z"
    )


@pytest.mark.parametrize(
    ("read", "shown"),
    [
        (False, "limit not read, request not read"),  # a gap, as "Not measured" says
        (True, "limit not set, request not set"),  # read: the spec sets none
    ],
)
def test_the_alt_text_says_not_set_only_of_a_figure_read(read, shown):
    memory = figures([4, 8, 16]).model_copy(update={"configured_read": read})
    chart = memory_chart(memory, workload="train")
    assert chart is not None
    assert chart.alt_text.endswith(f"peak 16 GiB, {shown}")


def test_many_gaps_are_counted_in_the_alt_text():
    memory = figures(range(1, 13), gaps=[(i, 600) for i in (2, 4, 6, 8, 10)])
    chart = memory_chart(memory, workload="w")
    assert chart is not None
    assert chart.alt_text.count(" to ") == 1 + 3
    assert chart.alt_text.endswith("and 2 more gaps")


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("$x^2$ \\frac{1}{0}", "$x^2$ \\frac{1}{0}"),
        ("evil\u202ename\x1b[2J", "evilname[2J"),
        ("two\nlines", "two lines"),
        ("", "the workload"),
        ("训练-job", "训练-job"),  # the title keeps it; the picture draws what its font has.
    ],
)
def test_upstream_names_cannot_break_the_chart(name, shown):
    chart = memory_chart(figures([1, 2], limit=4, request=2), workload=name)
    assert chart is not None
    assert chart.title == f"CPU memory of {shown}"
    assert chart.alt_text == (
        f"CPU memory of {shown} from 2025-11-04 00:00:00Z to 2025-11-04 00:10:00Z: peak 2 GiB, "
        "limit 4 GiB, request 2 GiB"
    )


def test_a_long_name_is_cut_to_fit_the_title():
    chart = memory_chart(figures([1, 2], limit=4), workload="w" * 200)
    assert chart is not None
    assert chart.title == "CPU memory of " + "w" * 90
    assert Picture(chart.png).where(TEXT_COLOUR, (0, 0, WIDTH_PX, LEGEND_BOX[1]))


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


_DRAW = """
import hashlib
from datetime import datetime, timedelta
from bot.render.chart import memory_chart
from diagnosis import MemoryFigures
memory = MemoryFigures.model_validate_json({json!r})
print(hashlib.sha256(memory_chart(memory, workload="train").png).hexdigest())
"""


def test_the_same_report_gives_the_same_bytes_in_another_process():
    memory = KILLED[1]
    chart = memory_chart(memory, workload="train")
    assert chart is not None
    done = subprocess.run(  # noqa: S603 - this interpreter, the test's own script
        [sys.executable, "-c", _DRAW.format(json=memory.model_dump_json())],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert done.stdout.strip() == hashlib.sha256(chart.png).hexdigest()
