"""`GET /metrics` and the canonical log line, after real diagnoses over HTTP.

The bot's registry is process-wide, so each test reads the series before and after and
checks the exact difference its own requests made.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from collections.abc import Iterator, MutableMapping
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
import structlog
from prometheus_client.parser import text_string_to_metric_families

from bot.ops.metrics import CONTENT_TYPE_LATEST
from bot.ops.observe import CANONICAL_EVENT, REQUEST_ID
from bot.ops.upstream_metrics import endpoint_template
from runai_sim.app import Simulator
from runai_sim.kube import kube_base_url
from runai_sim.server import serve
from tests.bot.slack.fake_slack import FakeSlack
from tests.bot.slack.harness import DEMO, Bot, running_bots
from tests.bot.slack.signing import slash_command_body

pytestmark = pytest.mark.e2e

TOKEN = "scrape-token-for-tests"
ASK = "why did training-job-42 in ml-team fail on cluster prod-a?"
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


async def _scrape(bot: Bot) -> Samples:
    response = await bot.http.get(
        f"{bot.url}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    assert response.status_code == 200
    assert response.headers["content-type"] == CONTENT_TYPE_LATEST
    samples: Samples = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            key = sample.name, tuple(sorted(sample.labels.items()))
            samples[key] = samples.get(key, 0.0) + sample.value
    return samples


def _delta(before: Samples, after: Samples, name: str, **labels: str) -> float:
    key = (name, tuple(sorted(labels.items())))
    return after.get(key, 0.0) - before.get(key, 0.0)


async def _logged(
    logs: list[MutableMapping[str, Any]], event: str, count: int = 1
) -> list[MutableMapping[str, Any]]:
    """The `event` entries, once there are `count` of them (within 10 s)."""
    async with asyncio.timeout(10):
        while len(found := [e for e in logs if e["event"] == event]) < count:  # noqa: ASYNC110 - no event to wait on
            await asyncio.sleep(0.01)
    return found


@pytest.fixture
def logs() -> Iterator[list[MutableMapping[str, Any]]]:
    """Every structlog event, with the contextvars merged in as the real setup does."""
    capture = structlog.testing.LogCapture()
    old = structlog.get_config()
    structlog.configure(processors=[structlog.contextvars.merge_contextvars, capture])
    try:
        yield capture.entries
    finally:
        structlog.configure(**old)


async def test_one_diagnosis_moves_every_series_by_exactly_its_share(
    fake_slack: FakeSlack,
    redis_url: str,
    redis_client,
    logs: list[MutableMapping[str, Any]],
    tmp_path: Path,
):
    sim = Simulator(DEMO)
    [cluster] = sim.kube_clusters
    token = tmp_path / "kube-token"
    token.write_text(sim.kube_token or "")
    async with AsyncExitStack() as stack:
        kube_url = kube_base_url(await stack.enter_async_context(serve(sim)), cluster)
        tier2 = {cluster: {"mode": "token", "api_url": kube_url, "token_file": str(token)}}
        [bot] = await stack.enter_async_context(
            running_bots(
                fake_slack,
                redis_url,
                simulator=sim,
                metrics_token=TOKEN,
                kube_clusters=json.dumps(tier2),
            )
        )
        before = await _scrape(bot)
        sim.clear_requests()
        body = slash_command_body(ASK, response_url=fake_slack.response_url())
        assert (await bot.send(body)).status_code == 200
        [updated] = await fake_slack.wait_for_async("chat.update")
        finished = await _logged(logs, CANONICAL_EVENT)
        after = await _scrape(bot)
    assert updated.text.startswith("OOM_KILLED")
    kube_path = httpx.URL(kube_url).path
    upstream = Counter(
        (
            "kubernetes" if r.path.startswith(kube_path) else "runai",
            endpoint_template(r.path),
            str(r.status),
        )
        for r in sim.requests
    )
    assert {u for u, _, _ in upstream} == {"runai", "kubernetes"}

    assert _delta(before, after, "runai_why_diagnoses_total", outcome="diagnosed",
                  category="OOM_KILLED") == 1  # fmt: skip
    for stage in ("ack", "queue_wait", "resolve", "collect", "classify", "render", "post"):
        assert _delta(before, after, "runai_why_stage_seconds_count", stage=stage) == 1, stage
    for (name, endpoint, status), count in upstream.items():
        labels = {"upstream": name, "endpoint": endpoint, "status": status}
        assert _delta(before, after, "runai_why_upstream_calls_total", **labels) == count
    counted = sum(
        after[key] - before.get(key, 0.0)
        for key in after
        if key[0] == "runai_why_upstream_calls_total"
    )
    assert counted == len(sim.requests)

    [line] = finished
    assert re.fullmatch(r"[0-9a-f]{32}", line[REQUEST_ID])
    assert line["platform"] == "slack"
    assert (line["team_id"], line["channel_id"], line["user_id"]) == ("T1", "C1", "U1")
    assert line["cluster_id"]
    assert line["workload_id"]
    assert (line["outcome"], line["category"], line["failed_call"]) == (
        "diagnosed",
        "OOM_KILLED",
        None,
    )
    # ack is over before the worker takes the request: it is in the histogram, not the line
    assert set(line["stages_ms"]) == {
        "queue_wait",
        "resolve",
        "collect",
        "classify",
        "render",
        "post",
    }
    assert line["upstream_calls"] == len(sim.requests)
    [audited] = await _logged(logs, "diagnosis_audit")
    assert line["gaps"] == len(audited["gaps"])
    assert (line["workload_id"], line["cluster_id"]) == (
        audited["resolved_id"],
        audited["cluster_id"],
    )
    assert line["shared"] is None
    assert "training-job-42" not in str(line)  # ids, never names
    # Every line of the request carries its ID: the engine's own, under Bolt's listener too.
    classified = [e for e in logs if e["event"] == "diagnosis_classified"]
    assert [e[REQUEST_ID] for e in classified] == [line[REQUEST_ID]]


async def test_each_slack_request_gets_its_own_request_id(
    fake_slack: FakeSlack, redis_url: str, redis_client, logs: list[MutableMapping[str, Any]]
):
    async with running_bots(fake_slack, redis_url) as [bot]:
        for n in range(2):
            ts = f"1700000{n}00.000100"
            body = slash_command_body(ASK, response_url=fake_slack.response_url(ts))
            assert (await bot.send(body)).status_code == 200
        await fake_slack.wait_for_async("chat.update", 2)
        finished = await _logged(logs, CANONICAL_EVENT, 2)
    ids = {e[REQUEST_ID] for e in finished}
    assert len(ids) == 2


async def test_metrics_need_the_token_and_are_off_on_the_slack_port_without_one(
    fake_slack: FakeSlack, redis_url: str
):
    async with running_bots(fake_slack, redis_url, metrics_token=TOKEN) as [bot]:
        url = f"{bot.url}/metrics"
        assert (await bot.http.get(url)).status_code == 401
        wrong = await bot.http.get(url, headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        assert wrong.headers["www-authenticate"] == "Bearer"
    async with running_bots(fake_slack, redis_url) as [bot]:
        assert (await bot.http.get(f"{bot.url}/metrics")).status_code == 404
