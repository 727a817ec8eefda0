"""Several processes of one role: `runai-why worker --processes N`, `serve --web-processes N`.

One Python process runs on one core. The supervisor starts N copies of the role as
processes of their own (`python -m bot <role> ... --processes 1`), each with its own event
loop, Redis clients and worker, all on the same Redis queue; it does no work itself. Web
copies each listen on `PORT` with `SO_REUSEPORT`, so the kernel spreads connections over
them. On SIGTERM (or Ctrl-C) the supervisor sends each copy SIGTERM and waits: each stops as
a lone process does (finish within `SHUTDOWN_GRACE_S`, hand the rest back to the queue). A
copy that dies is started again, after a pause that grows while it keeps dying young; one
that exits on a configuration error (exit code 2) stops them all, since every copy would.
On Linux a copy also receives SIGTERM if the supervisor itself is killed.

Metrics: the copies write prometheus-client's multiprocess files in one directory
(`PROMETHEUS_MULTIPROC_DIR`, a fresh temporary one unless set), and `/metrics` (the
supervisor on `METRICS_PORT`, or any copy on `PORT` with `METRICS_TOKEN`) serves their sum:
one scrape target per pod, as with one process (`bot.ops.metrics.serving_registry`).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import math
import os
import shutil
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import structlog
from prometheus_client import multiprocess

from bot.config import ConfigError
from bot.ops.metrics import MULTIPROC_ENV
from bot.ops.metrics_server import start_metrics_server

__all__ = [
    "SUPERVISOR_ENV",
    "Supervisor",
    "follow_supervisor",
    "reuse_port_socket",
    "usable_cores",
    "yield_to_acknowledgements",
]

#: Set in every copy to the supervisor's process ID.
SUPERVISOR_ENV = "RUNAI_WHY_SUPERVISOR"
EXIT_USAGE = 2
_PR_SET_PDEATHSIG = 1
#: A copy that dies within this many seconds of starting died young: the pause grows.
_YOUNG_S = 10.0
_MAX_PAUSE_S = 30.0
#: After `SHUTDOWN_GRACE_S`, how long a copy has to hand its work back before SIGKILL.
_HAND_BACK_S = 10.0
#: How much lower than the web processes' a worker's CPU priority is (`nice`).
WORKER_NICENESS = 19


def usable_cores(cgroup: Path = Path("/sys/fs/cgroup")) -> int:
    """The cores this process may use: its CPU affinity, capped by a cgroup CPU limit.

    In a container, `os.cpu_count()` is the node's; a Kubernetes `limits.cpu` of 2 is a
    quota of 2 cores (cgroup v2 `cpu.max`, or v1 `cpu.cfs_quota_us`), rounded up.
    """
    if hasattr(os, "sched_getaffinity"):
        cores = len(os.sched_getaffinity(0))
    else:  # pragma: no cover - macOS has no affinity
        cores = os.cpu_count() or 1
    quota = _cgroup_quota(cgroup)
    if quota is not None:
        cores = min(cores, math.ceil(quota))
    return max(1, cores)


def _cgroup_quota(root: Path) -> float | None:
    """Cores of the CPU quota (cgroup v2, then v1), or None when there is none."""
    with contextlib.suppress(OSError, ValueError):
        quota, period = (root / "cpu.max").read_text(encoding="ascii").split()
        return None if quota == "max" else int(quota) / int(period)
    for folder in (root / "cpu", root / "cpu,cpuacct"):
        with contextlib.suppress(OSError, ValueError):
            quota_us = int((folder / "cpu.cfs_quota_us").read_text(encoding="ascii"))
            period_us = int((folder / "cpu.cfs_period_us").read_text(encoding="ascii"))
            return None if quota_us <= 0 else quota_us / period_us
    return None


def reuse_port_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to `host:port` with `SO_REUSEPORT`: each web copy binds its own."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        raise ConfigError(
            f"cannot listen on {host}:{port} ({error.strerror or error}); set PORT to a free port"
        ) from error
    sock.set_inheritable(True)
    return sock


def _port_is_free(host: str, port: int) -> None:
    """Raise ConfigError if `host:port` is taken (bound without SO_REUSEPORT, so it says so)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            raise ConfigError(
                f"cannot listen on {host}:{port} ({error.strerror or error}); "
                "set PORT to a free port"
            ) from error


def follow_supervisor() -> None:
    """In a copy: be sent SIGTERM when the supervisor dies, even by SIGKILL (Linux only)."""
    parent = os.environ.get(SUPERVISOR_ENV)
    if not parent or not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM))
    if os.getppid() != int(parent):  # it died before the request took effect
        os.kill(os.getpid(), signal.SIGTERM)


def yield_to_acknowledgements() -> int:
    """In a worker: lower this process's CPU priority by `WORKER_NICENESS`; the new niceness.

    Where web and worker processes share cores in one cgroup (a `Procfile` on one host, or
    both in one container), the acknowledgement Slack waits 3 s for then goes before a
    diagnosis, which can wait; a worker still has every cycle nothing else wants. In the
    benchmark, 200 acks at once beside two busy workers measured a p99 of 0.47-0.75 s at
    normal priority and 0.29-0.30 s with the workers at niceness 10; later, with cheaper
    acks, six bursts each way gave 0.066-0.117 s at niceness 10 and 0.056-0.079 s at 19
    (CFS gives a nice-19 task 1.5 % of a core against a nice-0 one, a nice-10 task 10 %).
    Lowering one's own priority needs no privilege.
    """
    return os.nice(WORKER_NICENESS)


class Supervisor:
    """Runs `count` copies of one role's command line until SIGTERM or SIGINT."""

    def __init__(
        self,
        role: str,
        argv: Sequence[str],
        count: int,
        *,
        metrics_port: int | None,
        host: str,
        grace_s: float,
        web_port: int | None = None,
    ) -> None:
        self.role = role
        self.argv = [sys.executable, "-m", "bot", *argv]
        self.count = count
        self._metrics_port = metrics_port
        self._host = host
        self._web_port = web_port
        self._kill_after_s = grace_s + _HAND_BACK_S
        self.pids: dict[int, int] = {}
        """The process ID running in each slot now."""
        self._stop = asyncio.Event()
        self._failed: int | None = None
        self._log = structlog.get_logger(__name__).bind(role=role)

    def stop(self) -> None:
        """Stop every copy and return from `run` (what SIGTERM and SIGINT do)."""
        self._stop.set()

    def run(self) -> int:
        """Start the copies, keep them running, stop them; the exit code (0, or 2)."""
        if self._web_port is not None:
            _port_is_free(self._host, self._web_port)
        given = os.environ.get(MULTIPROC_ENV)
        directory = Path(given) if given else Path(tempfile.mkdtemp(prefix="runai-why-metrics-"))
        for stale in directory.glob("*.db"):  # a previous run's counts are not this run's
            stale.unlink()
        os.environ[MULTIPROC_ENV] = str(directory)
        try:
            start_metrics_server(self._metrics_port, self._host)
            return asyncio.run(self.supervise(directory))
        finally:
            if not given:
                os.environ.pop(MULTIPROC_ENV, None)
                shutil.rmtree(directory, ignore_errors=True)

    async def supervise(self, directory: Path) -> int:
        """Run the copies, their metrics in `directory`, until `stop` (or a signal)."""
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stop)
        self._log.info("processes_starting", count=self.count, pid=os.getpid())
        try:
            await asyncio.gather(*(self._keep(slot, directory) for slot in range(self.count)))
        finally:
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(sig)
        self._log.info("processes_stopped", count=self.count)
        return self._failed or 0

    async def _spawn(self, slot: int) -> asyncio.subprocess.Process:
        env = {**os.environ, SUPERVISOR_ENV: str(os.getpid()), "METRICS_PORT": "0"}
        process = await asyncio.create_subprocess_exec(*self.argv, env=env)
        self._log.info("process_started", slot=slot, pid=process.pid)
        return process

    async def _keep(self, slot: int, directory: Path) -> None:
        """Run copy `slot` until the stop; start it again whenever it dies."""
        young = 0
        while not self._stop.is_set():
            started = time.monotonic()
            process = await self._spawn(slot)
            self.pids[slot] = process.pid
            code = await self._until_exit_or_stop(process)
            multiprocess.mark_process_dead(process.pid, str(directory))  # type: ignore[no-untyped-call]
            if self._stop.is_set():
                return
            if code == EXIT_USAGE:  # a configuration error: every copy would fail alike
                self._log.error("process_misconfigured", slot=slot, pid=process.pid)
                self._failed = EXIT_USAGE
                self._stop.set()
                return
            young = young + 1 if time.monotonic() - started < _YOUNG_S else 0
            pause = min(_MAX_PAUSE_S, 0.5 * 2**young)
            self._log.warning(
                "process_exited", slot=slot, pid=process.pid, code=code, restart_in_s=pause
            )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), pause)

    async def _until_exit_or_stop(self, process: asyncio.subprocess.Process) -> int:
        exited = asyncio.ensure_future(process.wait())
        stopping = asyncio.ensure_future(self._stop.wait())
        await asyncio.wait({exited, stopping}, return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        if not exited.done():
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(asyncio.shield(exited), self._kill_after_s)
            except TimeoutError:
                self._log.error("process_killed", pid=process.pid, after_s=self._kill_after_s)
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
        return await exited
