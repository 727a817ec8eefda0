"""Which pods belong to the latest run, and which of them failed first (`diagnosis.runs`)."""

from __future__ import annotations

import json

import pytest

from bot.app.backends import simulated
from bot.app.demo.scenarios import bundled_paths, request_from_expectation
from diagnosis import diagnose
from diagnosis.runai.models import Pod
from diagnosis.runs import latest_run_first
from runai_sim.scenario import Scenario

FAILED = frozenset({"failed"})


def _pod(name: str, phase: str, created: str | None, updated: str | None = None) -> Pod:
    return Pod.model_validate(
        {
            "name": name,
            "k8sPhase": phase,
            "createdAt": f"2025-11-04T{created}:00Z" if created else None,
            "k8sPhaseUpdatedAt": f"2025-11-04T{updated}:00Z" if updated else None,
        }
    )


@pytest.mark.parametrize(
    ("pods", "order"),
    [
        pytest.param(
            [
                _pod("run1-0", "Failed", "00:10", "00:13"),
                _pod("run2-0", "Failed", "04:00", "04:03"),
                _pod("run3-0", "Failed", "08:55", "08:58"),
            ],
            ["run3-0", "run2-0", "run1-0"],
            id="reruns: the latest first, then the newest earlier one",
        ),
        pytest.param(
            [
                _pod("old-0", "Failed", "01:00", "01:05"),
                _pod("w-0", "Failed", "08:55", "09:02"),
                _pod("w-1", "Failed", "08:55", "08:58"),
                _pod("w-2", "Running", "08:55", "08:56"),
            ],
            ["w-1", "w-0", "old-0", "w-2"],
            id="a distributed run: its first failure first, a running pod after the failed",
        ),
        pytest.param(
            [_pod("a", "Running", None), _pod("b", "Failed", None), _pod("c", "Failed", None)],
            ["b", "c", "a"],
            id="undated: failed first, in list order",
        ),
        pytest.param([], [], id="no pods"),
    ],
)
def test_the_latest_runs_pods_come_first(pods, order):
    assert [p.name for p in latest_run_first(pods, FAILED)] == order


@pytest.mark.e2e
async def test_the_advice_names_the_pod_of_the_failure_diagnosed_not_an_earlier_runs():
    """crash-app-error ran three times; the logs to read are the third run's pod's."""
    [path] = [p for p in bundled_paths() if p.stem == "crash-app-error"]
    data = json.loads(path.read_text(encoding="utf-8"))
    data.pop("kubernetes", None)  # Tier 1: the advice is the user's only way to the logs
    scenario = Scenario.parse(data, source=str(path))
    request = request_from_expectation(scenario, scenario.expect[0])
    async with simulated(scenario, retries=0, transport="asgi") as up:
        report = await diagnose(request, runai=up.runai, kube=up.kube, now=scenario.now)
    logs = [r for r in report.recommendations if "kubectl logs" in r]
    assert logs
    assert all("train-classifier-0-2" in r and "train-classifier-0-0" not in r for r in logs)
