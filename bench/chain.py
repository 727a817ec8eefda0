"""The dependency chain of one OOM diagnosis, cold and warm, from the simulator's request log.

`python3 -m bench.chain` diagnoses the demo's OOM workload (by ID, Tier 2) at a fixed
latency per upstream call: once on fresh clients (cold: the token first) and again (warm).
For each run it prints the levels (calls that had to wait for another, `chain_levels`), the
floor they set (levels x latency) and the wall time measured against it. Kept apart from
the benchmark's scenarios: `chain_lines` returns the lines for any caller to print.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from bench.stats import Timed, chain_levels
from bot.app.backends import simulated
from bot.app.demo.scenarios import bundled_scenario, request_from_expectation
from diagnosis import diagnose
from runai_sim.app import RecordedRequest, Simulator

__all__ = ["OOM_WORKLOAD", "chain_lines", "logged", "measure"]

#: training-job-42 in the demo: OOM-killed, with Kubernetes (Tier 2) evidence.
OOM_WORKLOAD = "f0658dcc-8ddb-493b-b983-99894f206aea"


@contextmanager
def logged(sim: Simulator | None = None) -> Iterator[list[Timed]]:
    """Every request the simulators (or only `sim`) serve in the block, start and end."""
    calls: list[Timed] = []

    def observe(seen: Simulator, entry: RecordedRequest) -> None:
        if sim is None or seen is sim:
            calls.append(Timed(entry.time.timestamp(), time.time(), entry.path))

    undo = Simulator.observe(observe)
    try:
        yield calls
    finally:
        undo()


async def measure(latency_ms: int = 50) -> list[tuple[str, int, float]]:
    """(run, levels, wall seconds) for a cold and then a warm diagnosis of `OOM_WORKLOAD`."""
    scenario = bundled_scenario("demo").model_copy(update={"latency_ms": latency_ms})
    expectation = next(
        e for e in scenario.expect or [] if e.get("request", {}).get("workload_id") == OOM_WORKLOAD
    )
    request = request_from_expectation(scenario, expectation)
    found: list[tuple[str, int, float]] = []
    async with simulated(scenario, retries=0, transport="asgi") as up:
        for run in ("cold", "warm"):
            with logged() as calls:
                started = time.perf_counter()
                await diagnose(request, runai=up.runai, kube=up.kube, now=scenario.now)
                wall = time.perf_counter() - started
            found.append((run, chain_levels(calls), wall))
    return found


def chain_lines(found: list[tuple[str, int, float]], latency_ms: int = 50) -> list[str]:
    """One line per run: levels, the floor they set, the wall time and its ratio to the floor."""
    lines = []
    for run, levels, wall in found:
        floor = levels * latency_ms / 1000
        ratio = wall / floor if floor else float("nan")
        lines.append(
            f"chain: {run} OOM diagnosis (Tier 2, {latency_ms} ms per call): {levels} levels, "
            f"floor {floor:.3f} s, wall {wall:.3f} s ({ratio:.2f}x)"
        )
    return lines


def main() -> int:
    """Print the chain of a cold and a warm OOM diagnosis."""
    latency_ms = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    for line in chain_lines(asyncio.run(measure(latency_ms)), latency_ms):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
