"""Keeping the harness off the bot's cores: CPU affinity for the benchmark's processes.

A target that compares the bot's latency with its own CPU spread over its cores is only
fair when nothing else runs on those cores. The harness (simulator, fake Slack, load
driver, Redis) stands for machines the bot does not share in production, so where this
machine has two usable cores or more, a scenario can put the bot on some and the harness
on the others (Linux `sched_setaffinity`, every thread of every harness process).

    python -m bench.cores CPUS -- COMMAND [ARG ...]   # COMMAND on CPUS (e.g. 1 or 2,3)

The command form is how the bot's replicas start on their cores: the affinity is set
before `exec`, so every process and thread they start inherits it.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Split", "describe", "launch", "main", "named", "pin", "split", "usable"]


@dataclass(frozen=True)
class Split:
    """Which cores the bot gets and which the harness gets (disjoint, both non-empty)."""

    bot: frozenset[int]
    harness: frozenset[int]


def usable() -> frozenset[int]:
    """The cores this process may run on; empty where the OS has no affinity (macOS)."""
    if not hasattr(os, "sched_getaffinity"):  # pragma: no cover - Linux has it
        return frozenset()
    return frozenset(os.sched_getaffinity(0))


def split(cores: Iterable[int]) -> Split | None:
    """The harness on the lowest third of `cores` (at least one), the bot on the rest.

    None with fewer than two: then the bot and the harness can only share. The harness
    spends about 0.4 s of CPU per second of the bot's, so a third of the cores keeps it
    from becoming the bottleneck while the bot keeps most of the machine.
    """
    ordered = sorted(cores)
    if len(ordered) < 2:  # noqa: PLR2004 - one core cannot be split
        return None
    harness = max(1, math.ceil(len(ordered) / 3))
    return Split(bot=frozenset(ordered[harness:]), harness=frozenset(ordered[:harness]))


def pin(pid: int, cores: Iterable[int]) -> None:
    """Put every thread of process `pid` on `cores`; threads it starts later inherit it."""
    chosen = set(cores)
    for task in Path(f"/proc/{pid}/task").iterdir():
        # A thread may end between the listing and the call.
        with contextlib.suppress(ProcessLookupError, FileNotFoundError):
            os.sched_setaffinity(int(task.name), chosen)


def launch(cores: Iterable[int], argv: Sequence[str]) -> list[str]:
    """The command line that runs `argv` on `cores` (see the module's usage)."""
    return [sys.executable, "-m", "bench.cores", describe(cores), "--", *argv]


def describe(cores: Iterable[int]) -> str:
    """`1` or `2,3`: the cores as a comma-separated list, as `launch` takes them."""
    return ",".join(str(core) for core in sorted(cores))


def named(cores: Iterable[int]) -> str:
    """`core 1` or `cores 2,3`, for the table."""
    listed = describe(cores)
    return f"cores {listed}" if "," in listed else f"core {listed}"


def main(argv: Sequence[str]) -> int:
    """Set this process's affinity to CPUS, then become COMMAND (returns only on an error)."""
    if len(argv) < 3 or argv[1] != "--":  # noqa: PLR2004 - CPUS, --, COMMAND
        sys.stderr.write("usage: python -m bench.cores CPUS -- COMMAND [ARG ...]\n")
        return 2
    try:
        cores = {int(core) for core in argv[0].split(",")}
        os.sched_setaffinity(0, cores)
    except (ValueError, OSError) as error:
        sys.stderr.write(f"bench.cores: cannot run on cores {argv[0]!r}: {error}\n")
        return 2
    command = list(argv[2:])
    try:
        os.execvp(command[0], command)  # noqa: S606 - the benchmark's own replica command
    except OSError as error:
        sys.stderr.write(f"bench.cores: cannot run {command[0]!r}: {error}\n")
    return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
