"""The control endpoint: off by default, loopback only, adds, replaces and removes workloads."""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
from typing import Any

import httpx
import pytest

from runai_sim import Scenario, Simulator, serve
from runai_sim.control import MAX_ENTRY_BYTES, is_loopback
from runai_sim.scenario import ScenarioError
from runai_sim.server import run
from tests.runai_sim.sim_helpers import BASIC, BERT, asgi_client, fetch_token

NEW_ID = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"


def _entry(workload_id: str = NEW_ID, **changes: Any) -> dict[str, Any]:
    """The basic scenario's first entry under another id (and other workload fields)."""
    raw = json.loads(BASIC.read_text(encoding="utf-8"))["workloads"][0]
    entry = copy.deepcopy(raw)
    entry["workload"].update({"id": workload_id, "name": "bert-ft-ctl", **changes})
    entry.pop("spec", None)
    return {k: v for k, v in entry.items() if not k.startswith("_")}


@pytest.fixture
def controlled() -> Simulator:
    return Simulator(Scenario.load(BASIC), control=True)


async def test_off_by_default_the_path_does_not_exist(sim: Simulator):
    async with asgi_client(sim) as client:
        response = await client.put(f"/_sim/workloads/{NEW_ID}", json=_entry())
    assert response.status_code == 401  # no token: an unknown path of the API, not a control
    async with asgi_client(sim) as client:
        client.headers["Authorization"] = f"Bearer {await fetch_token(client)}"
        response = await client.put(f"/_sim/workloads/{NEW_ID}", json=_entry())
    assert response.status_code == 404
    assert sim.scenario.workload(NEW_ID) is None


async def test_put_adds_then_replaces_and_the_api_serves_it(controlled: Simulator):
    async with asgi_client(controlled) as client:
        added = await client.put(f"/_sim/workloads/{NEW_ID}", json=_entry(phase="Running"))
        replaced = await client.put(f"/_sim/workloads/{NEW_ID}", json=_entry(phase="Failed"))
        client.headers["Authorization"] = f"Bearer {await fetch_token(client)}"
        served = await client.get(f"/api/v1/workloads/{NEW_ID}")
        listed = await client.get("/api/v1/workloads", params={"filterBy": "name==bert-ft-ctl"})
    assert (added.status_code, added.json()) == (201, {"id": NEW_ID, "replaced": False})
    assert (replaced.status_code, replaced.json()) == (200, {"id": NEW_ID, "replaced": True})
    assert served.json()["phase"] == "Failed"
    assert [w["id"] for w in listed.json()["workloads"]] == [NEW_ID]
    assert sum(e.id == NEW_ID for e in controlled.scenario.workloads) == 1


async def test_delete_removes_and_a_second_delete_is_404(controlled: Simulator):
    async with asgi_client(controlled) as client:
        first = await client.delete(f"/_sim/workloads/{BERT}")
        second = await client.delete(f"/_sim/workloads/{BERT}")
    assert first.status_code == 204
    assert second.status_code == 404
    assert controlled.scenario.workload(BERT) is None


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        (b"{not json", 400, "Not valid JSON"),
        (json.dumps({"workload": {"name": "x"}}).encode(), 400, "Not a workload entry"),
        (json.dumps({"workload": {"id": NEW_ID}, "extra": 1}).encode(), 400, "extra"),
        (json.dumps(_entry("another-id")).encode(), 400, "is not the path's"),
        (b"x" * (MAX_ENTRY_BYTES + 1), 413, "at most"),
    ],
)
async def test_a_bad_entry_is_refused_and_changes_nothing(
    controlled: Simulator, body: bytes, status: int, says: str
):
    before = [e.id for e in controlled.scenario.workloads]
    async with asgi_client(controlled) as client:
        response = await client.put(f"/_sim/workloads/{NEW_ID}", content=body)
    assert response.status_code == status
    assert says in response.json()["details"]
    assert [e.id for e in controlled.scenario.workloads] == before


async def test_a_client_that_is_not_on_loopback_is_refused(controlled: Simulator):
    transport = httpx.ASGITransport(app=controlled.app, client=("10.1.2.3", 5000))
    async with httpx.AsyncClient(transport=transport, base_url="http://sim") as client:
        put = await client.put(f"/_sim/workloads/{NEW_ID}", json=_entry())
        delete = await client.delete(f"/_sim/workloads/{BERT}")
    assert (put.status_code, delete.status_code) == (403, 403)
    assert controlled.scenario.workload(NEW_ID) is None
    assert controlled.scenario.workload(BERT) is not None


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),  # noqa: S104 - the address under test
        ("10.0.0.1", False),
        ("::", False),
        ("example.com", False),
        ("", False),
        (None, False),
    ],
)
def test_is_loopback(host: str | None, *, loopback: bool):
    assert is_loopback(host) is loopback


def test_run_refuses_the_control_endpoint_on_a_non_loopback_address():
    with pytest.raises(ScenarioError, match="loopback address only"):
        run(BASIC, host="0.0.0.0", control=True)  # noqa: S104 - the address under test


@pytest.mark.e2e
async def test_over_a_socket_the_world_changes_while_served(controlled: Simulator):
    async with serve(controlled) as url, httpx.AsyncClient(base_url=url) as client:
        assert (await client.put(f"/_sim/workloads/{NEW_ID}", json=_entry())).status_code == 201
        client.headers["Authorization"] = f"Bearer {await fetch_token(client)}"
        assert (await client.get(f"/api/v1/workloads/{NEW_ID}")).status_code == 200


@pytest.mark.e2e
def test_the_cli_serves_the_control_endpoint_only_when_asked():
    process = subprocess.Popen(  # noqa: S603 - our own interpreter and test file
        [
            sys.executable,
            "-c",
            "import sys; from bot.app.cli import main; sys.exit(main())",
            "sim",
            "--scenario",
            str(BASIC),
            "--port",
            "0",
            "--control",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split(" on ", 1)[1].split(" ", 1)[0]
        assert "Control endpoint: PUT/DELETE" in process.stdout.readline()
        response = httpx.put(f"{url}/_sim/workloads/{NEW_ID}", json=_entry())
        assert response.status_code == 201
    finally:
        os.kill(process.pid, signal.SIGINT)
        process.wait(timeout=10)
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()
