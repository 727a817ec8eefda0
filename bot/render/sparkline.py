"""The CPU-memory series as one line of text, for the console, the CLI and chat fallbacks.

Scaled from zero to the limit (or the peak when higher, or when there is no limit), so a
full block means "at the limit"; long series are reduced by keeping each bucket's maximum,
so a spike is never averaged away; where samples are missing (`bot.render.gaps`) it leaves a
space.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal

from bot.render.gaps import runs
from bot.render.wording import when
from diagnosis import MemoryFigures

__all__ = ["BARS", "MAX_WIDTH", "configured", "gib", "memory_sparkline", "sparkline"]

BARS = "▁▂▃▄▅▆▇█"
MAX_WIDTH = 40
_GIB = 1024**3


def gib(value: int | None, *, read: bool = False) -> str:
    """Bytes as GiB: `31.6 GiB`, `32 GiB`, two figures below one (`0.25 GiB`).

    None is `not set` when the figure was `read` (a configuration that sets none), else
    `not read`: a figure nobody read is a gap, never a fact. Halves round up (0.25 → `0.25`,
    1.25 → `1.3`): a limit is never shown smaller than it is.
    """
    if value is None:
        return "not set" if read else "not read"
    exact = Decimal(value) / _GIB
    if 0 < exact < 1:
        places = max(2, 2 - exact.adjusted() - 1)  # two significant figures
        shown = exact.quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP).normalize()
        return f"{shown:f} GiB"
    shown = exact.quantize(Decimal("0.1"), ROUND_HALF_UP)
    return f"{shown:f}".removesuffix(".0") + " GiB"


def _buckets(values: Sequence[int], width: int) -> list[int]:
    if len(values) <= width:
        return list(values)
    return [
        max(values[i * len(values) // width : (i + 1) * len(values) // width]) for i in range(width)
    ]


def sparkline(values: Sequence[int], top: int, width: int = MAX_WIDTH) -> str:
    """One bar per value (at most `width`), `top` being the full bar."""
    if not values or top <= 0:
        return ""
    last = len(BARS) - 1
    return "".join(BARS[min(last, max(0, round(v / top * last)))] for v in _buckets(values, width))


def configured(memory: MemoryFigures) -> str:
    """`limit 32 GiB, request not set` (`not read` for a figure not read)."""
    read = memory.configured_read
    limit, request = gib(memory.limit_bytes, read=read), gib(memory.request_bytes, read=read)
    return f"limit {limit}, request {request}"


def memory_sparkline(memory: MemoryFigures | None) -> str | None:
    """`CPU memory <from> to <to>: ▁▂▃▅▇█ peak 31.6 GiB, limit 32 GiB, request 32 GiB`."""
    if memory is None or not memory.samples:
        return None
    values = [s.usage_bytes for s in memory.samples]
    peak = max(values)
    top = max(peak, memory.limit_bytes or 0)
    first, last = memory.samples[0].at, memory.samples[-1].at
    # A space where samples are missing: the bars on either side were not measured together.
    parts = runs(memory.samples)
    room = MAX_WIDTH - (len(parts) - 1)
    line = " ".join(
        sparkline([s.usage_bytes for s in part], top, max(1, room * len(part) // len(values)))
        for part in parts
    )
    return (
        f"CPU memory {when(first)} to {when(last)}: {line} peak {gib(peak)}, {configured(memory)}"
    )
