"""What one memory chart costs: CPU drawn cold, and the first chart's CPU and memory in a process.

Charts are kept per report, so drawing the same report again measures a cache hit: every
chart timed here is a new report's (the demo OOM report's series, shifted by a second each
time), drawn in this thread as a worker thread draws it. The first chart in a fresh
interpreter adds the imports and the font; it is measured in a lean child process (only the
report's models loaded before it, the figures given on stdin), with its resident memory
before and after.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
import time
from asyncio.subprocess import PIPE
from datetime import timedelta

from bot.app.backends import simulated
from bot.app.demo.scenarios import bundled_scenario, request_from_expectation
from diagnosis import MemoryFigures, diagnose

__all__ = ["chart_row", "demo_memory"]

_SHIFTS = itertools.count(1)  # every timed chart is a report never drawn before in this process
#: The child: the first chart's CPU (imports included) and its resident memory before and
#: after, in KiB (Linux's VmRSS; a child's ru_maxrss would start at its parent's peak).
_FIRST = """
import json, re, sys, time
from pathlib import Path
def rss():
    status = Path("/proc/self/status")
    found = re.search(r"VmRSS:\\s+(\\d+)", status.read_text()) if status.exists() else None
    return int(found.group(1)) if found else None
from diagnosis import MemoryFigures
memory = MemoryFigures.model_validate_json(sys.stdin.read())
before, started = rss(), time.process_time()
from bot.render.chart import memory_chart
memory_chart(memory, workload="first")
cpu_ms = (time.process_time() - started) * 1000
print(json.dumps({"cpu_ms": cpu_ms, "before": before, "after": rss()}))
"""
_KIB = 1024


async def demo_memory() -> tuple[MemoryFigures, str]:
    """The demo OOM report's memory figures and workload name."""
    scenario = bundled_scenario("demo")
    [expectation, *_] = scenario.expect or []
    async with simulated(scenario, transport="asgi") as up:
        report = await diagnose(
            request_from_expectation(scenario, expectation),
            runai=up.runai,
            kube=up.kube,
            now=scenario.now,
        )
    if report.memory is None or report.workload is None:
        raise RuntimeError("the demo's first expectation no longer has a memory series")
    return report.memory, report.workload.name


def _shifted(memory: MemoryFigures, seconds: int) -> MemoryFigures:
    moved = [s.model_copy(update={"at": s.at + timedelta(seconds=seconds)}) for s in memory.samples]
    return memory.model_copy(update={"samples": tuple(moved)})


def cold_cpu_ms(memory: MemoryFigures, name: str, runs: int = 10) -> float:
    """Mean CPU (this thread) per chart of a report not drawn before."""
    from bot.render.chart import memory_chart  # noqa: PLC0415 - not needed to import the module

    reports = [_shifted(memory, next(_SHIFTS)) for _ in range(runs)]
    started = time.thread_time()
    for report in reports:
        memory_chart(report, workload=name)
    return (time.thread_time() - started) * 1000 / runs


async def chart_row() -> str:
    """`8.1 ms CPU cold (...); the first in a fresh process 45 ms CPU ..., RSS +6.2 MB`."""
    memory, name = await demo_memory()
    cold = cold_cpu_ms(memory, name)
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _FIRST, stdin=PIPE, stdout=PIPE, stderr=PIPE
    )
    out, err = await asyncio.wait_for(child.communicate(memory.model_dump_json().encode()), 120)
    if child.returncode != 0:
        raise RuntimeError(f"the first-chart child failed: {err.decode()[-400:]}")
    first = json.loads(out)
    if first["before"] is None:
        grown = "RSS not measured (no /proc)"
    else:
        grown = f"RSS +{(first['after'] - first['before']) / _KIB:.1f} MB"
    return (
        f"{cold:.1f} ms CPU cold (a new report each time, mean of 10); the first in a fresh "
        f"process {first['cpu_ms']:.0f} ms CPU with its imports, {grown}"
    )
