"""An earlier run's failure in the evidence window never routes the run asked about.

The skill's phase table keeps a Pending workload in the failure diagnosis only for a direct
failed-pod signal, and a Running one only for a confirmed crash loop. Each row is a bundled
Pending or Running scenario whose window also holds an earlier run (started, failed or
stopped, then started again) with such a signal, run end to end through the simulator: the
phase table decides on the current run's signals, as the category does.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.app.backends import simulated
from bot.app.demo.scenarios import bundled_paths
from diagnosis import DiagnosisRequest, diagnose
from runai_sim.scenario import Scenario

PULL = 'Failed to pull image "nvcr.io/nvidia/pytorch:24.05-py3": dial tcp 10.0.0.5:443: i/o timeout'
LOOP = "Back-off restarting failed container trainer in pod {pod}_{ns}(abc)"


def _update(at: str, phase: str) -> dict[str, Any]:
    return {
        "meta": {"creationTimestamp": at, "type": "PhaseUpdate"},
        "spec": {"phaseUpdate": {"phase": phase, "phaseMessage": ""}},
    }


def _scenario(name: str, earlier: list[tuple[str, str]], old: list[tuple[str, str, str]]) -> Any:
    """`name` with an earlier run (phase updates `earlier`) and its events `old` before it."""
    [path] = [p for p in bundled_paths() if p.stem == name]
    data = json.loads(path.read_text(encoding="utf-8"))
    entry = data["workloads"][0]
    workload = entry["workload"]
    pod = {"kind": "Pod", "name": f"{workload['name']}-0-0", "namespace": workload["namespace"]}
    events = [
        {
            "createdAt": at,
            "id": f"00000000-0000-4000-8000-{index:012d}",
            "type": "Warning",
            "reason": reason,
            "source": "kubelet",
            "message": message.format(pod=pod["name"], ns=pod["namespace"]),
            "clusterId": workload["clusterId"],
            "involvedObject": {"uid": "earlier-run", **pod},
        }
        for index, (at, reason, message) in enumerate(old)
    ]
    entry["events"] = [*events, *entry["events"]]
    entry["history"] = [*(_update(at, phase) for at, phase in earlier), *entry["history"]]
    return Scenario.parse(data, source=str(path))


CASES = [
    pytest.param(
        "pending-node-pool-full",  # Pending since 08:50, waiting for GPUs
        [("2025-11-04T05:59:00Z", "Pending"), ("2025-11-04T06:04:30Z", "Running"),
         ("2025-11-04T07:00:00Z", "Stopped")],
        [("2025-11-04T06:01:00Z", "Failed", PULL), ("2025-11-04T06:01:00Z", "Failed",
                                                     "Error: ErrImagePull")],
        ("pending_scheduling", "NODE_POOL_FULL"),
        id="pending-after-an-earlier-runs-pull-error",
    ),
    pytest.param(
        "running-no-failure",  # Running since 06:18, healthy
        [("2025-11-04T03:00:00Z", "Pending"), ("2025-11-04T03:05:00Z", "Running"),
         ("2025-11-04T03:25:00Z", "Failed")],
        [(f"2025-11-04T03:{m}:00Z", "BackOff", LOOP) for m in (10, 15, 20)],
        ("running_no_failure", None),
        id="running-after-an-earlier-runs-crash-loop",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("name", "earlier", "old", "expected"), CASES)
async def test_an_earlier_runs_failure_does_not_route_this_run(name, earlier, old, expected):
    scenario = _scenario(name, earlier, old)
    workload = scenario.workloads[0].workload
    request = DiagnosisRequest(cluster_id=workload["clusterId"], workload_id=workload["id"])
    async with simulated(scenario, retries=0, transport="asgi") as up:
        report = await diagnose(request, runai=up.runai, kube=up.kube, now=scenario.now)

    outcome, reason = expected
    assert (report.outcome.value, report.category) == (outcome, None), report.headline
    assert (report.pending.reason if report.pending else None) == reason, report.headline
