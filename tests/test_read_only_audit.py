"""The suite-wide read-only audit (tests/read_only.py) catches what it should, and only that.

The violations here are deliberate, on a throwaway simulator that each test exempts from
its own audit before it ends, so the test itself stays green.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from bot.app.demo.scenarios import bundled_scenario
from diagnosis import RunaiClient, RunaiConfig
from diagnosis.kube.client import KubeClient
from diagnosis.kube.config import KubeTarget
from runai_sim.app import Simulator
from runai_sim.kube import kube_base_url
from runai_sim.server import serve
from tests.read_only import ReadOnlyAudit

OURS = {"User-Agent": "runai-why"}


@pytest.fixture
async def throwaway(
    read_only_audit: ReadOnlyAudit,
) -> AsyncIterator[tuple[Simulator, str, str]]:
    """(simulator, base URL, its Kubernetes API URL), exempted from the audit afterwards.

    Served over a real socket: the audit must see traffic however a simulator is reached.
    """
    scenario = bundled_scenario("crash-app-error")
    simulator = Simulator(scenario)
    try:
        async with serve(simulator) as url:
            yield simulator, url, kube_base_url(url, simulator.kube_clusters[0])
    finally:
        read_only_audit.exempt(simulator)
        assert read_only_audit.violations()[1] == []


async def test_a_write_to_the_kubernetes_api_is_a_violation(throwaway, read_only_audit):
    simulator, _, kube = throwaway
    async with httpx.AsyncClient(base_url=kube, headers=OURS) as client:
        auth = {"Authorization": f"Bearer {simulator.kube_token}"}
        await client.post("/api/v1/namespaces/runai-ml-team/pods", json={}, headers=auth)
        await client.delete("/api/v1/namespaces/runai-ml-team/pods/p-0", headers=auth)
        await client.post("/api/v1/token", json={})  # no token exception on the Kubernetes API
        await client.head("/version")  # GET only: not even HEAD
        await client.get("/version", headers=auth)  # fine

    audited, bad = read_only_audit.violations([simulator])
    assert audited == 5
    prefix = f"/k8s/{simulator.kube_clusters[0]}"
    assert bad == [
        f"POST {prefix}/api/v1/namespaces/runai-ml-team/pods (Kubernetes API: GET only)",
        f"DELETE {prefix}/api/v1/namespaces/runai-ml-team/pods/p-0 (Kubernetes API: GET only)",
        f"POST {prefix}/api/v1/token (Kubernetes API: GET only)",
        f"HEAD {prefix}/version (Kubernetes API: GET only)",
    ]
    # ... and the test's own check sees them until the simulator is exempted.
    assert set(bad) <= set(read_only_audit.violations()[1])
    with pytest.raises(pytest.fail.Exception, match="READ-ONLY VIOLATION"):
        read_only_audit.check()


async def test_a_write_to_the_runai_api_is_a_violation_but_the_token_post_is_not(
    throwaway, read_only_audit
):
    simulator, url, _ = throwaway
    creds = simulator.scenario.credentials
    async with httpx.AsyncClient(base_url=url, headers=OURS) as client:
        body = {
            "grantType": "client_credentials",
            "clientID": creds.client_id,
            "clientSecret": creds.client_secret,
        }
        token = (await client.post("/api/v1/token", json=body)).json()["accessToken"]
        auth = {"Authorization": f"Bearer {token}"}
        await client.get("/api/v1/clusters", headers=auth)
        await client.delete("/api/v1/workloads/8d1d7d6c-f854-4e82-bcd1-207c5a2fb8f8", headers=auth)
        await client.put("/api/v1/clusters", headers=auth)

    audited, bad = read_only_audit.violations([simulator])
    assert audited == 4
    assert bad == [
        "DELETE /api/v1/workloads/8d1d7d6c-f854-4e82-bcd1-207c5a2fb8f8",
        "PUT /api/v1/clusters",
    ]


async def test_requests_without_a_user_agent_are_audited_and_probes_are_not(
    throwaway, read_only_audit
):
    simulator, url, _ = throwaway
    async with httpx.AsyncClient(base_url=url) as client:  # a test's probe: python-httpx/...
        assert client.headers["user-agent"].startswith("python-httpx")
        await client.delete("/api/v1/clusters")
        bare = client.build_request("DELETE", "/api/v1/nodes")
        del bare.headers["user-agent"]  # what a request built outside the client looks like
        await client.send(bare)

    audited, bad = read_only_audit.violations([simulator])
    assert (audited, bad) == (1, ["DELETE /api/v1/nodes"])


async def test_our_real_clients_are_audited_and_pass(throwaway, read_only_audit):
    """RunaiClient (token POST included) and KubeClient are both seen by the audit, and clean."""
    simulator, url, kube = throwaway
    creds = simulator.scenario.credentials
    config = RunaiConfig(url=url, client_id=creds.client_id, client_secret=creds.client_secret)
    async with RunaiClient(config) as runai:
        await runai.list_clusters()
    async with KubeClient(KubeTarget.for_url(kube, simulator.kube_token)) as client:
        await client.list_pod_events("runai-ml-team", "train-classifier-0-2")

    audited, bad = read_only_audit.violations([simulator])
    methods = [(r.method, r.path.startswith("/k8s/")) for r in simulator.requests]
    assert ("POST", False) in methods  # the token request (sent without a User-Agent)
    assert ("GET", True) in methods  # the Kubernetes API, with our User-Agent
    assert audited == len(simulator.requests)
    assert bad == []


async def test_the_audit_sees_a_simulator_reached_through_asgi(read_only_audit):
    """Tests reach most simulators in-process; those writes must fail the test just the same."""
    simulator = Simulator(bundled_scenario("crash-app-error"))
    transport = httpx.ASGITransport(app=simulator.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://sim", headers=OURS) as c:
        await c.delete("/api/v1/clusters")
    assert read_only_audit.violations([simulator]) == (1, ["DELETE /api/v1/clusters"])
    with pytest.raises(pytest.fail.Exception, match=r"DELETE /api/v1/clusters"):
        read_only_audit.check()
    read_only_audit.exempt(simulator)
    assert read_only_audit.check() == 0
