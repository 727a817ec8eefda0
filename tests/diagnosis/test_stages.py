"""`diagnose(observe=...)`: each stage that ran is reported once, in order, with its time."""

from __future__ import annotations

import pytest

from bot.app.backends import simulated
from bot.app.demo.scenarios import bundled_scenario
from diagnosis import STAGE_NAMES, DiagnosisRequest, Outcome, diagnose

DEMO = bundled_scenario("demo")
OOM = next(w.workload for w in DEMO.workloads if w.workload["name"] == "training-job-42")


@pytest.mark.parametrize(
    ("request_", "outcome", "stages"),
    [
        pytest.param(
            DiagnosisRequest(cluster_id=OOM["clusterId"], workload_id=OOM["id"]),
            Outcome.DIAGNOSED,
            list(STAGE_NAMES),
            id="diagnosed",
        ),
        pytest.param(
            DiagnosisRequest(
                cluster_id=OOM["clusterId"], workload_id="00000000-0000-4000-8000-000000000000"
            ),
            Outcome.NOT_FOUND,
            ["resolve"],
            id="not-found-stops-after-resolve",
        ),
        pytest.param(
            DiagnosisRequest(cluster_id=OOM["clusterId"]), Outcome.NEEDS_INPUT, [], id="no-stages"
        ),
    ],
)
async def test_each_stage_that_ran_is_reported_once(
    request_: DiagnosisRequest, outcome: Outcome, stages: list[str]
):
    seen: list[tuple[str, float]] = []
    async with simulated(DEMO, retries=0, transport="asgi") as up:
        report = await diagnose(
            request_,
            runai=up.runai,
            kube=up.kube,
            now=DEMO.now,
            observe=lambda stage, seconds: seen.append((stage, seconds)),
        )
    assert report.outcome is outcome
    assert [stage for stage, _ in seen] == stages
    assert all(seconds >= 0 for _, seconds in seen)


async def test_without_an_observer_nothing_is_reported_and_nothing_changes():
    request = DiagnosisRequest(cluster_id=OOM["clusterId"], workload_id=OOM["id"])
    async with simulated(DEMO, retries=0, transport="asgi") as up:
        plain = await diagnose(request, runai=up.runai, kube=up.kube, now=DEMO.now)
        observed = await diagnose(
            request, runai=up.runai, kube=up.kube, now=DEMO.now, observe=lambda *_: None
        )
    assert plain == observed
