"""What the preemption answer reads, against the simulator: the quota metrics of one pool only.

A victim that names no node pool is judged in its project's one default pool; with several
defaults, none, or an unreadable project, no metrics are read for "all pools" and the quota
position is a stated gap, not a figure.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.app.backends import simulated
from bot.app.demo.scenarios import bundled_scenario, request_from_expectation
from diagnosis import Report, diagnose
from runai_sim.scenario import Scenario

METRICS = "/api/v1/org-unit/projects/3/metrics"
UNKNOWN_POOL = "the project's quota position at the eviction, in the node pool it ran in"


def _without_pools(defaults: list[str] | None) -> Scenario:
    """preempted-priority with the victim naming no pool, its project these default pools."""
    scenario = bundled_scenario("preempted-priority").model_copy(deep=True)
    victim = scenario.workloads[0].workload
    victim.update({"requestedNodePools": None, "currentNodePools": None})
    for metric in scenario.project_metrics:
        metric["nodePool"] = None  # served for any pool asked, and for none
    for project in scenario.projects or ():
        if str(project["id"]) == "3":
            project["effective"] = {"defaultNodePools": defaults}
    return scenario


async def _diagnose(scenario: Scenario, *faults: dict[str, object]) -> tuple[Report, list[Any]]:
    request = request_from_expectation(scenario, scenario.expect[0])
    async with simulated(scenario, retries=0, transport="asgi") as up:
        assert up.simulator is not None
        for fault in faults:
            up.simulator.add_fault(fault)
        report = await diagnose(request, runai=up.runai, kube=up.kube, now=scenario.now)
        asked = [r.query.get("nodepoolName") for r in up.simulator.requests if r.path == METRICS]
    return report, asked


@pytest.mark.parametrize(
    ("defaults", "asked", "over", "why"),
    [
        pytest.param(["default"], [["default"]], True, None, id="one-default-pool"),
        pytest.param(["a100", "h100"], [], None, "several default pools (a100, h100)", id="several-defaults"),
        pytest.param([], [], None, "its project lists no default pool", id="no-default"),
    ],
)  # fmt: skip
async def test_a_victim_naming_no_pool_is_judged_in_its_projects_one_default_pool(
    defaults: list[str], asked: list[Any], over, why: str | None
):
    report, queries = await _diagnose(_without_pools(defaults))
    assert queries == asked  # never a query without nodepoolName (a sum over pools)
    assert report.preemption is not None
    assert report.preemption.victim_over_quota is over
    quota_lines = [e.text for e in report.evidence if "allocation was" in e.text]
    gaps = [m for m in report.missing if m.startswith(UNKNOWN_POOL)]
    if why is None:
        assert quota_lines == [
            "Project ml-team in node pool default: allocation was 12 GPUs vs quota 8 around "
            "2025-11-04 09:10:00Z (samples at 2025-11-04 09:08:00Z)"
        ]
        assert gaps == []
    else:
        assert quota_lines == []
        assert len(gaps) == 1
        assert why in gaps[0]


async def test_a_project_that_cannot_be_read_leaves_the_pool_and_the_position_unknown():
    fault = {"path": "/api/v1/org-unit/projects/3", "status": 503}
    report, queries = await _diagnose(_without_pools(["default"]), fault)
    assert queries == []
    assert report.preemption is not None
    assert report.preemption.victim_over_quota is None
    assert any(m.startswith("the project's default node pools") for m in report.missing)
    assert any("its project could not be read" in m for m in report.missing)
