"""Pure figures of the benchmark: percentiles, the dependency-chain floor, targets, the table.

Nothing here measures time or starts anything, so all of it is unit-tested
(tests/bench/test_stats.py); the scenarios feed it what they recorded.
"""

from __future__ import annotations

import math
import os
import platform
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

__all__ = [
    "Figure",
    "Target",
    "Timed",
    "chain_levels",
    "machine",
    "percentile",
    "render_table",
    "shift_times",
]


@dataclass(frozen=True)
class Timed:
    """One upstream request as the simulator logged it: when it arrived and when it ended."""

    start: float
    end: float
    path: str = ""


def percentile(values: Sequence[float], p: float) -> float:
    """The `p`-th percentile (0-100) by the nearest-rank method; NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def chain_levels(calls: Iterable[Timed]) -> int:
    """The longest chain of calls that ran one after another (the dependency-chain depth).

    Call B comes after call A when B started once A had ended; calls that overlapped ran
    concurrently. The depth is the longest path through that order (0 for no calls), so
    `depth x latency` is the least wall time the same calls could take with that latency.
    """
    ordered = sorted(calls, key=lambda c: c.start)
    depth: list[int] = []
    for index, call in enumerate(ordered):
        before = [depth[i] for i in range(index) if ordered[i].end <= call.start]
        depth.append(1 + max(before, default=0))
    return max(depth, default=0)


@dataclass(frozen=True)
class Target:
    """A target as a ratio: `measured / reference` must stay at or below `bound`."""

    name: str
    measured: float
    reference: float
    bound: float
    unit: str = ""
    detail: str = ""

    @property
    def ratio(self) -> float:
        """The measured value over the reference (inf for a 0 reference and a measured value)."""
        if math.isnan(self.measured) or math.isnan(self.reference):
            return math.nan
        if self.reference == 0:
            return 0.0 if self.measured == 0 else math.inf
        return self.measured / self.reference

    @property
    def met(self) -> bool:
        """Whether the ratio is within the bound (a NaN measurement is never met)."""
        return not math.isnan(self.ratio) and self.ratio <= self.bound


@dataclass(frozen=True)
class Figure:
    """A measured figure without a target, shown for context."""

    name: str
    value: str


def times(value: float, reference: float) -> str:
    """`1.40x`: `value` as a multiple of `reference` (`n/a` for NaN or a zero reference)."""
    if math.isnan(value) or math.isnan(reference) or reference == 0:
        return "n/a"
    if math.isinf(value):
        return "inf"
    return f"{value / reference:.2f}x"


def number(value: float, unit: str = "") -> str:
    """`value` with its unit, compactly (`0.412 s`, `88 MB`, `n/a` for NaN)."""
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "inf"
    if unit == "s":
        return f"{value:.3f} s" if value < 10 else f"{value:.1f} s"  # noqa: PLR2004
    if value == int(value):
        text = f"{int(value)}"
    else:
        text = f"{value:.3g}" if abs(value) < 100 else f"{value:.0f}"  # noqa: PLR2004
    return f"{text} {unit}".strip()


_WIDTHS = (46, 14, 14, 8, 9)


def render_table(title: str, rows: Sequence[Target | Figure], header: Sequence[str] = ()) -> str:
    """A plain-text table: each target with its measured value, reference, ratio and verdict."""
    names = ("what", "measured", "reference", "ratio", "target")
    lines = [title, *header]
    lines.append("  ".join(n.ljust(w) for n, w in zip(names, _WIDTHS, strict=True)) + "  verdict")
    for row in rows:
        if isinstance(row, Figure):
            lines.append(f"  {row.name.ljust(_WIDTHS[0] - 2)}  {row.value}")
            continue
        cells = (
            row.name,
            number(row.measured, row.unit),
            number(row.reference, row.unit),
            "n/a" if math.isnan(row.ratio) else f"{row.ratio:.2f}x",
            f"<= {row.bound:g}x",
        )
        line = "  ".join(c.ljust(w) for c, w in zip(cells, _WIDTHS, strict=True))
        line += "  met" if row.met else "  MISSED"
        lines.append(line + (f" ({row.detail})" if row.detail else ""))
    return "\n".join(lines)


_ISO = re.compile(r"\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})")


def shift_times(text: str, delta: timedelta) -> str:
    """Every ISO-8601 date-time in `text` moved by `delta` (fractions and offsets kept).

    The served bot reads the real clock, so a scenario written for a fixed `now` is moved
    to the present before it is served.
    """

    def move(match: re.Match[str]) -> str:
        stamp, fraction, zone = match.group(1), match.group(2) or "", match.group(3)
        moved = datetime.fromisoformat(stamp) + delta
        return moved.strftime("%Y-%m-%dT%H:%M:%S") + fraction + zone

    return _ISO.sub(move, text)


def machine(cpuinfo: Path = Path("/proc/cpuinfo")) -> list[str]:
    """Lines describing the machine: cores, CPU model, Python, and the load average now."""
    model = platform.processor() or platform.machine()
    try:
        for line in cpuinfo.read_text(encoding="utf-8").splitlines():
            if line.lower().startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return [
        f"machine: {os.cpu_count()} cores, {model}, Python {platform.python_version()} "
        f"({platform.system()} {platform.release()})",
        "load average (1, 5, 15 min): " + loadavg(),
    ]


def loadavg() -> str:
    """The load average now, as `1.23, 0.98, 0.75`."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())
