"""The simulator in its own process, with a request log the benchmark can read.

    python -m bench.simproc SCENARIO.json LOG.jsonl

Serves the scenario on a loopback port (printed as the first line of standard output) the
way `runai-why sim` does, and appends one JSON line per request to LOG: when it arrived
and when its response was sent (Unix seconds), method, path and status. The chain floor is
computed from those intervals. SIGTERM stops it.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
import time
from pathlib import Path
from typing import TextIO

import uvloop

from runai_sim.app import RecordedRequest, Simulator
from runai_sim.scenario import Scenario
from runai_sim.server import serve

__all__ = ["main"]


def _logger(out: TextIO) -> object:
    def observe(_: Simulator, entry: RecordedRequest) -> None:
        # Called once the response is sent: now is the end of the request.
        line = {
            "start": entry.time.timestamp(),
            "end": time.time(),
            "method": entry.method,
            "path": entry.path,
            "status": entry.status,
        }
        out.write(json.dumps(line) + "\n")
        out.flush()

    return Simulator.observe(observe)


async def _serve(scenario: Path, log: Path) -> None:
    simulator = Simulator(Scenario.load(scenario))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    with log.open("a", encoding="utf-8") as out:
        _logger(out)
        async with serve(simulator) as url:
            sys.stdout.write(url + "\n")
            sys.stdout.flush()
            await stop.wait()


def main(argv: list[str]) -> int:
    """Serve until SIGTERM."""
    scenario, log = (Path(a) for a in argv)
    # On uvloop, as `runai-why serve` runs: the simulator stands in for Run:ai, and its own
    # per-request CPU on the stock loop showed up in the chain as time between levels.
    uvloop.run(_serve(scenario, log))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
