"""The simulated scheduling reads, and the scheduler's PodGroups and Queues in Kubernetes.

Project and department quotas, node pools, telemetry, priorities and project metrics: every Run:ai body is validated against the 2.24 scheduling schemas, read from NVIDIA's bundle
where it is kept: `$RUNAI_OPENAPI_SCHEDULING_SCHEMA`, or
`../shared/reference/runai-openapi-2.24-scheduling.json` beside the repository (as in CI).
Without the bundle only the schema checks are skipped, saying why.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from openapi_schema_validator import OAS30Validator

from bot.app.backends import ASGI_BASE_URL
from bot.app.demo.scenarios import bundled_paths, bundled_scenario
from runai_sim import Scenario, Simulator
from runai_sim.kube import kube_base_url
from runai_sim.scenario import ScenarioError
from runai_sim.scheduling import DEFAULT_PRIORITIES
from tests.runai_sim.sim_helpers import asgi_client, fetch_token

BUNDLE = Path(
    os.environ.get("RUNAI_OPENAPI_SCHEDULING_SCHEMA")
    or Path(__file__).resolve().parents[3] / "shared/reference/runai-openapi-2.24-scheduling.json"
)
needs_bundle = pytest.mark.skipif(
    not BUNDLE.is_file(), reason=f"the Run:ai scheduling OpenAPI bundle is not at {BUNDLE}"
)
DEMO = bundled_scenario("demo")
CLUSTER = DEMO.clusters[0]["uuid"]
START, END = "2025-11-04T08:00:00Z", "2025-11-04T09:30:00Z"
#: Scenario files that carry the scheduling keys (their bodies are checked against the bundle).
SCHEDULING = [
    p for p in bundled_paths() if "node_pools" in json.loads(p.read_text(encoding="utf-8"))
]


@functools.cache
def _bundle() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(BUNDLE.read_text(encoding="utf-8"))
    return loaded


def schema_errors(operation: str, body: Any, status: str = "200") -> list[str]:
    """Why `body` is not a `status` body of `GET <operation>` (empty when it is)."""
    bundle = _bundle()
    content = bundle["paths"][operation]["get"]["responses"][status]["content"]
    schema = {**content["application/json"]["schema"], "components": bundle["components"]}
    validator = OAS30Validator(schema)
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(body)]


async def _client(sim: Simulator) -> AsyncIterator[httpx.AsyncClient]:
    async with asgi_client(sim) as client:
        client.headers["Authorization"] = f"Bearer {await fetch_token(client)}"
        yield client


@pytest.fixture
async def demo() -> AsyncIterator[httpx.AsyncClient]:
    async for client in _client(Simulator(DEMO)):
        yield client


async def get(client: httpx.AsyncClient, path: str, **params: Any) -> Any:
    response = await client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def _reads(scenario: Scenario) -> list[tuple[str, str, dict[str, Any]]]:
    """(served path, OpenAPI operation, query) of every scheduling read of `scenario`."""
    reads: list[tuple[str, str, dict[str, Any]]] = [
        ("/api/v1/node-pools", "/api/v1/node-pools", {}),
        ("/api/v1/workload-priorities", "/api/v1/workload-priorities", {}),
    ]
    reads += [
        (
            "/api/v1/nodes/telemetry",
            "/api/v1/nodes/telemetry",
            {"clusterId": CLUSTER, "telemetryType": kind, "groupBy": "Nodepool"},
        )
        for kind in ("FREE_GPUS", "TOTAL_GPUS")
    ]
    reads += [
        (f"/api/v1/node-pools/{pool['id']}", "/api/v1/node-pools/{nodepoolId}", {})
        for pool in scenario.node_pools or []
    ]
    metrics = {"metricType": "GPU_QUOTA,GPU_ALLOCATION", "start": START, "end": END}
    for project in scenario.projects or []:
        path = f"/api/v1/org-unit/projects/{project['id']}"
        reads += [
            (path, "/api/v1/org-unit/projects/{projectId}", {}),
            (f"{path}/metrics", "/api/v1/org-unit/projects/{projectId}/metrics", metrics),
        ]
    reads += [
        (
            f"/api/v1/org-unit/departments/{department['id']}",
            "/api/v1/org-unit/departments/{departmentId}",
            {},
        )
        for department in scenario.departments or []
    ]
    return reads


# ---------------------------------------------------------------- the official shapes


@needs_bundle
@pytest.mark.parametrize("path", SCHEDULING, ids=[p.stem for p in SCHEDULING])
async def test_every_scheduling_body_matches_the_schema(path: Path):
    scenario = Scenario.load(path)
    sim = Simulator(scenario)
    sim.clear_faults()  # the shapes, not the faults a scenario injects
    async for client in _client(sim):
        for served, operation, query in _reads(scenario):
            body = await get(client, served, **query)
            assert schema_errors(operation, body) == [], (served, query)


@needs_bundle
def test_the_schema_check_catches_a_wrong_body():
    assert any("values" in e for e in schema_errors("/api/v1/nodes/telemetry", {"type": "X"}))
    wrong_pool = {"nodepools": [{"name": "default"}]}
    assert any(
        "clusterId" in e or "labelKey" in e for e in schema_errors("/api/v1/node-pools", wrong_pool)
    )


# ---------------------------------------------------------------- behaviour


async def test_project_quota_and_usage_per_node_pool(demo):
    body = await get(demo, "/api/v1/org-unit/projects/5")
    assert body["name"] == "vision"
    assert body["resources"][0]["gpu"]["deserved"] == 16
    [status] = body["status"]["nodePoolQuotaStatuses"]
    assert (status["nodePoolName"], status["allocated"]["gpu"]) == ("default", 9)


async def test_department_quota_and_usage_per_node_pool(demo):
    """By ID, its per-pool usage; listed, only its summed usage and only when verbose."""
    body = await get(demo, "/api/v1/org-unit/departments/2")
    assert (body["name"], body["resources"][0]["gpu"]["deserved"]) == ("research", 36)
    [status] = body["status"]["nodePoolQuotaStatuses"]
    assert (status["nodePoolName"], status["allocated"]["gpu"]) == ("default", 18)
    brief = await get(demo, "/api/v1/org-unit/departments", filterBy="name==research")
    assert "status" not in brief["departments"][0]
    verbose = await get(
        demo, "/api/v1/org-unit/departments", filterBy="name==research", verbosity="verbose"
    )
    assert verbose["departments"][0]["status"] == {"quotaStatus": body["status"]["quotaStatus"]}


async def test_unknown_project_and_pool_are_404(demo):
    for path in (
        "/api/v1/org-unit/projects/99",
        "/api/v1/org-unit/departments/99",
        "/api/v1/node-pools/99",
    ):
        response = await demo.get(path)
        assert response.status_code == 404, path
        assert response.json()["code"] == 404


async def test_node_pools_are_filtered(demo):
    body = await get(demo, "/api/v1/node-pools", filterBy="name==default")
    assert [p["name"] for p in body["nodepools"]] == ["default"]
    body = await get(demo, "/api/v1/node-pools", filterBy="phase==Empty")
    assert body["nodepools"] == []


@pytest.mark.parametrize(
    ("query", "values"),
    [
        ({"telemetryType": "FREE_GPUS"}, ["2"]),
        ({"telemetryType": "TOTAL_GPUS", "nodepoolName": "default"}, ["56"]),
        ({"telemetryType": "FREE_GPUS", "nodepoolName": "h100"}, []),
        ({"telemetryType": "READY_GPUS"}, []),  # a type the scenario does not list: no values
    ],
)
async def test_node_telemetry(demo, query, values):
    body = await get(demo, "/api/v1/nodes/telemetry", **query)
    assert body["type"] == query["telemetryType"]
    assert [v["value"] for v in body["values"]] == values


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({}, "Missing required parameter telemetryType"),
        ({"telemetryType": "FREE_CATS"}, "Invalid telemetryType"),
        ({"telemetryType": "FREE_GPUS", "groupBy": "Nodepool,Node,ClusterId"}, "Invalid groupBy"),
        ({"telemetryType": "FREE_GPUS", "groupBy": "Project"}, "Invalid groupBy"),
    ],
)
async def test_bad_telemetry_queries_are_400(demo, query, message):
    response = await demo.get("/api/v1/nodes/telemetry", params=query)
    assert response.status_code == 400
    assert message in response.json()["details"]


async def test_priorities_default_to_the_run_ai_dictionary(demo):
    body = await get(demo, "/api/v1/workload-priorities")
    assert body == {"priorities": DEFAULT_PRIORITIES}
    assert {p["name"]: p["value"] for p in body["priorities"]}["high"] == 125


async def test_project_metrics_by_pool_and_window():
    sim = Simulator(bundled_scenario("preempted-priority"))
    async for client in _client(sim):
        query = {"metricType": "GPU_ALLOCATION", "start": "2025-11-04T09:05:00Z", "end": END}
        body = await get(
            client, "/api/v1/org-unit/projects/3/metrics", **query, nodepoolName="default"
        )
        [series] = body["measurements"]
        assert [v["value"] for v in series["values"]] == ["12", "8"]
        other = await get(
            client, "/api/v1/org-unit/projects/3/metrics", **query, nodepoolName="h100"
        )
        assert other["measurements"] == [{"type": "GPU_ALLOCATION", "labels": None, "values": []}]
        response = await client.get(
            "/api/v1/org-unit/projects/3/metrics", params={**query, "metricType": "CPU_USAGE_CORES"}
        )
        assert response.status_code == 400


@pytest.mark.parametrize(
    ("key", "item", "missing"),
    [
        ("node_pools", {"name": "default"}, "id"),
        ("nodes_telemetry", {"type": "FREE_GPUS"}, "values"),
        ("workload_priorities", {"id": "1", "name": "high"}, "value"),
        ("project_metrics", {"projectId": "3"}, "measurements"),
    ],
)
def test_scheduling_keys_name_what_an_item_lacks(key, item, missing):
    data = {"name": "x", "now": "2025-11-04T09:30:00Z", key: [item]}
    with pytest.raises(ScenarioError, match=f"{key}.*lacks {missing}"):
        Scenario.parse(data)


# ---------------------------------------------------------------- Kubernetes: PodGroups, Queues

AUTH = {"Authorization": "Bearer demo-kube-token"}
GROUPS = "/apis/scheduling.run.ai/v2alpha2"
QUEUES = "/apis/scheduling.run.ai/v2"


@pytest.fixture
async def kube() -> AsyncIterator[httpx.AsyncClient]:
    base = kube_base_url(ASGI_BASE_URL, CLUSTER)
    async with asgi_client(Simulator(DEMO), base, headers=AUTH) as client:
        yield client


async def test_podgroups_get_and_list(kube):
    name = "pg-vit-pretrain-xl-0-3b9d2f4e"
    one = (await kube.get(f"{GROUPS}/namespaces/runai-vision/podgroups/{name}")).json()
    assert (one["kind"], one["apiVersion"]) == ("PodGroup", "scheduling.run.ai/v2alpha2")
    assert one["spec"]["queue"] == "vision"
    listed = (await kube.get(f"{GROUPS}/namespaces/runai-vision/podgroups")).json()
    assert (listed["kind"], [i["metadata"]["name"] for i in listed["items"]]) == (
        "PodGroupList",
        [name],
    )
    assert (await kube.get(f"{GROUPS}/namespaces/runai-nlp/podgroups")).json()["items"] == []
    everywhere = (
        await kube.get(f"{GROUPS}/podgroups", params={"fieldSelector": f"metadata.name={name}"})
    ).json()
    assert len(everywhere["items"]) == 1


async def test_queues_are_cluster_scoped(kube):
    queue = (await kube.get(f"{QUEUES}/queues/vision")).json()
    assert (queue["kind"], queue["spec"]["parentQueue"]) == ("Queue", "research")
    listed = (await kube.get(f"{QUEUES}/queues")).json()
    assert {i["metadata"]["name"] for i in listed["items"]} >= {"ml-team", "nlp", "vision"}


@pytest.mark.parametrize(
    ("path", "message"),
    [
        (
            f"{GROUPS}/namespaces/runai-vision/podgroups/nope",
            'podgroups.scheduling.run.ai "nope" not found',
        ),
        (f"{QUEUES}/queues/nope", 'queues.scheduling.run.ai "nope" not found'),
    ],
)
async def test_missing_scheduler_objects_are_404(kube, path, message):
    response = await kube.get(path)
    assert response.status_code == 404
    assert response.json()["message"] == message


def test_podgroups_need_a_namespace_and_queues_a_name():
    bad = {
        "name": "x",
        "now": "2025-11-04T09:30:00Z",
        "kubernetes": {"podgroups": [{"metadata": {"name": "pg"}}]},
    }
    with pytest.raises(ScenarioError, match=r"podgroups.*metadata.namespace is missing"):
        Scenario.parse(bad)
    bad["kubernetes"] = {"queues": [{"metadata": {}}]}
    with pytest.raises(ScenarioError, match=r"queues.*metadata.name is missing"):
        Scenario.parse(bad)
