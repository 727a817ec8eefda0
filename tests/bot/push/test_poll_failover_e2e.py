"""A poller killed with kill -9 in the middle of its poll: another replica takes over, once."""

from __future__ import annotations

import asyncio
import signal

import pytest

from bot.app.runtime import build_runtime
from bot.app.server import create_asgi_app
from runai_sim.app import Simulator
from runai_sim.faults import FaultRule
from runai_sim.server import serve, serve_asgi
from tests.bot.durable.worker_process import worker_process
from tests.bot.push.scenes import DEMO, OOM_ID, failing, put_workload
from tests.bot.slack.fake_slack import Call, FakeSlack
from tests.bot.slack.harness import SECRET, _settings, first_line, running_bots
from tests.bot.slack.signing import slash_command_body

pytestmark = pytest.mark.e2e

#: The watch's list call, held for a minute: a poller reading this is mid-poll when killed.
STALLED_LIST = FaultRule(path="/api/v1/workloads", method="GET", latency_ms=60_000)
LEASE = "runai-why:push:watch:lease"


def _report(call: Call) -> bool:
    return call.body.get("channel") == "C1" and " · " in first_line(call)


async def _listed(sim: Simulator) -> None:
    async with asyncio.timeout(30):
        while not any(r.path == "/api/v1/workloads" for r in sim.requests):  # noqa: ASYNC110 - the simulator has no event
            await asyncio.sleep(0.05)


@pytest.mark.timeout(120)  # a worker process of its own, then the lease's expiry
async def test_a_poller_killed_mid_poll_loses_nothing_and_doubles_nothing(
    fake_slack: FakeSlack, redis_url: str, redis_client
):
    sim = Simulator(DEMO.model_copy(deep=True), control=True)
    stalled = Simulator(DEMO.model_copy(update={"faults": [STALLED_LIST]}))
    env = {
        "SLACK_BOT_TOKEN": "xoxb-e2e-token",
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_URL": fake_slack.base_url,
        "WATCH_INTERVAL_S": "1",
    }
    async with (
        running_bots(fake_slack, redis_url, replicas=2, simulator=sim, embedded_worker=False) as [
            web,
            _,
        ],
        serve(stalled) as stalled_url,
    ):
        doomed = await worker_process(env, stalled_url, redis_url)
        try:
            body = slash_command_body(
                "watch ml-team on prod-a", response_url=fake_slack.response_url("w")
            )
            await web.send(body)
            await fake_slack.wait_for_async(
                "chat.postMessage", where=lambda c: "subscribed" in (c.text or ""), timeout=60
            )
            await _listed(stalled)  # the doomed poller holds the lease, waiting on its list
            assert await redis_client.get(LEASE) is not None
            await put_workload(web.runai_url, failing(OOM_ID))
        finally:
            doomed.send_signal(signal.SIGKILL)
            await doomed.wait()
        settings = _settings(
            fake_slack, web.runai_url, redis_url, watch_interval_s=1, embedded_worker=True
        )
        survivor = build_runtime(settings, clock=lambda: DEMO.now)
        async with serve_asgi(create_asgi_app(survivor), lifespan="on"):
            [report] = await fake_slack.wait_for_async(
                "chat.postMessage", where=_report, timeout=30
            )
            assert first_line(report).startswith("OOM_KILLED · training-job-42")
            await asyncio.sleep(3)  # three more polls by the survivor
        assert len([c for c in fake_slack.calls("chat.postMessage") if _report(c)]) == 1
