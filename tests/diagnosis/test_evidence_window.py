"""A failure older than the lookback keeps its own evidence; the lookback only bounds counting."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest

from bot.app.backends import simulated
from bot.app.demo.scenarios import bundled_paths, request_from_expectation
from diagnosis import diagnose
from runai_sim.scenario import Scenario

pytestmark = pytest.mark.e2e


def _three_days_later(name: str) -> Scenario:
    [path] = [p for p in bundled_paths() if p.stem == name]
    data = json.loads(path.read_text(encoding="utf-8"))
    now = datetime.fromisoformat(data["now"]) + timedelta(days=3)
    data["now"] = now.isoformat()
    return Scenario.parse(data, source=str(path))


@pytest.mark.parametrize(
    ("name", "outcome", "category"),
    [
        ("preempted", "preempted", None),
        ("stopped-after-preemption", "preempted", None),
        ("mount-failed", "diagnosed", "DATASOURCE_MOUNT_FAILED"),
        ("image-pull-auth", "diagnosed", "IMAGE_PULL_FAILED"),
        ("policy-idle-timeout", "diagnosed", "SCHEDULING_POLICY_TERMINATED"),
    ],
)
async def test_asked_three_days_later_with_the_default_lookback(name, outcome, category):
    scenario = _three_days_later(name)
    request = request_from_expectation(scenario, scenario.expect[0])
    async with simulated(scenario, retries=0, transport="asgi") as up:
        report = await diagnose(request, runai=up.runai, kube=up.kube, now=scenario.now)
    data = report.to_json_dict(request.lookback_label())
    assert (data["outcome"], data["category"]) == (outcome, category)
    if category is not None:
        assert data["recurrence"]["count"] == 0  # nothing happened within the last 24h
