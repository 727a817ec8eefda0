import asyncio
import json
import time

import httpx
import pytest

from runai_sim import FaultRule, Simulator, serve
from runai_sim.faults import delay
from tests.runai_sim.sim_helpers import BERT, BERT2, fetch_token

LIST = "/api/v1/workloads"


async def test_status_fault_applies_to_the_first_count_requests(sim, client):
    sim.add_fault({"path": LIST, "status": 503, "count": 2, "headers": {"Retry-After": "1"}})
    for _ in range(2):
        response = await client.get(LIST)
        assert response.status_code == 503
        assert response.headers["retry-after"] == "1"
        assert response.json() == {
            "code": 503,
            "message": "Please try again in few minutes.",
            "details": "Injected fault.",
        }
    assert (await client.get(LIST)).status_code == 200


async def test_regex_path_and_method(sim, client):
    sim.add_fault({"path": r"/api/v1/workloads/[^/]+/events", "method": "get", "status": 500})
    assert (await client.get(f"/api/v1/workloads/{BERT}/events")).status_code == 500
    assert (await client.get(f"/api/v1/workloads/{BERT2}/events")).status_code == 500
    # The regex must match the whole path, not a part of it.
    assert (await client.get(f"/api/v1/workloads/{BERT}")).status_code == 200
    assert (await client.get(f"/api/v1/workloads/{BERT}/history")).status_code == 200


async def test_method_mismatch_does_not_apply(sim, client):
    sim.add_fault({"path": LIST, "method": "POST", "status": 500})
    assert (await client.get(LIST)).status_code == 200


async def test_latency_only_rule_delays_then_serves_normally(sim, client):
    sim.add_fault({"path": LIST, "latency_ms": 200, "count": 1, "headers": {"X-Injected": "yes"}})
    started = time.monotonic()
    response = await client.get(LIST)
    assert time.monotonic() - started >= 0.2
    assert response.status_code == 200
    assert response.headers["x-injected"] == "yes"
    assert len(response.json()["workloads"]) == 4


async def test_malformed_body(sim, client):
    sim.add_fault({"path": LIST, "body": "malformed"})
    response = await client.get(LIST)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    with pytest.raises(json.JSONDecodeError):
        json.loads(response.content)


async def test_empty_body_with_status(sim, client):
    sim.add_fault({"path": LIST, "status": 502, "body": "empty"})
    response = await client.get(LIST)
    assert response.status_code == 502
    assert response.content == b""


async def test_null_events_body(sim, client):
    sim.add_fault({"path": f"/api/v1/workloads/{BERT}/events", "body": "null-events"})
    response = await client.get(f"/api/v1/workloads/{BERT}/events")
    assert response.json() == {"events": None}


async def test_any_json_body(sim, client):
    sim.add_fault({"path": LIST, "status": 207, "body": {"workloads": [], "surprise": True}})
    response = await client.get(LIST)
    assert response.status_code == 207
    assert response.json() == {"workloads": [], "surprise": True}


async def test_fault_on_the_token_endpoint(sim, anon):
    sim.add_fault({"path": "/api/v1/token", "status": 503, "count": 1})
    body = {
        "grantType": "client_credentials",
        "clientID": "runai-why-demo",
        "clientSecret": "demo-secret",
    }
    assert (await anon.post("/api/v1/token", json=body)).status_code == 503
    assert (await anon.post("/api/v1/token", json=body)).status_code == 200


async def test_first_matching_rule_with_uses_left_wins(sim, client):
    sim.add_fault(FaultRule(path=LIST, status=500, count=1))
    sim.add_fault(FaultRule(path=LIST, status=503, count=1))
    statuses = [(await client.get(LIST)).status_code for _ in range(3)]
    assert statuses == [500, 503, 200]


async def test_clear_faults(sim, client):
    sim.add_fault({"path": LIST, "status": 500})
    sim.clear_faults()
    assert (await client.get(LIST)).status_code == 200


@pytest.mark.e2e
async def test_scenario_faults_and_latency_apply(scenario):
    faulty = scenario.model_copy(
        update={"faults": [FaultRule(path=LIST, status=503, count=1)], "latency_ms": 50}
    )
    async with serve(Simulator(faulty)) as url, httpx.AsyncClient(base_url=url) as client:
        client.headers["Authorization"] = f"Bearer {await fetch_token(client)}"
        started = time.monotonic()
        assert (await client.get(LIST)).status_code == 503
        assert (await client.get(LIST)).status_code == 200
        assert time.monotonic() - started >= 0.1


def test_invalid_runtime_rules_are_rejected(sim):
    with pytest.raises(ValueError, match="status"):
        sim.add_fault({"path": LIST, "status": 42})
    with pytest.raises(ValueError, match="regular expression"):
        sim.add_fault({"path": "(", "status": 500})


async def test_request_log_records_every_request(sim, anon):
    token = await fetch_token(anon)
    await anon.get(LIST, params=[("filterBy", "name==bert-ft,projectName==nlp"), ("limit", "5")])
    await anon.get(f"/api/v1/workloads/{BERT}", headers={"Authorization": f"Bearer {token}"})
    await anon.get("/api/v1/nothing", headers={"Authorization": f"Bearer {token}"})
    log = sim.requests
    assert [(r.method, r.path, r.status) for r in log] == [
        ("POST", "/api/v1/token", 200),
        ("GET", LIST, 401),
        ("GET", f"/api/v1/workloads/{BERT}", 200),
        ("GET", "/api/v1/nothing", 404),
    ]
    assert log[1].query == {"filterBy": ["name==bert-ft,projectName==nlp"], "limit": ["5"]}
    assert log[2].headers["authorization"] == "Bearer <redacted>"
    assert all(token not in json.dumps(r.headers) for r in log)
    assert log[0].time <= log[-1].time
    sim.clear_requests()
    assert sim.requests == []


async def test_request_log_shows_a_read_only_client(sim, client):
    await client.get(LIST)
    await client.get(f"/api/v1/workloads/{BERT}/pods")
    assert {r.method for r in sim.requests} == {"POST", "GET"}
    assert [r.path for r in sim.requests if r.method == "POST"] == ["/api/v1/token"]


async def test_request_log_records_faulted_status(sim, client):
    sim.add_fault({"path": LIST, "status": 503, "count": 1})
    await client.get(LIST)
    assert sim.requests[-1].status == 503


async def test_a_delay_hands_the_body_read_while_holding_to_the_app():
    arrived = [{"type": "http.request", "body": b"grant_type=x", "more_body": False}]
    forever = asyncio.Event()

    async def receive():
        if arrived:
            return arrived.pop(0)
        await forever.wait()  # the client stays: no disconnect
        raise AssertionError("unreachable")

    replay = await delay(0.01, receive)
    assert replay is not None
    assert await replay() == {"type": "http.request", "body": b"grant_type=x", "more_body": False}


async def test_a_delay_ends_when_the_client_disconnects():
    messages = [
        {"type": "http.request", "body": b"", "more_body": False},
        {"type": "http.disconnect"},
    ]

    async def receive():
        return messages.pop(0)

    async with asyncio.timeout(10):  # a hang guard: the delay itself is an hour
        assert await delay(3600, receive) is None
