"""Memory charts drawn off the event loop, one at a time in each process.

A chart holds about 6 MB while it is drawn (its canvas at twice the size, 1600x720 RGB,
then reduced and mapped to a palette). Through `asyncio.to_thread`, diagnoses finishing
together drew as many at once as the default executor has threads (six on two cores), and
a worker's peak memory rose with them (measured: eight asked for at once, peak +43 MB; one
at a time, +12 MB). Drawing is CPU work under the GIL and a process has one core's share,
so a second drawing thread never made a chart sooner; one thread per process keeps the
peak at one canvas, and a chart waits at most for those queued before it (~7 ms each).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from bot.render.chart import Chart, memory_chart

if TYPE_CHECKING:
    from diagnosis import MemoryFigures

__all__ = ["draw_memory_chart"]


@functools.cache
def _drawer() -> ThreadPoolExecutor:
    """This process's drawing thread, started with its first chart."""
    return ThreadPoolExecutor(1, thread_name_prefix="chart")


async def draw_memory_chart(memory: MemoryFigures | None, *, workload: str) -> Chart | None:
    """`memory_chart` in this process's drawing thread, with the caller's context (logging)."""
    call = functools.partial(memory_chart, memory, workload=workload)
    context = contextvars.copy_context()
    return await asyncio.get_running_loop().run_in_executor(_drawer(), context.run, call)
