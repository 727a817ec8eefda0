"""`diagnose(..., authorize=...)`: nothing of a workload the callback refuses is used or shown."""

from __future__ import annotations

import pytest

from bot.app.backends import simulated
from bot.app.demo.scenarios import bundled_scenario
from diagnosis import (
    AccessDenied,
    DiagnosisRequest,
    Outcome,
    WorkloadAccess,
    diagnose,
)
from tests.diagnosis.doubles import Refusing

DEMO = bundled_scenario("demo")
CLUSTER = DEMO.clusters[0]["uuid"]
BY_NAME = {w.workload["name"]: w.workload for w in DEMO.workloads}


async def test_by_id_a_refusal_raises_before_anything_of_the_workload_is_read():
    workload = BY_NAME["t5-distill"]
    authorize = Refusing(("nlp", "Training"))
    async with simulated(DEMO, retries=0, transport="asgi") as up:
        assert up.simulator is not None
        request = DiagnosisRequest(cluster_id=CLUSTER, workload_id=workload["id"])
        with pytest.raises(AccessDenied) as raised:
            await diagnose(request, runai=up.runai, now=DEMO.now, authorize=authorize)
        paths = [r.path for r in up.simulator.requests]
    assert raised.value.args == ()  # carries nothing about the workload
    assert authorize.asked == [WorkloadAccess(CLUSTER, "nlp", "Training")]
    assert not any("events" in p or "pods" in p or "logs" in p for p in paths)


@pytest.mark.parametrize(
    ("name", "refused", "outcome"),
    [
        pytest.param("jupyter-alice", ("nlp", "Workspace"), Outcome.NEEDS_INPUT, id="refused-kind"),
        pytest.param("jupyter-alice", ("nlp", "Training"), Outcome.DIAGNOSED, id="other-kind"),
    ],
)
async def test_by_name_refused_workloads_are_neither_used_nor_listed(
    name: str, refused: tuple[str, str], outcome: Outcome
):
    authorize = Refusing(refused)
    async with simulated(DEMO, retries=0, transport="asgi") as up:
        request = DiagnosisRequest(cluster_id=CLUSTER, workload_name=name, project="nlp")
        report = await diagnose(request, runai=up.runai, now=DEMO.now, authorize=authorize)
    assert report.outcome is outcome
    if outcome is Outcome.NEEDS_INPUT:
        assert report.workload is None
        assert all(c.name != name for c in report.candidates)
        assert name not in (report.question or "").replace(f"named {name} in", "")
    assert authorize.asked  # asked about the matches, in access terms only
