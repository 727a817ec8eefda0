"""Benchmark: the pipeline's wall time against the sum of its upstream calls.

Serves a bundled scenario with a fixed latency on every response, diagnoses it a few
times, and prints wall time, the number of upstream calls, the time they would take one
after another, and peak memory. Concurrency is working when the wall time stays near the
dependency chain (token → status → events → {spec, pods, history} → metrics) instead of
growing with the number of calls.

    python3 dev.py bench [--latency-ms 100] [--runs 5] [--scenario oom-killed]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import tracemalloc

from bot.backends import simulated
from bot.logging import configure_logging
from bot.scenarios import bundled_scenario, request_from_expectation
from diagnosis import diagnose


async def _run(name: str, latency_ms: int, runs: int) -> None:
    scenario = bundled_scenario(name).model_copy(update={"latency_ms": latency_ms})
    expectation = (scenario.expect or [])[0]
    request = request_from_expectation(scenario, expectation)
    walls: list[float] = []
    calls = 0
    for _ in range(runs):
        async with simulated(scenario) as up:  # a fresh token each run, as a cold start
            if up.simulator is None:
                raise RuntimeError("simulated() always serves a simulator")
            started = time.perf_counter()
            report = await diagnose(request, runai=up.runai, kube=up.kube, now=scenario.now)
            walls.append(time.perf_counter() - started)
            calls = len(up.simulator.requests)
    serial = calls * latency_ms / 1000
    median = statistics.median(walls)
    print(f"scenario {name}: {report.outcome.value} {report.category}")
    print(f"upstream calls per diagnosis: {calls} x {latency_ms} ms = {serial:.2f} s if serial")
    print(f"wall time: median {median:.2f} s, min {min(walls):.2f} s over {runs} runs")
    if serial:
        print(f"concurrency saves {1 - median / serial:.0%} of the serial time")


def main() -> None:
    """Parse arguments and run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--scenario", default="oom-killed")
    args = parser.parse_args()
    configure_logging("WARNING", "console")
    tracemalloc.start()
    asyncio.run(_run(args.scenario, args.latency_ms, args.runs))
    _, peak = tracemalloc.get_traced_memory()
    print(f"peak traced memory: {peak / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
