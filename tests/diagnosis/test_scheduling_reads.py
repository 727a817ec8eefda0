"""The scheduling reads of both clients, against the simulator: shapes, filters, errors.

Run:ai (`SchedulingReads`): a project's and a department's quota, the cluster's projects, node
pools, a pool's nodes and running workloads, node telemetry, priority classes, project metrics. Kubernetes
(`SchedulerObjects`): a PodGroup, a Queue, an object's events with their annotations.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from bot.app.backends import Backends, simulated
from bot.app.demo.scenarios import bundled_scenario
from diagnosis import InvalidRequest, NotFound, UpstreamUnavailable
from diagnosis.kube.reader import KubeReader

DEMO = bundled_scenario("demo")
CLUSTER = DEMO.clusters[0]["uuid"]


@pytest.fixture
async def up() -> AsyncIterator[Backends]:
    async with simulated(DEMO, retries=0, transport="asgi") as backends:
        yield backends


def _kube(up: Backends, cluster: str = CLUSTER) -> KubeReader:
    assert up.kube is not None
    reader = up.kube.for_cluster(cluster)
    assert reader is not None
    return reader


async def test_project_quota_usage_and_namespace(up):
    project = await up.runai.get_project("5")
    quota, status = project.quota_in("default"), project.status_in("default")
    assert quota is not None
    assert quota.gpu is not None
    assert (quota.gpu.deserved, quota.gpu.limit) == (16, None)
    assert status is not None
    assert status.allocated is not None
    assert status.allocated.gpu == 9
    assert (project.namespace, project.quota_in("h100"), project.status_in("h100")) == (
        "runai-vision",
        None,
        None,
    )
    listed = await up.runai.list_project_quotas(cluster_id=CLUSTER)
    assert {p.name: p.namespace for p in listed} == {
        "ml-team": "runai-ml-team",
        "nlp": "runai-nlp",
        "vision": "runai-vision",
    }


async def test_department_quota_and_its_projects_usage(up):
    """The department's own quota and what all its projects hold, per node pool."""
    department = await up.runai.get_department("2")
    quota, status = department.quota_in("default"), department.status_in("default")
    assert (department.id, department.name) == ("2", "research")
    assert quota is not None
    assert quota.gpu is not None
    assert quota.gpu.deserved == 36
    assert status is not None
    assert status.allocated is not None
    assert status.allocated_non_preemptible is not None
    assert (status.allocated.gpu, status.allocated_non_preemptible.gpu) == (18, 8)
    assert (department.quota_in("h100"), department.status_in("h100")) == (None, None)
    assert (await up.runai.get_project("5")).parent_id == "2"
    with pytest.raises(NotFound):
        await up.runai.get_department("99")


async def test_node_pools_nodes_and_running_workloads(up):
    [pool] = await up.runai.list_node_pools(cluster_id=CLUSTER)
    assert (pool.name, pool.phase, pool.id) == ("default", "Ready", "22")
    nodes = await up.runai.list_pool_nodes(cluster_id=CLUSTER, node_pool="default")
    assert len(nodes) == 8
    assert {n.gpu_info.gpu_count for n in nodes if n.gpu_info} == {8}
    assert await up.runai.list_pool_nodes(cluster_id=CLUSTER, node_pool="h100") == []
    running = await up.runai.list_pool_workloads(cluster_id=CLUSTER, node_pool="default")
    assert {w.name for w in running} >= {"serve-llama-70b", "sdxl-finetune"}
    assert all(w.phase == "Running" for w in running)


async def test_telemetry_and_priorities(up):
    free = await up.runai.get_node_telemetry(cluster_id=CLUSTER, telemetry_type="FREE_GPUS")
    assert (free.type, free.for_pool("default")) == ("FREE_GPUS", 2.0)
    priorities = await up.runai.list_workload_priorities()
    assert {p.name: p.value for p in priorities}["very-high"] == 150
    request = up.simulator.requests[-2] if up.simulator else None
    assert request is not None
    assert request.query["groupBy"] == ["Nodepool"]


async def test_project_metrics_for_one_pool():
    scenario = bundled_scenario("preempted-priority")
    async with simulated(scenario, retries=0, transport="asgi") as backends:
        measured = await backends.runai.get_project_metrics(
            "3",
            metric_types=("GPU_QUOTA", "GPU_ALLOCATION"),
            start=scenario.now - timedelta(hours=1),
            end=scenario.now,
            node_pool="default",
        )
        with pytest.raises(InvalidRequest):
            await backends.runai.get_project_metrics(
                "3", metric_types=(), start=scenario.now, end=scenario.now
            )
    assert [m.type for m in measured] == ["GPU_QUOTA", "GPU_ALLOCATION"]
    assert [v.value for v in measured[1].values] == ["10", "12", "8"]


@pytest.mark.parametrize(
    ("path", "call"),
    [
        ("/api/v1/org-unit/projects/5", lambda r: r.get_project("5")),
        ("/api/v1/org-unit/departments/2", lambda r: r.get_department("2")),
        ("/api/v1/node-pools", lambda r: r.list_node_pools(cluster_id=CLUSTER)),
        (
            "/api/v1/nodes/telemetry",
            lambda r: r.get_node_telemetry(cluster_id=CLUSTER, telemetry_type="FREE_GPUS"),
        ),
        ("/api/v1/workload-priorities", lambda r: r.list_workload_priorities()),
        (
            "/api/v1/workloads",
            lambda r: r.list_pool_workloads(cluster_id=CLUSTER, node_pool="default"),
        ),
    ],
)
async def test_a_malformed_answer_is_upstream_unavailable(up, path, call):
    assert up.simulator is not None
    up.simulator.add_fault({"path": path, "body": {"unexpected": True}})
    with pytest.raises(UpstreamUnavailable, match="not the documented shape"):
        await call(up.runai)


@pytest.mark.parametrize(
    ("path", "body", "call"),
    [
        (
            "/api/v1/node-pools",
            {"nodepools": None},
            lambda r: r.list_node_pools(cluster_id=CLUSTER),
        ),
        (
            "/api/v1/workload-priorities",
            {"priorities": None},
            lambda r: r.list_workload_priorities(),
        ),
        (
            "/api/v1/workloads",
            {"workloads": None},
            lambda r: r.list_pool_workloads(cluster_id=CLUSTER, node_pool="default"),
        ),
    ],
)
async def test_a_null_list_is_empty(up, path, body, call):
    assert up.simulator is not None
    up.simulator.add_fault({"path": path, "body": body})
    assert await call(up.runai) == []


async def test_null_project_metrics_are_a_failed_read_not_no_samples(up):
    """As a workload's: a null `measurements` is no answer; `[]` would say nothing happened."""
    assert up.simulator is not None
    up.simulator.add_fault(
        {"path": "/api/v1/org-unit/projects/3/metrics", "body": {"measurements": None}}
    )
    now = datetime.now(UTC)
    with pytest.raises(UpstreamUnavailable, match="measurements"):
        await up.runai.get_project_metrics(
            "3", metric_types=("GPU_QUOTA",), start=now - timedelta(hours=1), end=now
        )


async def test_empty_identifiers_are_refused(up):
    with pytest.raises(InvalidRequest):
        await up.runai.get_project(" ")
    with pytest.raises(InvalidRequest):
        await up.runai.get_department(" ")


# ---------------------------------------------------------------- Kubernetes


async def test_podgroup_queue_and_their_events(up):
    kube = _kube(up)
    group = await kube.get_podgroup("runai-vision", "pg-vit-pretrain-xl-0-3b9d2f4e")
    assert (group.spec.queue, group.allocates) == ("vision", False)
    [condition] = group.conditions_newest_first()
    assert (condition.node_pool, condition.order, condition.reasons[0].reason) == (
        "default",
        7,
        "PodSchedulingErrors",
    )
    queue = await kube.get_queue("vision")
    assert (queue.name, queue.spec.parent_queue) == ("vision", "research")
    with pytest.raises(NotFound):
        await kube.get_queue("no-such-queue")
    assert await kube.list_object_events("runai-vision", "PodGroup", group.name) == []


async def test_an_evict_events_annotations_are_kept():
    scenario = bundled_scenario("preempted-t2-annotations")
    async with simulated(scenario, retries=0, transport="asgi") as backends:
        kube = _kube(backends, scenario.clusters[0]["uuid"])
        [evict] = await kube.list_object_events(
            "runai-ml-team", "PodGroup", "pg-rag-index-0-5a3d070d"
        )
    assert evict.reason == "Evict"
    assert evict.annotations["evictor-action-type"] == "reclaim"
    assert evict.annotations["evictor-pod-group-namespace"] == "runai-nlp"


async def test_kubernetes_reads_refuse_empty_names_and_wrong_shapes(up):
    kube = _kube(up)
    with pytest.raises(InvalidRequest):
        await kube.get_podgroup("runai-vision", "")
    with pytest.raises(InvalidRequest):
        await kube.list_object_events("runai-vision", " ", "pg")
    assert up.simulator is not None
    up.simulator.add_fault({"path": "/k8s/.*/queues/vision", "body": "malformed"})
    with pytest.raises(UpstreamUnavailable, match="not JSON"):
        await kube.get_queue("vision")
    up.simulator.add_fault({"path": "/k8s/.*/podgroups/pg", "body": {"metadata": "nope"}})
    with pytest.raises(UpstreamUnavailable, match="not the documented shape"):
        await kube.get_podgroup("runai-vision", "pg")
