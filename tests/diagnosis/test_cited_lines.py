"""The line that explains the failure is cited, and the advice does not send the user after it.

End to end over the simulator: the log is read through the real Kubernetes client, so the
tail/limit behaviour of the API is part of what is tested.
"""

from __future__ import annotations

import pytest

from bot.app.backends import simulated
from bot.app.demo.scenarios import bundled_paths, request_from_expectation
from diagnosis import diagnose
from runai_sim.scenario import Scenario

PATHS = {path.stem: path for path in bundled_paths()}

# scenario, category, the first evidence line holds, the advice holds
CASES = [
    ("t2-init-crashloop", "INIT_FAILED", "password authentication failed", "quoted above"),
    ("t2-init-failed-log-line", "INIT_FAILED", 'relation "runs" does not exist', "quoted above"),
    (
        "t2-crash-nccl-watchdog",
        "CRASH_APP_ERROR",
        "Watchdog caught collective operation timeout",
        "NCCL watchdog timeout",
    ),
    ("t2-crash-gpu-ecc", "CRASH_APP_ERROR", "uncorrectable ECC error", "GPU hardware fault"),
    ("t2-crash-long-log-lines", "CRASH_APP_ERROR", "ValueError: loss is NaN", "failing log line"),
]


@pytest.mark.parametrize(("stem", "category", "first", "advice"), CASES)
async def test_the_failing_line_is_cited_first(stem, category, first, advice):
    scenario = Scenario.load(PATHS[stem])
    request = request_from_expectation(scenario, scenario.expect[0])
    async with simulated(scenario, retries=1, transport="asgi") as up:
        report = await diagnose(request, runai=up.runai, kube=up.kube, now=scenario.now)

    data = report.to_json_dict(request.lookback_label())
    assert data["category"] == category
    assert first in data["evidence"][0]["text"]
    assert data["evidence"][0]["source"].startswith("kubectl logs")
    advice_text = " ".join(data["recommendations"])
    assert advice in advice_text
    if category == "INIT_FAILED":
        assert "kubectl logs" not in advice_text  # the bot already read them
