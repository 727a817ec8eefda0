"""Several processes of one role (`bot.app.processes`): real processes, a real Redis, real HTTP."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
import redis.asyncio
from prometheus_client.values import MultiProcessValue

from bot.app.cli import main
from bot.app.processes import WORKER_NICENESS, Supervisor, reuse_port_socket, usable_cores
from bot.config import ConfigError
from bot.ops.metrics import exposition
from runai_sim.app import Simulator
from runai_sim.server import serve
from tests.bot.durable.worker_process import STALLED_EVIDENCE, journaled, worker_process
from tests.bot.slack.fake_slack import FakeSlack
from tests.bot.slack.harness import DEMO, SECRET, first_line, running_bots
from tests.bot.slack.signing import signed_headers, slash_command_body
from tests.ports import free_port

ASK = "cluster=prod-a workload=training-job-42 project=ml-team"
DEMO_FILE = Path(__file__).resolve().parents[3] / "runai_sim" / "scenarios" / "demo.json"
STREAM = "{runai-why-work}:stream"


def _slack_env(fake_slack: FakeSlack) -> dict[str, str]:
    return {
        "SLACK_BOT_TOKEN": "xoxb-e2e-token",
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_URL": fake_slack.base_url,
    }


def _events(log: Path, event: str) -> list[dict[str, object]]:
    lines = log.read_text(encoding="utf-8").splitlines()
    found = [json.loads(line) for line in lines if line.startswith("{")]
    return [e for e in found if e.get("event") == event]


async def _logged(log: Path, event: str, count: int) -> list[dict[str, object]]:
    """Wait (up to a minute) until `log` holds `count` lines of `event`."""
    async with asyncio.timeout(60):
        while True:
            if len(found := _events(log, event)) >= count:
                return found
            await asyncio.sleep(0.05)


async def _drained(client: redis.asyncio.Redis) -> None:
    async with asyncio.timeout(60):
        while True:
            if await client.xlen(STREAM) == 0:
                return
            await asyncio.sleep(0.05)


# ---------------------------------------------------------------- the core count


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param({}, None, id="no cgroup: the affinity"),
        pytest.param({"cpu.max": "max 100000\n"}, None, id="v2 without a quota"),
        pytest.param({"cpu.max": "100000 100000\n"}, 1, id="v2 one core"),
        pytest.param({"cpu.max": "150000 100000\n"}, 2, id="v2 1.5 cores rounds up"),
        pytest.param({"cpu/cpu.cfs_quota_us": "-1", "cpu/cpu.cfs_period_us": "100000"}, None, id="v1 none"),
        pytest.param({"cpu/cpu.cfs_quota_us": "50000", "cpu/cpu.cfs_period_us": "100000"}, 1, id="v1 half"),
        pytest.param({"cpu,cpuacct/cpu.cfs_quota_us": "100000", "cpu,cpuacct/cpu.cfs_period_us": "100000"}, 1, id="v1 joint"),
        pytest.param({"cpu.max": "garbage"}, None, id="unreadable: ignored"),
    ],
)  # fmt: skip
def test_the_core_count_is_the_affinity_capped_by_the_cgroup_quota(
    tmp_path: Path, files: dict[str, str], expected: int | None
):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="ascii")
    affinity = len(os.sched_getaffinity(0))
    assert usable_cores(tmp_path) == min(affinity, expected or affinity)


@pytest.mark.parametrize("flag", [["worker", "--processes"], ["serve", "--web-processes"]])
@pytest.mark.parametrize("count", ["0", "-1", "two"])
def test_a_process_count_is_a_positive_number_or_auto(
    capsys: pytest.CaptureFixture[str], flag: list[str], count: str
):
    with pytest.raises(SystemExit) as exited:
        main([*flag, count])
    assert exited.value.code == 2
    assert "expected a number of processes or 'auto'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["worker", "--processes", "2"], "set REDIS_URL for `runai-why worker`"),
        (["serve", "--web-processes", "auto"], "set REDIS_URL for --web-processes"),
        # the Procfile's web line on one core: nothing would ever take what it acknowledges
        (["serve", "--no-worker", "--web-processes", "auto"], "set REDIS_URL to serve without"),
        (["serve", "--no-worker"], "set REDIS_URL to serve without a worker"),
    ],
)
def test_several_processes_need_redis_to_share_the_queue(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str], said: str
):
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setattr("bot.app.cli.usable_cores", lambda: 2)
    assert main(argv) == 2
    assert said in capsys.readouterr().err


def test_serving_without_a_worker_by_setting_needs_redis_too(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setenv("EMBEDDED_WORKER", "false")
    assert main(["serve", "--web-processes", "1"]) == 2
    assert "set REDIS_URL to serve without a worker" in capsys.readouterr().err


def test_socket_mode_is_one_process(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:1/0")
    assert main(["serve", "--socket-mode", "--web-processes", "2"]) == 2
    assert "in Socket Mode run one process" in capsys.readouterr().err


# ---------------------------------------------------------------- workers


@pytest.mark.e2e
@pytest.mark.timeout(180)  # two processes of their own that import, diagnose and draw charts
async def test_two_worker_processes_answer_every_ask_once_and_count_them_together(
    fake_slack: FakeSlack, redis_url: str, redis_client, tmp_path: Path
):
    """`worker --processes 2`: a supervisor and two workers drain the queue, each ask once."""
    asks = 6
    port = free_port()
    log = tmp_path / "worker.log"
    async with running_bots(fake_slack, redis_url, embedded_worker=False) as [web]:
        for index in range(asks):
            body = slash_command_body(
                ASK, channel=f"C{index}", response_url=fake_slack.response_url(f"r{index}")
            )
            assert (await web.send(body)).status_code == 200
        assert await redis_client.xlen(STREAM) == asks  # queued, none answered yet
        supervisor = await worker_process(
            _slack_env(fake_slack),
            web.runai_url,
            redis_url,
            metrics_port=port,
            processes=2,
            log=log,
            # Nobody is killed here: a worker niced +10 on a busy 2-core host may miss a
            # half-second renewal, and its item would be run again by the other one (the
            # journal keeps that to one message, but this test counts updates and diagnoses).
            claim_idle_s=10.0,
        )
        try:
            await _logged(log, "worker_started", 2)  # both copies run (however slow to start)
            answers = await fake_slack.wait_for_async("chat.update", count=asks, timeout=150)
            await _drained(redis_client)  # each answered item acknowledged and deleted
            async with httpx.AsyncClient() as http:
                scraped = await http.get(f"http://127.0.0.1:{port}/metrics", timeout=5)
            pids = [int(str(e["pid"])) for e in _events(log, "process_started")]
            priorities = [os.getpriority(os.PRIO_PROCESS, pid) for pid in pids]
            own = os.getpriority(os.PRIO_PROCESS, supervisor.pid)
        finally:
            supervisor.send_signal(signal.SIGTERM)
            code = await supervisor.wait()
    assert code == 0
    # Workers yield the CPU to acknowledgements on a shared host (the supervisor does not).
    lowest = 19  # the kernel's cap, where a niced test run starts near it
    assert priorities == [min(lowest, os.getpriority(os.PRIO_PROCESS, 0) + WORKER_NICENESS)] * 2
    assert own == os.getpriority(os.PRIO_PROCESS, 0)
    assert Counter(a.body["channel"] for a in answers) == {f"C{i}": 1 for i in range(asks)}
    assert {first_line(a).split(" ")[0] for a in answers} == {"OOM_KILLED"}
    placeholders = fake_slack.calls("chat.postMessage")
    assert Counter(p.body["channel"] for p in placeholders) == {f"C{i}": 1 for i in range(asks)}
    assert await redis_client.xlen(STREAM) == 0
    started = _events(log, "worker_started")
    assert len({e["consumer"] for e in started}) == 2
    assert len(_events(log, "worker_stopped")) == 2
    # One scrape target: the supervisor serves the processes' figures added up.
    assert scraped.status_code == 200
    counted = [
        line
        for line in scraped.text.splitlines()
        if line.startswith("runai_why_diagnoses_total{") and 'category="OOM_KILLED"' in line
    ]
    assert [float(line.rsplit(" ", 1)[1]) for line in counted] == [float(asks)]


@pytest.mark.e2e
@pytest.mark.timeout(120)
async def test_sigterm_to_the_supervisor_mid_diagnosis_hands_the_work_back(
    fake_slack: FakeSlack, redis_url: str, redis_client, tmp_path: Path
):
    """SIGTERM mid-diagnosis: the copy holding the ask hands it back; nothing is lost."""
    slow = DEMO.model_copy(update={"faults": [STALLED_EVIDENCE]})
    async with (
        running_bots(fake_slack, redis_url, embedded_worker=False) as [web],
        serve(Simulator(slow)) as slow_url,
    ):
        supervisor = await worker_process(
            _slack_env(fake_slack), slow_url, redis_url, processes=2, log=tmp_path / "w.log"
        )
        try:
            await web.send(slash_command_body(ASK, response_url=fake_slack.response_url("r")))
            [placeholder] = await fake_slack.wait_for_async("chat.postMessage", timeout=60)
            await journaled(redis_client, placeholder.response["ts"])
        finally:
            supervisor.send_signal(signal.SIGTERM)
            code = await supervisor.wait()
    assert code == 0
    assert fake_slack.calls("chat.update") == []
    assert await redis_client.xlen(STREAM) == 1  # still queued: nothing lost
    assert (await redis_client.xpending(STREAM, "workers"))["pending"] == 0  # handed back
    # The copy that held it handed it back. The other held nothing, or, when its own SIGTERM
    # came a moment later, took the handed-back ask as a live consumer should and handed it
    # back in turn: the one ask (the stream holds one) went back once or twice, never lost.
    handed = [int(str(e["handed_back"])) for e in _events(tmp_path / "w.log", "worker_stopped")]
    assert sorted(handed) in ([1], [0, 1], [1, 1])


@pytest.mark.e2e
@pytest.mark.timeout(120)
async def test_a_worker_process_that_dies_is_started_again(
    fake_slack: FakeSlack, redis_url: str, tmp_path: Path
):
    log = tmp_path / "w.log"
    async with serve(Simulator(DEMO)) as runai_url:
        supervisor = await worker_process(
            _slack_env(fake_slack), runai_url, redis_url, processes=2, log=log
        )
        try:
            first, _ = await _logged(log, "process_started", 2)
            os.kill(int(str(first["pid"])), signal.SIGKILL)
            [exited] = await _logged(log, "process_exited", 1)
            again = (await _logged(log, "process_started", 3))[-1]
        finally:
            supervisor.send_signal(signal.SIGTERM)
            code = await supervisor.wait()
    assert code == 0
    assert exited["pid"] == first["pid"]
    assert exited["code"] == -signal.SIGKILL
    assert again["slot"] == first["slot"]
    assert again["pid"] != first["pid"]


@pytest.mark.e2e
@pytest.mark.timeout(120)
async def test_a_killed_supervisor_takes_its_processes_with_it(
    fake_slack: FakeSlack, redis_url: str, tmp_path: Path
):
    """SIGKILL to the supervisor: its copies are sent SIGTERM, and stop as they would."""
    log = tmp_path / "w.log"
    async with serve(Simulator(DEMO)) as runai_url:
        supervisor = await worker_process(
            _slack_env(fake_slack), runai_url, redis_url, processes=2, log=log
        )
        await _logged(log, "worker_started", 2)
        supervisor.send_signal(signal.SIGKILL)
        await supervisor.wait()
        stopped = await _logged(log, "worker_stopped", 2)
    assert len(stopped) == 2


# ---------------------------------------------------------------- web processes


async def _web_processes(
    platform: dict[str, str], runai_url: str, redis_url: str, port: int, log: Path, *extra: str
) -> asyncio.subprocess.Process:
    env = {
        "PATH": os.environ.get("PATH", ""),
        **platform,
        "REDIS_URL": redis_url,
        "RUNAI_URL": runai_url,
        "RUNAI_CLIENT_ID": "runai-why-demo",
        "RUNAI_CLIENT_SECRET": "demo-secret",
        "PORT": str(port),
        "METRICS_PORT": "0",
        "LOG_FORMAT": "json",
        "SHUTDOWN_GRACE_S": "0.2",
    }
    with log.open("wb") as stderr:
        return await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "serve",
            "--host",
            "127.0.0.1",
            *extra,
            env=env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=stderr,
        )


async def _ready(url: str) -> None:
    async with httpx.AsyncClient() as http, asyncio.timeout(60):
        while True:
            try:
                if (await http.get(f"{url}/readyz", timeout=2)).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.1)


@pytest.mark.e2e
@pytest.mark.timeout(120)
async def test_web_processes_without_a_worker_only_acknowledge_and_enqueue(
    fake_slack: FakeSlack, redis_url: str, redis_client, tmp_path: Path
):
    """`serve --no-worker --web-processes 2`: one port, two processes; nothing is answered."""
    port, log, asks = free_port(), tmp_path / "web.log", 20
    fake_slack.users["U1"] = {"profile": {"display_name": "U1", "email": "bob@acme.ai"}}
    async with serve(Simulator(DEMO)) as runai_url:
        web = await _web_processes(
            _slack_env(fake_slack),
            runai_url,
            redis_url,
            port,
            log,
            "--no-worker",
            "--web-processes",
            "2",
        )
        try:
            await _logged(log, "process_started", 2)
            url = f"http://127.0.0.1:{port}"
            await _ready(url)
            limits = httpx.Limits(max_keepalive_connections=0)  # a connection per ask
            async with httpx.AsyncClient(limits=limits, timeout=10) as http:
                bodies = [  # twenty people: one person's asks are capped at ten
                    slash_command_body(
                        ASK,
                        user=f"U{i}",
                        channel=f"C{i}",
                        response_url=fake_slack.response_url(f"r{i}"),
                    )
                    for i in range(asks)
                ]
                acks = await asyncio.gather(
                    *(http.post(f"{url}/slack/events", content=b, headers=signed_headers(SECRET, b)) for b in bodies)
                )  # fmt: skip
        finally:
            web.send_signal(signal.SIGTERM)
            code = await web.wait()
    assert code == 0
    assert [a.status_code for a in acks] == [200] * asks
    assert await redis_client.xlen(STREAM) == asks  # every ask queued once
    groups = await redis_client.xinfo_groups(STREAM)
    assert [g["consumers"] for g in groups] in ([], [0])  # no process took any
    assert fake_slack.calls("chat.postMessage") == []
    assert fake_slack.calls("chat.update") == []
    assert len(_events(log, "process_started")) == 2


@pytest.mark.e2e
@pytest.mark.timeout(120)
async def test_web_processes_that_are_misconfigured_stop_the_supervisor(
    fake_slack: FakeSlack, redis_url: str, tmp_path: Path
):
    """A copy that exits on a configuration error stops them all, with exit code 2.

    Without Slack's signing secret, each copy's start-up (not the supervisor's) refuses.
    """
    log = tmp_path / "web.log"
    unsigned = {k: v for k, v in _slack_env(fake_slack).items() if k != "SLACK_SIGNING_SECRET"}
    async with serve(Simulator(DEMO)) as runai_url:
        web = await _web_processes(
            unsigned, runai_url, redis_url, free_port(), log, "--web-processes", "2"
        )
        code = await web.wait()
    assert code == 2
    assert _events(log, "process_misconfigured")


# ---------------------------------------------------------------- the supervisor in-process


def _sims(count: int) -> Supervisor:
    """Copies that run until SIGTERM: simulators on ports of their own."""
    argv = ["sim", "--scenario", str(DEMO_FILE), "--port", "0"]
    return Supervisor("sim", argv, count, metrics_port=0, host="127.0.0.1", grace_s=1)


async def _until(check: Callable[[], bool]) -> None:
    async with asyncio.timeout(60):
        while True:
            if check():
                return
            await asyncio.sleep(0.05)


@pytest.mark.e2e
@pytest.mark.timeout(120)
async def test_the_supervisor_starts_a_dead_copy_again_and_stops_them_all(tmp_path: Path):
    supervisor = _sims(2)
    running = asyncio.create_task(supervisor.supervise(tmp_path))
    try:
        await _until(lambda: len(supervisor.pids) == 2)
        first = supervisor.pids[0]
        os.kill(first, signal.SIGKILL)
        await _until(lambda: supervisor.pids[0] != first)
        again = supervisor.pids[0]
    finally:
        supervisor.stop()
        code = await running
    assert code == 0
    assert again != first
    for pid in supervisor.pids.values():  # each copy was stopped and reaped
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_copies_with_a_configuration_error_stop_the_supervisor_with_exit_code_2():
    argv = ["worker", "--processes", "none"]  # every copy refuses its arguments
    supervisor = Supervisor(
        "worker", argv, 2, metrics_port=0, host="127.0.0.1", grace_s=1, web_port=free_port()
    )
    assert supervisor.run() == 2


def test_a_port_in_use_stops_web_processes_before_they_start():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        web = Supervisor("web", [], 2, metrics_port=0, host="127.0.0.1", grace_s=1, web_port=port)
        with pytest.raises(ConfigError, match=f"cannot listen on 127.0.0.1:{port}"):
            web.run()
        with pytest.raises(ConfigError, match="set PORT to a free port"):
            reuse_port_socket("127.0.0.1", port)


def test_web_copies_share_a_port():
    first = reuse_port_socket("127.0.0.1", 0)
    try:
        port = first.getsockname()[1]
        second = reuse_port_socket("127.0.0.1", port)  # refused without SO_REUSEPORT
        try:
            assert second.getsockname() == first.getsockname()
        finally:
            second.close()
    finally:
        first.close()


def test_the_supervisor_leaves_the_environment_as_it_found_it():
    supervisor = Supervisor(
        "worker", ["worker", "--processes", "none"], 1, metrics_port=0, host="127.0.0.1", grace_s=1
    )
    assert supervisor.run() == 2
    assert "PROMETHEUS_MULTIPROC_DIR" not in os.environ


def test_metrics_under_a_supervisor_are_every_process_s_added_up(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    """What two processes counted in the multiprocess directory is served as one sum."""
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    for pid, count in ((101, 2.0), (102, 3.0)):
        value_class = MultiProcessValue(process_identifier=lambda pid=pid: pid)
        name = "runai_why_diagnoses_total"
        value = value_class(
            "counter", "runai_why_diagnoses", name, ("outcome",), ("diagnosed",), "help"
        )
        value.inc(count)
    served = exposition().decode()
    assert 'runai_why_diagnoses_total{outcome="diagnosed"} 5.0' in served.splitlines()
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR")
    summed = 'runai_why_diagnoses_total{outcome="diagnosed"} 5.0'
    assert summed not in exposition().decode().splitlines()  # this process's own registry
