"""A workload's memory figures, as a chart of them is drawn from (32 GiB asked, 31 peaked)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from diagnosis import MemoryFigures, MemorySample

__all__ = ["MEMORY"]

GIB = 1024**3
START = datetime(2025, 11, 4, 0, 0, tzinfo=UTC)
MEMORY = MemoryFigures(
    request_bytes=32 * GIB,
    limit_bytes=32 * GIB,
    peak_bytes=31 * GIB,
    samples=tuple(
        MemorySample(at=START + timedelta(minutes=10 * i), usage_bytes=v * GIB)
        for i, v in enumerate((10, 20, 31))
    ),
)
