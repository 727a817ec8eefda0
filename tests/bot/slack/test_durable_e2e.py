"""Slack requests survive a dead replica, a full queue and a busy worker (real HTTP, real Redis).

What must hold on Teams too (a worker stopped mid-diagnosis, an item given up on) is
tested once for both, in tests/bot/work/test_durable_e2e.py.
"""

from __future__ import annotations

import asyncio
import signal

import httpx
import pytest

from bot.app.runtime import build_runtime
from bot.app.server import create_asgi_app
from bot.conversation.messages import QUEUE_FULL, capped, queued
from runai_sim.app import Simulator
from runai_sim.server import serve, serve_asgi
from tests.bot.durable.worker_process import STALLED_EVIDENCE, worker_process
from tests.bot.slack.fake_slack import FakeSlack
from tests.bot.slack.harness import DEMO, _settings, first_line, running_bots
from tests.bot.slack.signing import BOT_USER_ID, app_mention_event, event_body, slash_command_body
from tests.bot.work.frontends import ASK, STREAM, SlackFront
from tests.ports import free_port

pytestmark = pytest.mark.e2e


async def test_a_full_queue_tells_the_asker_at_once_and_a_waiting_one_their_place(
    fake_slack: FakeSlack, redis_url: str, redis_client
):
    async with running_bots(fake_slack, redis_url, embedded_worker=False, queue_max_items=3) as [
        bot
    ]:
        acks = []
        for i in range(4):
            body = slash_command_body(ASK, response_url=fake_slack.response_url(f"r{i}"))
            acks.append(await bot.send(body))
        assert [a.status_code for a in acks] == [200] * 4
        assert acks[0].text == ""  # taken, nothing ahead: nothing to say
        assert [a.json()["text"] for a in acks[1:]] == [queued(1), queued(2), QUEUE_FULL]
        assert {a.json()["response_type"] for a in acks[1:]} == {"ephemeral"}
        mention = app_mention_event(
            f"<@{BOT_USER_ID}> why did eval-harness fail", user="U1", channel="C1", ts="1.5"
        )
        assert (await bot.send(event_body(mention))).status_code == 200
        [told] = await fake_slack.wait_for_async("chat.postEphemeral")
        assert (told.text, told.body["user"]) == (QUEUE_FULL, "U1")
        assert fake_slack.calls("chat.postMessage") == []  # queued, not answered: no worker


async def test_one_asker_cannot_fill_the_queue_for_everyone_else(
    fake_slack: FakeSlack, redis_url: str, redis_client
):
    """U1 asks past their cap: only U1 is refused, privately; U2's question is taken."""
    async with running_bots(
        fake_slack, redis_url, embedded_worker=False, queue_max_per_asker=2
    ) as [bot]:
        acks = []
        for i in range(4):  # four lookbacks, as the review's thousand: four requests
            text = f"cluster=prod-a workload=training-job-42 project=ml-team lookback={i + 1}h"
            body = slash_command_body(
                text, user="U1", response_url=fake_slack.response_url(f"r{i}")
            )
            acks.append(await bot.send(body))
        assert acks[0].text == ""  # taken, nothing ahead
        assert [a.json()["text"] for a in acks[1:]] == [queued(1), capped(2), capped(2)]
        mention = app_mention_event(f"<@{BOT_USER_ID}> {ASK}", user="U1", channel="C1", ts="1.5")
        assert (await bot.send(event_body(mention))).status_code == 200
        [told] = await fake_slack.wait_for_async("chat.postEphemeral")
        assert (told.text, told.body["user"]) == (capped(2), "U1")
        other = slash_command_body(ASK, user="U2", response_url=fake_slack.response_url("v"))
        assert (await bot.send(other)).json()["text"] == queued(2)
        assert await redis_client.xlen(STREAM) == 3


async def test_a_placeholder_posted_but_never_journaled_is_replaced_by_the_next_attempt(
    fake_slack: FakeSlack, redis_url: str, redis_client
):
    """Killed while Slack's reply to its "Diagnosing…" post was on the way: never journaled.

    The ts never reached the journal. The next attempt finds the post by the item ID it carries and
    answers there: one message, one answer, nothing left spinning.
    """
    slow = DEMO.model_copy(update={"faults": [STALLED_EVIDENCE]})
    async with (
        running_bots(fake_slack, redis_url, embedded_worker=False, queue_claim_idle_s=0.5) as [web],
        serve(Simulator(slow)) as slow_url,
    ):
        doomed = await worker_process(_slack_env(fake_slack), slow_url, redis_url)
        try:
            fake_slack.delay_next("chat.postMessage", 10)  # Slack has it; the worker waits
            await web.send(slash_command_body(ASK, response_url=fake_slack.response_url("r")))
            [placeholder] = await fake_slack.wait_for_async("chat.postMessage", timeout=30)
            assert (placeholder.text or "").startswith("Diagnosing training-job-42")
        finally:
            doomed.send_signal(signal.SIGKILL)
            await doomed.wait()
        [journal] = await redis_client.keys("{runai-why-work}:job:*") or [None]
        assert journal is None or await redis_client.hget(journal, "post:0") is None
        settings = _settings(
            fake_slack, web.runai_url, redis_url, queue_claim_idle_s=0.5, embedded_worker=True
        )
        survivor = build_runtime(settings, clock=lambda: DEMO.now)
        async with serve_asgi(create_asgi_app(survivor), lifespan="on"):
            [answer] = await fake_slack.wait_for_async("chat.update", timeout=20)
        assert answer.body["ts"] == placeholder.response["ts"]
        assert first_line(answer).startswith("OOM_KILLED")
        assert len(fake_slack.calls("chat.postMessage")) == 1  # never a second placeholder
        texts = [m.get("text", "") for m in fake_slack.messages(placeholder.body["channel"])]
        assert not [t for t in texts if t.startswith("Diagnosing")], texts
        assert await redis_client.xlen(STREAM) == 0


@pytest.mark.timeout(180)  # a process of its own that imports, diagnoses and draws a chart
async def test_a_worker_serves_the_metrics_of_the_diagnoses_it_runs(
    fake_slack: FakeSlack, redis_url: str, redis_client
):
    """Split deployments count diagnoses where they run: `runai-why worker`'s /metrics."""
    port = free_port()
    async with running_bots(fake_slack, redis_url, embedded_worker=False) as [web]:
        worker = await worker_process(
            _slack_env(fake_slack), web.runai_url, redis_url, metrics_port=port
        )
        try:
            await web.send(slash_command_body(ASK, response_url=fake_slack.response_url("r")))
            [answer] = await fake_slack.wait_for_async("chat.update", timeout=120)
            assert first_line(answer).startswith("OOM_KILLED")
            # The turn ends (and is counted) once its chart follows the answer: just after
            # Slack has seen the upload completed, so the count may trail that call a little.
            await fake_slack.wait_for_async("files.completeUploadExternal", timeout=60)
            async with httpx.AsyncClient() as http, asyncio.timeout(30):
                while True:
                    scraped = await http.get(f"http://127.0.0.1:{port}/metrics", timeout=5)
                    if scraped.status_code != 200 or COUNTED in scraped.text.splitlines():
                        break
                    await asyncio.sleep(0.05)
        finally:
            worker.send_signal(signal.SIGTERM)
            await worker.wait()
    assert scraped.status_code == 200
    assert COUNTED in scraped.text.splitlines()


COUNTED = 'runai_why_diagnoses_total{category="OOM_KILLED",outcome="diagnosed"} 1.0'


def _slack_env(fake_slack: FakeSlack) -> dict[str, str]:
    return SlackFront(fake_slack).env()
