"""`python3 dev.py bench`: speed, scale and failover, measured in one run, printed as one table.

    python3 dev.py bench                       # everything (two to three minutes)
    python3 dev.py bench --only one,storm      # some: one acks storm distinct failover queued
    python3 dev.py bench --only acks           # 200 acks at once, timed by a raw-socket client
    python3 dev.py bench --only parse          # the parser's worst case alone (seconds, no world)
    python3 dev.py bench --no-profile          # skip the cProfile pass over serve's request path
    python3 dev.py bench --layout embedded     # replicas as one `serve` each, not the layout below

It drives the real HTTP app, configured by environment only, in the recommended layout
(each replica: `serve --no-worker --web-processes N` and `worker --processes N`, N the cores)
with signed slash commands, against the simulator in its own process at 50 ms per call, the
fake Slack Web API of the e2e tests and a throwaway Redis. The machine's CPU model and load
average are printed with every run; each target as measured / reference with "met" or
"MISSED"; the README keeps the latest table. The distinct asks are measured with the bot on
cores of its own and the harness on the others (`bench.cores`), and again sharing them.
`parse` (issue 20) runs in this process, without the world: figures only (`bench.parsing`).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from bench import parsing, scenarios
from bench.acks import acks
from bench.distinct import distinct
from bench.failover import failover
from bench.profile import profile
from bench.stats import Figure, loadavg, machine, render_table
from bench.workloads import generate
from bench.world import LAYOUTS, World, tail

__all__ = ["main"]

SCENARIOS = ("one", "acks", "storm", "distinct", "failover", "queued", "parse")
WORKLOADS = 1000


async def _run(
    world: World, chosen: list[str], *, with_profile: bool
) -> tuple[scenarios.Rows, str]:
    rows: scenarios.Rows = []
    one_rows, reference = await scenarios.one(world, warm_runs=5 if "one" in chosen else 0)
    if "one" in chosen:
        rows += one_rows
    steps: dict[str, Callable[[], Awaitable[scenarios.Rows]]] = {
        "acks": lambda: acks(world),
        "storm": lambda: scenarios.storm(world, reference),
        "distinct": lambda: distinct(world, reference),
        "failover": lambda: failover(world),
        "queued": lambda: scenarios.queued(world, WORKLOADS),
    }
    for name in chosen:
        if name in steps:
            started = time.monotonic()
            try:
                rows += await steps[name]()
            except Exception as error:  # noqa: BLE001 - a scenario that breaks is reported, not fatal
                logs = [line for r in world.replicas for line in tail(r.log, 3)]
                rows.append(Figure(f"{name}: FAILED to run", f"{type(error).__name__}: {error}"))
                rows += [Figure("   log", line[:160]) for line in logs]
            print(f"bench: {name} done in {time.monotonic() - started:.0f} s", file=sys.stderr)
    profile_text = ""
    if with_profile:
        profile_rows, profile_text = await profile(world)
        rows += profile_rows
    return rows, profile_text


def main(argv: list[str] | None = None) -> int:
    """Run the chosen scenarios and print the table."""
    parser = argparse.ArgumentParser(prog="dev.py bench", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        metavar="NAMES",
        default=",".join(SCENARIOS),
        help=f"comma-separated scenarios to run, of {', '.join(SCENARIOS)} (default all)",
    )
    parser.add_argument("--no-profile", action="store_true", help="skip the cProfile pass")
    parser.add_argument(
        "--layout",
        choices=LAYOUTS,
        default=LAYOUTS[0],
        help="how each replica runs: web and worker processes, one of each per core "
        "(recommended, the default), or one `serve` with its embedded worker",
    )
    parser.add_argument(
        "--keep", metavar="DIR", type=Path, help="keep the logs, the scenario and serve.prof in DIR"
    )
    args = parser.parse_args(argv)
    chosen = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = sorted(set(chosen) - set(SCENARIOS))
    if unknown:
        parser.error(
            f"unknown scenario(s) {', '.join(unknown)}; choose from {', '.join(SCENARIOS)}"
        )
    started = time.monotonic()
    header = machine()
    rows: scenarios.Rows = []
    profile_text = ""
    in_world = bool(set(chosen) - {"parse"})  # every scenario but `parse` needs the world
    if in_world:
        with tempfile.TemporaryDirectory(prefix="runai-why-bench-") as tmp:
            folder = args.keep or Path(tmp)
            folder.mkdir(parents=True, exist_ok=True)
            scenario = generate(WORKLOADS, folder, latency_ms=int(scenarios.LATENCY_S * 1000))
            world = World(folder, scenario, layout=args.layout)
            with world.running(scenarios.USERS):
                run = _run(world, chosen, with_profile=not args.no_profile)
                rows, profile_text = asyncio.run(run)
    if "parse" in chosen:
        rows += parsing.rows()
    simulated = (
        f"layout {args.layout}; simulator latency {scenarios.LATENCY_S * 1000:.0f} ms per call; "
    )
    header += [
        (simulated if in_world else "")
        + f"load average at the end: {loadavg()}; run took {time.monotonic() - started:.0f} s"
    ]
    print(render_table("runai-why benchmark (python3 dev.py bench)", rows, header))
    if profile_text:
        print("\n" + profile_text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
