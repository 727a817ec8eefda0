"""Draws the CPU-memory series against its limit and request as a PNG; pure, headless.

A fixed 800x360 picture (`bot.render.canvas`, Pillow) whose plot area, `PLOT_BOX`, holds
only data: the title, the legend, the kill label and the axes' labels sit in bands reserved
around it, so no label ever covers a sample. It draws what was measured, and nothing else:
- the y axis runs from zero to a fixed margin above the highest of usage, limit and request,
  and a test finds any line's row from the data alone (`data_row`, `data_column`);
- the usage line breaks where samples are missing (`bot.render.gaps` says where), and the
  gap is shaded and named in the legend: never a straight line through hours nobody measured;
- a request equal to the limit is one line, labelled once: "request = limit 32 GiB";
- the OOM kill is a labelled vertical line at the time the diagnosis dated it
  (`MemoryFigures.killed_at`), and no line at all when it was not dated.
Upstream text (the workload name) is cleaned; the alt text says all of the above in words.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Literal

from bot.render.chart_scale import time_label, time_ticks, value_label, value_ticks
from bot.render.clean import clean, one_line
from bot.render.gaps import runs
from bot.render.sparkline import configured, gib
from bot.render.wording import when, when_drawn
from diagnosis import MemoryFigures, MemorySample, in_utc

if TYPE_CHECKING:
    from bot.render.canvas import Canvas

__all__ = [
    "GAP_COLOUR",
    "HEIGHT_PX",
    "KILL_COLOUR",
    "LEGEND_BOX",
    "LIMIT_COLOUR",
    "PLOT_BOX",
    "REQUEST_COLOUR",
    "TEXT_COLOUR",
    "USAGE_COLOUR",
    "WIDTH_PX",
    "Chart",
    "LegendEntry",
    "data_column",
    "data_row",
    "legend",
    "memory_chart",
    "y_top",
]

WIDTH_PX, HEIGHT_PX = 800, 360
#: The plot area in pixels: left, top, right, bottom. Only data is drawn inside it.
PLOT_BOX = (56, 78, 784, 304)
#: The band above the plot area that holds the legend (and nothing else).
LEGEND_BOX = (0, 32, WIDTH_PX, 52)
HEADROOM = 1.15  # the y axis ends this far above the highest value shown.
USAGE_COLOUR = "#1f77b4"
LIMIT_COLOUR = "#d62728"
REQUEST_COLOUR = "#6f7f99"  # a slate grey: never the plain grey of anti-aliased text
KILL_COLOUR = "#9467bd"
GAP_COLOUR = "#ececec"
TEXT_COLOUR = "#222222"
_GRID_COLOUR, _AXIS_COLOUR, _SWATCH_EDGE = "#e4e4e4", "#666666", "#bbbbbb"
_COLOURS = (USAGE_COLOUR, LIMIT_COLOUR, REQUEST_COLOUR, KILL_COLOUR, GAP_COLOUR, TEXT_COLOUR,
            _GRID_COLOUR, _AXIS_COLOUR, _SWATCH_EDGE)  # fmt: skip
_TITLE_SIZE, _TEXT_SIZE = 15, 12
_GIB = 1024**3
_TITLE_MAX = 90
_ALT_MAX = 1_000
_ALT_GAPS = 3  # gaps named in the alt text; more are counted.
_KEPT_CHARTS = 16  # PNGs of ~7 KB each
_SWATCH = 22  # a legend entry's line sample, in pixels
_INSET = 8  # pixels between the plot area's sides and the first and last moment drawn


@dataclass(frozen=True)
class Chart:
    """A rendered chart: the PNG, a short title and the alt text describing it."""

    png: bytes
    title: str
    alt_text: str


@dataclass(frozen=True)
class LegendEntry:
    """One legend item: how its sample is drawn (`solid`, `dashed`, `dotted`, `shade`)."""

    label: str
    colour: str
    style: Literal["solid", "dashed", "dotted", "shade"]


def y_top(memory: MemoryFigures) -> float:
    """The top of the y axis, in GiB."""
    highest = max(
        [s.usage_bytes for s in memory.samples]
        + [memory.limit_bytes or 0, memory.request_bytes or 0]
    )
    return max(highest / _GIB, 1 / 1024) * HEADROOM


def _span(memory: MemoryFigures) -> tuple[datetime, datetime]:
    """The x axis: the samples and the kill time; two minutes around a single instant."""
    times = [memory.samples[0].at, memory.samples[-1].at]
    if memory.killed_at is not None:
        times.append(memory.killed_at)
    start, end = min(map(in_utc, times)), max(map(in_utc, times))
    if start == end:
        return start - timedelta(minutes=1), end + timedelta(minutes=1)
    return start, end


def data_row(value_bytes: int, memory: MemoryFigures) -> float:
    """The pixel row (from the top of the PNG) where `value_bytes` is drawn."""
    _, top, _, bottom = PLOT_BOX
    return bottom - (bottom - top) * (value_bytes / _GIB) / y_top(memory)


def data_column(at: datetime, memory: MemoryFigures) -> float:
    """The pixel column where the moment `at` is drawn (the first and last inset a little)."""
    left, _, right, _ = PLOT_BOX
    start, end = _span(memory)
    return left + _INSET + (right - left - 2 * _INSET) * ((in_utc(at) - start) / (end - start))


def legend(memory: MemoryFigures, *, gaps: bool) -> list[LegendEntry]:
    """What the legend names: usage, the limit and the request (once when equal), any gap."""
    entries = [LegendEntry("usage", USAGE_COLOUR, "solid")]
    limit, request = memory.limit_bytes, memory.request_bytes
    if limit is not None and limit == request:
        entries.append(LegendEntry(f"request = limit {gib(limit)}", LIMIT_COLOUR, "dashed"))
    else:
        if limit is not None:
            entries.append(LegendEntry(f"limit {gib(limit)}", LIMIT_COLOUR, "dashed"))
        if request is not None:
            entries.append(LegendEntry(f"request {gib(request)}", REQUEST_COLOUR, "dotted"))
    if gaps:
        entries.append(LegendEntry("no samples", GAP_COLOUR, "shade"))
    return entries


def _describe(memory: MemoryFigures, name: str, parts: list[tuple[MemorySample, ...]]) -> str:
    first, last = memory.samples[0].at, memory.samples[-1].at
    peak = max(s.usage_bytes for s in memory.samples)
    text = (
        f"CPU memory of {name} from {when(first)} to {when(last)}: peak {gib(peak)}, "
        f"{configured(memory)}"
    )
    holes = [(a[-1].at, b[0].at) for a, b in itertools.pairwise(parts)]
    if holes:
        named = [f"{when(a)} to {when(b)}" for a, b in holes[:_ALT_GAPS]]
        more = len(holes) - len(named)
        text += "; no samples from " + ", ".join(named) + (f" and {more} more gaps" if more else "")
    if memory.killed_at is not None:
        text += f"; OOM-killed at {when(memory.killed_at)}"
    return text[:_ALT_MAX]


def memory_chart(memory: MemoryFigures | None, *, workload: str) -> Chart | None:
    """The chart of `memory.samples` for `workload`, or None when there is no series.

    Askers who share one diagnosis share its figures: the last few charts are kept, by
    content (the figures are immutable and compare by value), so a storm draws one.
    """
    if memory is None or not memory.samples:
        return None
    return _drawn(memory, one_line(clean(workload))[:_TITLE_MAX] or "the workload")


@functools.lru_cache(maxsize=_KEPT_CHARTS)
def _drawn(memory: MemoryFigures, name: str) -> Chart:
    # Pillow (~4 MB) loads with the first chart, not with every process that never draws one.
    from bot.render.canvas import Canvas  # noqa: PLC0415

    parts = runs(memory.samples)
    canvas = Canvas(WIDTH_PX, HEIGHT_PX, _COLOURS)
    _gaps(canvas, memory, parts)
    _frame(canvas, memory)
    _data(canvas, memory, parts)
    _legend(canvas, legend(memory, gaps=len(parts) > 1))
    canvas.text((WIDTH_PX / 2, 8), canvas.fit(f"CPU memory · {name}", _TITLE_SIZE, WIDTH_PX - 40),
                TEXT_COLOUR, _TITLE_SIZE, "ma")  # fmt: skip
    return Chart(
        png=canvas.png(), title=f"CPU memory of {name}", alt_text=_describe(memory, name, parts)
    )


def _frame(canvas: Canvas, memory: MemoryFigures) -> None:
    """Grid, axes, their ticks and labels: everything that does not depend on usage."""
    left, top, right, bottom = PLOT_BOX
    for value in value_ticks(y_top(memory)):
        row = data_row(round(value * _GIB), memory)
        canvas.rule((left, row), (right, row), _GRID_COLOUR)
        canvas.text((left - 6, row), value_label(value), TEXT_COLOUR, _TEXT_SIZE, "rm")
    canvas.text((left - 6, top - 8), "GiB", TEXT_COLOUR, _TEXT_SIZE, "rm")
    start, end = _span(memory)
    ticks, step = time_ticks(start, end)
    for at in ticks:
        column = data_column(at, memory)
        canvas.rule((column, bottom), (column, bottom + 4), _AXIS_COLOUR)
        label = time_label(at, step)
        half = canvas.text_width(label, _TEXT_SIZE) / 2
        column = min(max(column, half + 2), WIDTH_PX - half - 2)
        canvas.text((column, bottom + 8), label, TEXT_COLOUR, _TEXT_SIZE, "ma")
    canvas.rule((left, top), (left, bottom), _AXIS_COLOUR)
    canvas.rule((left, bottom), (right, bottom), _AXIS_COLOUR)
    canvas.text((WIDTH_PX / 2, bottom + 30), f"UTC, from {when_drawn(start)} to {when_drawn(end)}",
                TEXT_COLOUR, _TEXT_SIZE, "ma")  # fmt: skip


def _gaps(canvas: Canvas, memory: MemoryFigures, parts: list[tuple[MemorySample, ...]]) -> None:
    """Each gap between runs shaded, behind everything else (its edges left to the line)."""
    _, top, _, bottom = PLOT_BOX
    for before, after in itertools.pairwise(parts):
        x0, x1 = data_column(before[-1].at, memory) + 3, data_column(after[0].at, memory) - 3
        if x1 > x0:
            canvas.box((x0, top + 1), (x1, bottom - 1), GAP_COLOUR)


def _data(canvas: Canvas, memory: MemoryFigures, parts: list[tuple[MemorySample, ...]]) -> None:
    """Request, limit, the kill marker, then usage on top of them all."""
    left, _, right, _ = PLOT_BOX
    limit, request = memory.limit_bytes, memory.request_bytes
    if request is not None and request != limit:
        row = data_row(request, memory)
        canvas.dashed((left, row), (right, row), REQUEST_COLOUR, dash=2, gap=3)
    if limit is not None:
        row = data_row(limit, memory)
        canvas.dashed((left, row), (right, row), LIMIT_COLOUR, dash=8, gap=5)
    if memory.killed_at is not None:
        _kill_marker(canvas, memory, memory.killed_at)
    for part in parts:
        points = [(data_column(s.at, memory), data_row(s.usage_bytes, memory)) for s in part]
        if len(points) == 1:
            canvas.dot(points[0], 3, USAGE_COLOUR)
        else:
            canvas.line(points, USAGE_COLOUR, width=2)


def _kill_marker(canvas: Canvas, memory: MemoryFigures, killed_at: datetime) -> None:
    """A vertical line at the kill, labelled just above the plot area."""
    _, top, right, bottom = PLOT_BOX
    column = data_column(killed_at, memory)
    canvas.line([(column, top), (column, bottom)], KILL_COLOUR, width=2)
    label = f"OOM kill {when_drawn(killed_at)}"
    # Right-aligned to the line when it fits (the kill usually ends the series), else after it.
    if column - canvas.text_width(label, _TEXT_SIZE) >= PLOT_BOX[0]:
        canvas.text((column, top - 8), label, KILL_COLOUR, _TEXT_SIZE, "rm")
    else:
        canvas.text((min(column, right), top - 8), label, KILL_COLOUR, _TEXT_SIZE, "lm")


def _legend(canvas: Canvas, entries: list[LegendEntry]) -> None:
    """The legend, in one row in its own band above the plot area."""
    x, middle = float(PLOT_BOX[0]), (LEGEND_BOX[1] + LEGEND_BOX[3]) / 2
    for entry in entries:
        end = (x + _SWATCH, middle)
        if entry.style == "shade":
            canvas.box((x, middle - 6), (x + _SWATCH, middle + 6), entry.colour, _SWATCH_EDGE)
        elif entry.style == "solid":
            canvas.line([(x, middle), end], entry.colour, width=2)
        else:
            dash, gap = (8, 5) if entry.style == "dashed" else (2, 3)
            canvas.dashed((x, middle), end, entry.colour, dash=dash, gap=gap)
        canvas.text((x + _SWATCH + 6, middle), entry.label, TEXT_COLOUR, _TEXT_SIZE, "lm")
        x += _SWATCH + 6 + canvas.text_width(entry.label, _TEXT_SIZE) + 18
