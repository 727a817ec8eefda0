"""Tier 2 collection over the simulator: a node implicated by Run:ai history is described."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.app.backends import simulated
from bot.app.demo.scenarios import bundled_paths, request_from_expectation
from diagnosis import Category, diagnose
from runai_sim.scenario import Scenario
from tests.factories import unreachable_node_body

pytestmark = pytest.mark.e2e

NODE = unreachable_node_body("dgx-a100-07", "2025-11-04T08:10:00Z")


def _node_failure_with_kubernetes(kubernetes: dict[str, Any]) -> Scenario:
    [path] = [p for p in bundled_paths() if p.stem == "node-failure"]
    data = json.loads(path.read_text(encoding="utf-8"))
    data["kubernetes"] = kubernetes
    return Scenario.parse(data, source=str(path))


async def test_node_named_by_run_ai_history_is_described_with_kubectl():
    """NodeNotReady in Run:ai history alone makes Tier 2 read the node (the skill's Step 4)."""
    scenario = _node_failure_with_kubernetes({"nodes": [NODE]})
    request = request_from_expectation(scenario, scenario.expect[0])
    async with simulated(scenario, retries=0, transport="asgi") as up:
        report = await diagnose(request, runai=up.runai, kube=up.kube, now=scenario.now)
        assert up.simulator is not None
        paths = [r.path for r in up.simulator.requests]
    assert report.category is Category.NODE_FAILURE
    assert any(p.endswith("/api/v1/nodes/dgx-a100-07") for p in paths)
    described = [e for e in report.evidence if e.source == "kubectl describe node"]
    assert described
    assert "Ready=Unknown" in described[0].text
    # the pod itself is gone from Kubernetes: said as a gap, not as "nothing happened"
    assert any("not found" in m and "kubectl describe pod" in m for m in report.missing)


async def test_kubernetes_down_is_a_gap_and_tier_1_still_decides():
    scenario = _node_failure_with_kubernetes({"nodes": [NODE]})
    scenario = scenario.model_copy(
        update={
            "faults": [
                *scenario.faults,
                *Scenario.parse(
                    {
                        "name": "f",
                        "now": "2025-11-04T09:30:00Z",
                        "faults": [{"path": "^/k8s/.*", "status": 503}],
                    }
                ).faults,
            ]
        }
    )
    request = request_from_expectation(scenario, scenario.expect[0])
    async with simulated(scenario, retries=0, transport="asgi") as up:
        report = await diagnose(request, runai=up.runai, kube=up.kube, now=scenario.now)
    assert report.category is Category.NODE_FAILURE
    assert any("unavailable (HTTP 503" in m for m in report.missing)
