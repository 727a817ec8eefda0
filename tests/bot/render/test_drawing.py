"""Charts are drawn off the event loop, one at a time per process, with the caller's context."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest

from bot.render import drawing
from bot.render.chart import Chart, memory_chart
from diagnosis import MemoryFigures, MemorySample

ASKER = contextvars.ContextVar("asker", default="nobody")
START = datetime(2025, 11, 4, tzinfo=UTC)


def figures(*gib: int) -> MemoryFigures:
    samples = tuple(
        MemorySample(at=START + timedelta(minutes=10 * i), usage_bytes=v * 2**30)
        for i, v in enumerate(gib)
    )
    return MemoryFigures(
        request_bytes=None, limit_bytes=4 * 2**30, peak_bytes=max(gib) * 2**30, samples=samples
    )


async def test_the_chart_is_the_one_memory_chart_draws():
    memory = figures(1, 2, 3)
    chart = await drawing.draw_memory_chart(memory, workload="train-1")
    assert chart == memory_chart(memory, workload="train-1")
    assert await drawing.draw_memory_chart(None, workload="train-1") is None


async def test_charts_asked_for_together_are_drawn_one_after_another_off_the_loop(
    monkeypatch: pytest.MonkeyPatch,
):
    loop_thread = threading.get_ident()
    busy, most, threads, seen = 0, 0, set(), []
    lock = threading.Lock()

    def slow_chart(memory: object, *, workload: str) -> Chart | None:
        nonlocal busy, most
        with lock:
            busy += 1
            most = max(most, busy)
        threads.add(threading.get_ident())
        seen.append((workload, ASKER.get()))
        time.sleep(0.01)  # long enough for the others to be waiting, were they in parallel
        with lock:
            busy -= 1
        return None

    monkeypatch.setattr(drawing, "memory_chart", slow_chart)

    async def ask(name: str) -> Chart | None:
        ASKER.set(name)
        return await drawing.draw_memory_chart(None, workload=name)

    assert await asyncio.gather(*(ask(f"w{i}") for i in range(6))) == [None] * 6
    assert most == 1
    assert len(threads) == 1
    assert loop_thread not in threads
    assert sorted(seen) == [(f"w{i}", f"w{i}") for i in range(6)]  # each with its context
