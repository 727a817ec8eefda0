"""The benchmark's chart line measures cold charts, and the first one in a fresh process."""

from __future__ import annotations

import re

from bench.chart import _shifted, chart_row, demo_memory
from bot.render.chart import memory_chart


async def test_each_timed_chart_is_a_new_reports():
    memory, name = await demo_memory()
    moved = _shifted(memory, 1)
    assert moved != memory
    assert memory_chart(moved, workload=name) is not memory_chart(memory, workload=name)


async def test_the_row_says_cold_and_fresh_process_figures():
    row = await chart_row()
    assert re.fullmatch(
        r"\d+\.\d ms CPU cold \(a new report each time, mean of 10\); the first in a fresh "
        r"process \d+ ms CPU with its imports, RSS \+-?\d+\.\d MB",
        row,
    ), row
