"""The dependency chain of one diagnosis: how many calls must wait for another, per scenario.

Each upstream call is timed by the in-process simulator at a fixed latency, and the chain is
derived from those intervals with the benchmark's own function (`bench.stats.chain_levels`),
so the figure here is the one `dev.py bench` reports as the floor. Only the structure is
asserted (how many levels, which call sits on which level), never a duration.
"""

from __future__ import annotations

import pytest

from bench.stats import chain_levels
from bot.app.backends import simulated
from bot.app.demo.scenarios import bundled_scenario, request_from_expectation
from diagnosis import diagnose
from tests.diagnosis.timed import LATENCY_MS, level, timed_calls


def _kind(path: str) -> str:
    if "/k8s/" in path:
        return "kube node" if "/nodes/" in path or path.endswith("/api/v1/events") else "kube pod"
    if path == "/api/v1/workloads":
        return "earlier runs"  # the submissions of the same name, for what changed since
    return path.rsplit("/", 1)[-1] if path.count("/") > 4 else "status"


CHAINS = [
    # scenario, workload ID (None: the first expectation), levels, the level of each call.
    # Level 1 is the status alone: nothing is read before the asker's access is granted,
    # which needs the status's project and kind (see `diagnosis.pipeline`).
    pytest.param(
        "oom-killed", None, 2,
        {"status": 1, "events": 2, "earlier runs": 2, "pods": 2, "history": 2, "metrics": 2},
        id="oom-tier1",
    ),
    pytest.param(
        "demo", "f0658dcc-8ddb-493b-b983-99894f206aea", 3,  # training-job-42, by ID
        {"status": 1, "events": 2, "earlier runs": 2, "pods": 2, "history": 2, "metrics": 2,
         "kube pod": 3, "kube node": 3},
        id="oom-tier2",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("name", "workload", "levels", "placed"), CHAINS)
async def test_one_oom_diagnosis_has_the_expected_chain(name, workload, levels, placed):
    scenario = bundled_scenario(name).model_copy(update={"latency_ms": LATENCY_MS})
    expectation = next(
        e
        for e in scenario.expect or []
        if workload is None or e.get("request", {}).get("workload_id") == workload
    )
    request = request_from_expectation(scenario, expectation)
    async with simulated(scenario, retries=0, transport="asgi") as up:
        await diagnose(request, runai=up.runai, kube=up.kube, now=scenario.now)  # token, cache
        with timed_calls() as calls:
            report = await diagnose(request, runai=up.runai, kube=up.kube, now=scenario.now)

    assert report.category is not None
    assert report.category.value == "OOM_KILLED"
    assert chain_levels(calls) == levels, sorted((c.start, c.path) for c in calls)
    found: dict[str, set[int]] = {}
    for call in calls:
        found.setdefault(_kind(call.path), set()).add(level(call, calls))
    assert {k: found.get(k) for k in placed} == {k: {v} for k, v in placed.items()}
    assert len([c for c in calls if c.path.endswith("/metrics")]) == 1
