"""Draws the CPU-memory series against its limit and request as a PNG; pure, headless.

matplotlib's object API on the Agg canvas (no pyplot, so no global state and no display):
one figure per call, a fixed size and a fixed plot area, so the picture is the same on every
machine and a test can find the limit line's row from the data alone (`data_row`).
The y axis runs from zero to a fixed margin above the highest of usage, limit and request.
Upstream text (the workload name) is cleaned and never parsed as mathtext.
"""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass

from bot.render.slack_text import clean, one_line
from bot.render.sparkline import gib
from bot.render.wording import when
from diagnosis import MemoryFigures

__all__ = [
    "AXES_BOX",
    "DPI",
    "HEIGHT_PX",
    "LIMIT_COLOUR",
    "REQUEST_COLOUR",
    "USAGE_COLOUR",
    "WIDTH_PX",
    "Chart",
    "data_row",
    "memory_chart",
    "y_top",
]

WIDTH_PX, HEIGHT_PX, DPI = 800, 360, 100
#: The plot area as fractions of the figure: left, bottom, width, height.
AXES_BOX = (0.09, 0.14, 0.88, 0.74)
HEADROOM = 1.15  # the y axis ends this far above the highest value shown.
USAGE_COLOUR = "#1f77b4"
LIMIT_COLOUR = "#d62728"
REQUEST_COLOUR = "#7f7f7f"
_GIB = 1024**3
_MINUTE_DAYS = 1 / 1440  # matplotlib dates are in days.
_TITLE_MAX = 90
_ALT_MAX = 1_000
_KEPT_CHARTS = 16  # PNGs of ~40 KB each


@dataclass(frozen=True)
class Chart:
    """A rendered chart: the PNG, a short title and the alt text describing it."""

    png: bytes
    title: str
    alt_text: str


def y_top(memory: MemoryFigures) -> float:
    """The top of the y axis, in GiB."""
    highest = max(
        [s.usage_bytes for s in memory.samples]
        + [memory.limit_bytes or 0, memory.request_bytes or 0]
    )
    return max(highest / _GIB, 1 / 1024) * HEADROOM


def data_row(value_bytes: int, memory: MemoryFigures) -> float:
    """The pixel row (from the top of the PNG) where `value_bytes` is drawn."""
    _, bottom, _, height = AXES_BOX
    fraction = (value_bytes / _GIB) / y_top(memory)
    return HEIGHT_PX * (1 - (bottom + height * fraction))


def _describe(memory: MemoryFigures, name: str) -> str:
    first, last = memory.samples[0].at, memory.samples[-1].at
    peak = max(s.usage_bytes for s in memory.samples)
    text = (
        f"CPU memory of {name} from {when(first)} to {when(last)}: peak {gib(peak)}, "
        f"limit {gib(memory.limit_bytes)}, request {gib(memory.request_bytes)}"
    )
    return text[:_ALT_MAX]


def memory_chart(memory: MemoryFigures | None, *, workload: str) -> Chart | None:
    """The chart of `memory.samples` for `workload`, or None when there is no series.

    Drawing costs about 0.1 s of CPU, and askers who share one diagnosis share its figures:
    the last few charts are kept (the figures are immutable), so a storm draws one.
    """
    if memory is None or not memory.samples:
        return None
    return _drawn(memory, one_line(clean(workload))[:_TITLE_MAX] or "the workload")


@functools.lru_cache(maxsize=_KEPT_CHARTS)
def _drawn(memory: MemoryFigures, name: str) -> Chart:
    # matplotlib costs ~45 MB of memory and a second of start-up: loaded on the first chart.
    from matplotlib import dates  # noqa: PLC0415
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: PLC0415
    from matplotlib.figure import Figure  # noqa: PLC0415

    times = [float(dates.date2num(s.at)) for s in memory.samples]  # type: ignore[no-untyped-call]
    values = [s.usage_bytes / _GIB for s in memory.samples]
    figure = Figure(figsize=(WIDTH_PX / DPI, HEIGHT_PX / DPI), dpi=DPI)
    FigureCanvasAgg(figure)
    axes = figure.add_axes(AXES_BOX)
    if memory.request_bytes is not None:
        axes.axhline(
            memory.request_bytes / _GIB, color=REQUEST_COLOUR, linestyle=":", linewidth=2,
            label=f"request {gib(memory.request_bytes)}", zorder=2,
        )  # fmt: skip
    if memory.limit_bytes is not None:
        axes.axhline(
            memory.limit_bytes / _GIB, color=LIMIT_COLOUR, linestyle="--", linewidth=2,
            label=f"limit {gib(memory.limit_bytes)}", zorder=3,
        )  # fmt: skip
    axes.plot(
        times, values, color=USAGE_COLOUR, linewidth=2, marker="o" if len(times) == 1 else None,
        label="usage", zorder=4,
    )  # fmt: skip
    start, end = times[0], times[-1]
    if start == end:
        start, end = start - _MINUTE_DAYS, end + _MINUTE_DAYS
    axes.set_xlim(start, end)
    axes.xaxis_date(tz="UTC")
    axes.set_ylim(0, y_top(memory))
    axes.xaxis.set_major_formatter(dates.DateFormatter("%H:%M", tz="UTC"))  # type: ignore[no-untyped-call]
    axes.set_ylabel("GiB")
    axes.set_xlabel(f"UTC, from {when(memory.samples[0].at)} to {when(memory.samples[-1].at)}")
    axes.grid(visible=True, axis="y", alpha=0.3)
    axes.legend(loc="lower right", fontsize="small")
    figure.suptitle(f"CPU memory · {name}", parse_math=False, fontsize="medium")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return Chart(
        png=buffer.getvalue(), title=f"CPU memory of {name}", alt_text=_describe(memory, name)
    )
