"""The suite-wide read-only audit (tests/conftest.py) catches what it should, and only that.

The violations here are deliberate, on a throwaway simulator that is removed from the
registry before the test ends, so the session's own audit stays green.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from bot.scenarios import bundled_scenario
from diagnosis import RunaiClient, RunaiConfig
from diagnosis.kube.client import KubeClient
from diagnosis.kube.config import KubeTarget
from runai_sim.app import Simulator
from runai_sim.kube import kube_base_url
from runai_sim.server import serve
from tests import conftest
from tests.conftest import read_only_violations, unregister_simulator

OURS = {"User-Agent": "runai-why"}


@pytest.fixture
async def throwaway() -> AsyncIterator[tuple[Simulator, str, str]]:
    """(simulator, base URL, its Kubernetes API URL), unregistered from the audit afterwards."""
    scenario = bundled_scenario("crash-app-error")
    simulator = Simulator(scenario)
    try:
        async with serve(simulator) as url:
            yield simulator, url, kube_base_url(url, simulator.kube_clusters[0])
    finally:
        unregister_simulator(simulator)
        assert all(s is not simulator for s in conftest._SIMULATORS)


def test_the_conftest_imported_here_is_the_one_pytest_runs():
    """Otherwise the registry below would be a copy and the checks would prove nothing."""
    import sys  # noqa: PLC0415

    assert sys.modules["tests.conftest"] is conftest


async def test_a_write_to_the_kubernetes_api_is_a_violation(throwaway):
    simulator, _, kube = throwaway
    async with httpx.AsyncClient(base_url=kube, headers=OURS) as client:
        auth = {"Authorization": f"Bearer {simulator.kube_token}"}
        await client.post("/api/v1/namespaces/runai-ml-team/pods", json={}, headers=auth)
        await client.delete("/api/v1/namespaces/runai-ml-team/pods/p-0", headers=auth)
        await client.post("/api/v1/token", json={})  # no token exception on the Kubernetes API
        await client.head("/version")  # GET only: not even HEAD
        await client.get("/version", headers=auth)  # fine

    audited, bad = read_only_violations([simulator])
    assert audited == 5
    prefix = f"/k8s/{simulator.kube_clusters[0]}"
    assert bad == [
        f"POST {prefix}/api/v1/namespaces/runai-ml-team/pods (Kubernetes API: GET only)",
        f"DELETE {prefix}/api/v1/namespaces/runai-ml-team/pods/p-0 (Kubernetes API: GET only)",
        f"POST {prefix}/api/v1/token (Kubernetes API: GET only)",
        f"HEAD {prefix}/version (Kubernetes API: GET only)",
    ]
    # ... and the session-wide check sees them until the simulator is unregistered.
    assert set(bad) <= set(read_only_violations()[1])


async def test_a_write_to_the_runai_api_is_a_violation_but_the_token_post_is_not(throwaway):
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

    audited, bad = read_only_violations([simulator])
    assert audited == 4
    assert bad == [
        "DELETE /api/v1/workloads/8d1d7d6c-f854-4e82-bcd1-207c5a2fb8f8",
        "PUT /api/v1/clusters",
    ]


async def test_requests_without_a_user_agent_are_audited_and_probes_are_not(throwaway):
    simulator, url, _ = throwaway
    async with httpx.AsyncClient(base_url=url) as client:  # a test's probe: python-httpx/...
        assert client.headers["user-agent"].startswith("python-httpx")
        await client.delete("/api/v1/clusters")
        bare = client.build_request("DELETE", "/api/v1/nodes")
        del bare.headers["user-agent"]  # what a request built outside the client looks like
        await client.send(bare)

    audited, bad = read_only_violations([simulator])
    assert (audited, bad) == (1, ["DELETE /api/v1/nodes"])


async def test_our_real_clients_are_audited_and_pass(throwaway):
    """RunaiClient (token POST included) and KubeClient are both seen by the audit, and clean."""
    simulator, url, kube = throwaway
    creds = simulator.scenario.credentials
    config = RunaiConfig(url=url, client_id=creds.client_id, client_secret=creds.client_secret)
    async with RunaiClient(config) as runai:
        await runai.list_clusters()
    async with KubeClient(KubeTarget.for_url(kube, simulator.kube_token)) as client:
        await client.list_pod_events("runai-ml-team", "train-classifier-0-2")

    audited, bad = read_only_violations([simulator])
    methods = [(r.method, r.path.startswith("/k8s/")) for r in simulator.requests]
    assert ("POST", False) in methods  # the token request (sent without a User-Agent)
    assert ("GET", True) in methods  # the Kubernetes API, with our User-Agent
    assert audited == len(simulator.requests)
    assert bad == []
