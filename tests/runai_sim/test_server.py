"""The simulator over real sockets: in the loop, in a thread, and as the `sim` command."""

import asyncio
import os
import signal
import socket
import subprocess
import sys

import httpx
import pytest

from runai_sim import Scenario, ScenarioError, Simulator, run, serve, serve_in_thread
from runai_sim.server import _bind, serve_asgi
from tests.runai_sim.sim_helpers import BASIC, CREDENTIALS

pytestmark = pytest.mark.e2e


def test_the_listening_socket_says_tcp_so_asyncio_sets_nodelay():
    """The socket's `proto` is IPPROTO_TCP, the condition for asyncio to set TCP_NODELAY.

    Without it every reused connection waits ~40 ms for a delayed ACK, and every latency
    measured against the simulator is inflated.
    """
    sock = _bind("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP
    finally:
        sock.close()


async def test_serve_binds_an_ephemeral_loopback_port_and_stops(sim):
    async with serve(sim) as url:
        assert url.startswith("http://127.0.0.1:")
        assert int(url.rsplit(":", 1)[1]) > 0
        async with httpx.AsyncClient(base_url=url) as client:
            response = await client.post(
                "/api/v1/token", json={"grantType": "client_credentials", **CREDENTIALS}
            )
            assert response.status_code == 200
    with pytest.raises(httpx.ConnectError):
        async with httpx.AsyncClient(base_url=url) as client:
            await client.post("/api/v1/token", json={})


def _held_app(entered: asyncio.Event, release: asyncio.Event):
    """An ASGI app whose every request waits for `release` before it answers."""

    async def app(scope, receive, send):
        assert scope["type"] == "http"
        entered.set()
        await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"done"})

    return app


async def test_a_stopping_server_answers_the_request_in_flight_first():
    entered, release = asyncio.Event(), asyncio.Event()
    async with httpx.AsyncClient() as client:
        async with serve_asgi(_held_app(entered, release)) as url:
            request = asyncio.create_task(client.get(url))
            await entered.wait()
            # Released only after the server has been told to stop (leaving this block).
            asyncio.get_running_loop().call_later(0.05, release.set)
        assert release.is_set()  # the server waited for the held request before it stopped
        response = await request
    assert response.text == "done"


async def test_a_delayed_request_whose_client_left_is_dropped_not_waited_out(scenario):
    sim = Simulator(scenario)
    sim.add_fault({"path": "/api/v1/clusters", "latency_ms": 3_600_000})
    async with serve(sim) as url, httpx.AsyncClient(timeout=0.2) as client:
        with pytest.raises(httpx.ReadTimeout):  # the client gives up and closes the connection
            await client.get(f"{url}/api/v1/clusters")
        async with asyncio.timeout(10):  # a hang guard: the delay itself is an hour
            while not sim.requests:  # noqa: ASYNC110 - the log has no event to wait on
                await asyncio.sleep(0.01)
    [dropped] = sim.requests
    assert (dropped.path, dropped.status) == ("/api/v1/clusters", 0)  # never answered


async def test_two_servers_run_side_by_side(scenario):
    async with serve(Simulator(scenario)) as first, serve(Simulator(scenario)) as second:
        assert first != second


def test_serve_in_thread_serves_sync_clients(scenario):
    sim = Simulator(scenario)
    with serve_in_thread(sim) as url, httpx.Client(base_url=url) as client:
        token = client.post(
            "/api/v1/token", json={"grantType": "client_credentials", **CREDENTIALS}
        )
        headers = {"Authorization": f"Bearer {token.json()['accessToken']}"}
        assert client.get("/api/v1/clusters", headers=headers).status_code == 200
        sim.add_fault({"path": "/api/v1/clusters", "status": 503, "count": 1})
        assert client.get("/api/v1/clusters", headers=headers).status_code == 503
    assert len(sim.requests) == 3


def test_serve_in_thread_reports_a_port_in_use(scenario):
    sim = Simulator(scenario)
    with serve_in_thread(sim) as url:
        port = int(url.rsplit(":", 1)[1])
        with pytest.raises(RuntimeError, match="did not start"), serve_in_thread(sim, port=port):
            pass


def test_run_prints_one_line_and_serves_until_interrupted():
    code = "import sys; from runai_sim import run; run(sys.argv[1])"
    process = subprocess.Popen(  # noqa: S603 - our own interpreter and test file.
        [sys.executable, "-c", code, str(BASIC)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        assert line.startswith("Run:ai simulator serving basic on http://127.0.0.1:")
        assert line.endswith("(client id runai-why-demo, secret demo-secret)")
        url = line.split(" on ", 1)[1].split(" ", 1)[0]
        response = httpx.post(
            f"{url}/api/v1/token", json={"grantType": "client_credentials", **CREDENTIALS}
        )
        assert response.status_code == 200
    finally:
        os.kill(process.pid, signal.SIGINT)
        process.wait(timeout=10)
    assert process.returncode == 0
    assert process.stderr is not None
    assert process.stderr.read() == ""
    process.stdout.close()
    process.stderr.close()


def test_run_raises_scenario_error_for_a_bad_file(tmp_path):
    with pytest.raises(ScenarioError, match="cannot read"):
        run(tmp_path / "missing.json")


def test_scenario_loads_for_the_subprocess():
    assert Scenario.load(BASIC).name == "basic"
