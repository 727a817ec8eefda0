"""The memory chart's axes: round value ticks from zero, UTC time ticks and their labels; pure.

Value ticks are 1, 2, 2.5 or 5 times a power of ten apart, at most `MAX_TICKS` of them from
zero. Time ticks fall on whole multiples of a step from the Unix epoch (whole minutes, hours
or UTC days), the smallest step giving at most `MAX_TICKS`, whatever the span. Labels are
`HH:MM` (`HH:MM:SS` under a minute), and `MM-DD` at midnight or when ticks are days apart:
numbers only, never a month name, so no locale changes the picture.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

from diagnosis import in_utc, utc_text

__all__ = ["MAX_TICKS", "time_label", "time_ticks", "value_label", "value_ticks"]

MAX_TICKS = 7
_MULTIPLES = (1, 2, 2.5, 5)
_MINUTE, _HOUR, _DAY = 60, 3600, 86400
#: Time steps in seconds, smallest first.
_TIME_STEPS = (
    *(1, 2, 5, 10, 15, 30),
    *(m * _MINUTE for m in (1, 2, 5, 10, 15, 30)),
    *(h * _HOUR for h in (1, 2, 3, 6, 12)),
    *(d * _DAY for d in (1, 2, 7, 14, 28, 56, 112, 224, 448)),
)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def value_ticks(top: float) -> list[float]:
    """Ticks from 0 up to `top` (> 0), evenly and roundly spaced."""
    rough = top / (MAX_TICKS - 1)
    power = 10 ** math.floor(math.log10(rough))
    step = next((m * power for m in _MULTIPLES if m * power >= rough), 10 * power)
    return [round(i * step, 9) for i in range(int(top / step + 1e-9) + 1)]


def value_label(value: float) -> str:
    """`0`, `2.5`, `30`, `0.1`: as few digits as the value needs."""
    return f"{value:g}"


def time_ticks(start: datetime, end: datetime) -> tuple[list[datetime], int]:
    """Tick times within [start, end] and the step between them, in seconds."""
    first, last = (start - _EPOCH).total_seconds(), (end - _EPOCH).total_seconds()
    span = max(last - first, 1.0)
    # Beyond the table (centuries between two figures), whole days that still give few ticks.
    longest = math.ceil(span / (MAX_TICKS - 1) / _DAY) * _DAY
    step = next((s for s in _TIME_STEPS if span / s <= MAX_TICKS - 1), longest)
    ticks = []
    at = math.ceil(first / step) * step
    while at <= last:
        ticks.append(_EPOCH + timedelta(seconds=at))
        at += step
    return ticks, step


def time_label(at: datetime, step: int) -> str:
    """The label of a tick `step` seconds from the next one (UTC)."""
    at = in_utc(at)
    if step >= _DAY or (at.hour, at.minute, at.second) == (0, 0, 0):
        return utc_text(at, "%m-%d")
    return utc_text(at, "%H:%M:%S" if step < _MINUTE else "%H:%M")
