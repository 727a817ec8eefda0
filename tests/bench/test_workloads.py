"""The benchmark's scenario: copies of the demo's OOM workload, served as of now."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bench.workloads import generate
from runai_sim.scenario import Scenario


def test_each_copy_is_a_distinct_servable_workload_with_its_kubernetes_pod(tmp_path):
    now = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    bench = generate(3, tmp_path, latency_ms=50, now=now)
    scenario = Scenario.load(bench.path)
    assert scenario.latency_ms == 50
    assert scenario.now == now
    assert len(set(bench.workload_ids)) == 3
    assert bench.source_id not in bench.workload_ids
    for index, workload_id in enumerate(bench.workload_ids):
        entry = scenario.workload(workload_id)
        assert entry is not None
        name = f"bench-{index:04d}"
        assert entry.workload["name"] == name
        assert entry.workload["phase"] == "Failed"
        assert [p["name"] for p in entry.pods] == [f"{name}-0-0"]
        assert scenario.kubernetes is not None
        assert [p for p in scenario.kubernetes.pods if p["metadata"]["name"] == f"{name}-0-0"]
        assert abs(datetime.fromisoformat(entry.workload["phaseUpdatedAt"]) - now) < timedelta(
            days=7
        )
    assert (
        bench.ask(bench.workload_ids[0])
        == f"why did {bench.workload_ids[0]} fail on cluster {bench.cluster_name}?"
    )
