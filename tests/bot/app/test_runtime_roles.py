"""A process's role sets how many diagnoses it runs at once, unless the setting says."""

from __future__ import annotations

import pytest

from bot.app.runtime import build_runtime
from tests.bot.slack.fake_slack import FakeSlack
from tests.bot.slack.harness import _settings

ROLES = {
    "runai-why worker": (True, {}, 16),
    "serve with its embedded worker": (None, {}, 8),
    "runai-why worker, MAX_CONCURRENT_DIAGNOSES=3": (True, {"max_concurrent_diagnoses": 3}, 3),
    "serve, MAX_CONCURRENT_DIAGNOSES=40": (None, {"max_concurrent_diagnoses": 40}, 40),
}


@pytest.mark.parametrize(("worker", "overrides", "expected"), ROLES.values(), ids=ROLES)
async def test_the_worker_runs_as_many_as_its_role_allows(
    fake_slack: FakeSlack, redis_url: str, worker, overrides, expected
):
    settings = _settings(fake_slack, "http://127.0.0.1:9", redis_url, **overrides)
    runtime = build_runtime(settings, worker=worker)
    try:
        assert runtime.worker is not None
        assert runtime.worker.concurrency == expected
    finally:
        await runtime.aclose()
