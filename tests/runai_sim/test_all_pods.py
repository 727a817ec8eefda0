"""`GET /api/v1/workloads/pods`: every workload's pods, filtered by node and time, as documented.

Served from `t2-ddp-node-xid`, whose node dgx-a100-07 ran llm-ddp2-worker-0, bert-eval,
sam-notebook and (hours earlier) old-job; elsewhere ran on dgx-a100-02.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import httpx
import pytest

from bot.app.demo.scenarios import bundled_scenario
from diagnosis import RunaiClient, RunaiConfig
from runai_sim import Simulator
from tests.runai_sim.sim_helpers import CREDENTIALS, asgi_client, fetch_token

SCENARIO = bundled_scenario("t2-ddp-node-xid")
CLUSTER = SCENARIO.clusters[0]["uuid"]
PATH = "/api/v1/workloads/pods"


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with asgi_client(Simulator(SCENARIO)) as client:
        client.headers["Authorization"] = f"Bearer {await fetch_token(client)}"
        yield client


async def _names(client: httpx.AsyncClient, **params: str) -> list[str]:
    response = await client.get(PATH, params=params)
    assert response.status_code == 200, response.text
    return [pod["name"] for pod in response.json()["pods"]]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"filterBy": "nodeName==dgx-a100-07"},
         ["llm-ddp2-worker-0", "bert-eval-0-0", "sam-notebook-0-0", "old-job-0-0"]),
        ({"filterBy": "nodeName==dgx-a100-07,completedAt>=2025-11-04T07:30:00Z,"
                      "completedAt<=2025-11-04T08:35:00Z"},
         ["llm-ddp2-worker-0", "bert-eval-0-0", "sam-notebook-0-0"]),
        ({"filterBy": f"clusterId=={CLUSTER},nodeName==dgx-a100-02"}, ["elsewhere-0-0"]),
        ({"filterBy": "nodeName==dgx-a100-07", "sortBy": "completedAt", "sortOrder": "asc",
          "limit": "2"}, ["old-job-0-0", "llm-ddp2-worker-0"]),
        ({"completed": "false"}, []),
    ],
)  # fmt: skip
async def test_filters(client, params, expected):
    assert await _names(client, **params) == expected


async def test_full_verbosity_names_the_workload_and_project(client):
    response = await client.get(
        PATH, params={"filterBy": "nodeName==dgx-a100-02", "verbosity": "full"}
    )
    [pod] = response.json()["pods"]
    assert (pod["workloadName"], pod["projectName"]) == ("elsewhere", "nlp")
    brief = await client.get(PATH, params={"filterBy": "nodeName==dgx-a100-02"})
    assert "workloadName" not in brief.json()["pods"][0]


async def test_an_unknown_field_is_a_400(client):
    response = await client.get(PATH, params={"filterBy": "podName==x"})
    assert response.status_code == 400


async def test_the_path_is_not_taken_for_a_workload_id(client):
    response = await client.get(PATH)
    assert "pods" in response.json()


async def test_the_client_lists_a_node_s_pods_in_a_window():
    sim = Simulator(SCENARIO)
    config = RunaiConfig(url="http://sim", client_id=CREDENTIALS["clientID"],
                         client_secret=CREDENTIALS["clientSecret"])  # fmt: skip
    async with RunaiClient(config, transport=httpx.ASGITransport(app=sim.app)) as runai:
        pods = await runai.list_node_pods(
            cluster_id=CLUSTER,
            node="dgx-a100-07",
            start=datetime(2025, 11, 4, 7, 30, tzinfo=UTC),
            end=datetime(2025, 11, 4, 8, 35, tzinfo=UTC),
        )
    assert [(p.name, p.workload_name, p.project_name) for p in pods] == [
        ("llm-ddp2-worker-0", "llm-ddp2", "nlp"),
        ("bert-eval-0-0", "bert-eval", "nlp"),
        ("sam-notebook-0-0", "sam-notebook", "vision"),
    ]
    [request] = [r for r in sim.requests if r.path == PATH]
    assert request.query["verbosity"] == ["full"]
