"""One replica of the benchmark: its processes, when it is ready, its CPU time and memory."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

__all__ = ["Replica", "process_cpu_seconds", "wait_ready"]

_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
_STARTUP_S = 30.0


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc/<each>/stat)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = stat.read_text(encoding="utf-8").rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                found.append(int(stat.parent.name))
    return sorted(found)


def _role(pid: int) -> str:
    """`serve`, `serve --web-processes 2`, `worker --processes 1`...: its command line, short."""
    with contextlib.suppress(OSError):
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
        words = [w for w in argv if w in {"serve", "worker"} or w.isdigit() or "processes" in w]
        return " ".join(words) or "?"
    return "gone"


@dataclass
class Replica:
    """One replica: a `runai-why serve`, or (`recommended`) a web and a worker supervisor."""

    name: str
    process: subprocess.Popen[bytes]
    url: str
    log: Path
    others: list[subprocess.Popen[bytes]] = field(default_factory=list)
    """Its other top-level processes (the worker supervisor of the recommended layout)."""
    workers: int = 0
    """How many worker processes it runs apart from the web ones (recommended layout)."""

    @property
    def pid(self) -> int:
        """The process ID of the web side."""
        return self.process.pid

    def pids(self) -> list[int]:
        """Every process of the replica: its top-level ones and their children."""
        tops = [self.process.pid, *(p.pid for p in self.others)]
        return [pid for top in tops for pid in (top, *_children(top))]

    def cpu_seconds(self) -> float:
        """User + system CPU time so far over its processes (`/proc/<pid>/stat`, 14 and 15)."""
        return sum(process_cpu_seconds(pid) for pid in self.pids())

    def diagnosing_processes(self) -> int:
        """How many of its processes run diagnoses: each `worker` copy, or an embedded `serve`."""
        roles = [_role(pid) for pid in self.pids()]
        return sum(1 for r in roles if r in {"serve", "worker --processes 1"})

    def memory_mb(self, key: str = "VmHWM") -> float:
        """The largest peak (`VmHWM`) or current (`VmRSS`) resident memory of one process, MB."""
        return max((_memory_mb(pid, key) for pid in self.pids()), default=float("nan"))

    def memory_by_process(self, key: str = "VmHWM") -> str:
        """`serve --web-processes 1: 61 MB, ...`: each process's peak, for the table."""
        return ", ".join(f"{_role(pid)}: {_memory_mb(pid, key):.0f} MB" for pid in self.pids())

    def kill(self) -> None:
        """SIGKILL (kill -9) every process, children first: no shutdown, as when a node dies."""
        for pid in reversed(self.pids()):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for process in (self.process, *self.others):
            process.wait(10)

    def stop(self, grace_s: float = 3.0) -> None:
        """SIGTERM, then SIGKILL if it has not exited within `grace_s` (between scenarios)."""
        tops = [p for p in (self.process, *self.others) if p.poll() is None]
        for process in tops:
            process.terminate()
        try:
            for process in tops:
                process.wait(grace_s)
        except subprocess.TimeoutExpired:
            self.kill()


def _memory_mb(pid: int, key: str) -> float:
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024 / 1e6
    return float("nan")


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU time so far of one process (`/proc/<pid>/stat`, 14 and 15); 0 if gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except OSError:
        return 0.0
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS


async def wait_ready(http: httpx.AsyncClient, replica: Replica) -> None:
    """Until /readyz answers and every worker process has started (none is still importing)."""
    deadline = time.monotonic() + _STARTUP_S
    web_ready = False
    while time.monotonic() < deadline:
        if replica.process.poll() is not None:
            raise RuntimeError(f"{replica.name} exited; see {replica.log}")
        with contextlib.suppress(httpx.HTTPError):
            web_ready = web_ready or (await http.get(f"{replica.url}/readyz")).status_code == 200  # noqa: PLR2004
        if web_ready and _workers_started(replica):
            return
        await asyncio.sleep(0.1)
    raise RuntimeError(f"{replica.name} was not ready within {_STARTUP_S:.0f} s; see {replica.log}")


def _workers_started(replica: Replica) -> bool:
    """Whether each worker process of the recommended layout has logged `worker_started`."""
    if not replica.workers:
        return True
    log = replica.log.with_suffix(".worker.log")
    with contextlib.suppress(OSError):
        text = log.read_text(encoding="utf-8")
        return text.count('"event": "worker_started"') >= replica.workers
    return False
