"""Slack requests survive a dead replica, a full queue and a busy worker (real HTTP, real Redis)."""

from __future__ import annotations

import asyncio

import pytest

from bot.conversation.messages import QUEUE_FULL, queued
from bot.server import build_runtime, close_runtime, create_asgi_app
from runai_sim.server import serve_asgi
from tests.bot.slack.fake_slack import FakeSlack
from tests.bot.slack.harness import DEMO, _settings, first_line, running_bots
from tests.bot.slack.signing import BOT_USER_ID, app_mention_event, event_body, slash_command_body

pytestmark = pytest.mark.e2e

ASK = "cluster=prod-a workload=training-job-42 project=ml-team"


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


async def test_a_replica_dying_mid_diagnosis_is_answered_once_by_another(
    fake_slack: FakeSlack, redis_url: str, redis_client
):
    """Replica A posts "Diagnosing…" and dies; B reclaims the item and updates that message."""
    slow = DEMO.model_copy(update={"latency_ms": 200})
    async with running_bots(
        fake_slack, redis_url, scenario=slow, embedded_worker=False, queue_claim_idle_s=0.5
    ) as [web]:
        settings = _settings(
            fake_slack, web.runai_url, redis_url, queue_claim_idle_s=0.5, embedded_worker=True
        )
        doomed = build_runtime(settings, clock=lambda: slow.now)
        assert doomed.worker is not None
        loop = doomed.worker.start()
        await web.send(slash_command_body(ASK, response_url=fake_slack.response_url("r")))
        [placeholder] = await fake_slack.wait_for_async("chat.postMessage")
        assert (placeholder.text or "").startswith("Diagnosing training-job-42")
        loop.cancel()  # the replica dies: no answer, no ack, no hand-back
        for task in list(doomed.worker._inflight):
            task.cancel()
        await asyncio.gather(loop, *doomed.worker._inflight, return_exceptions=True)
        assert fake_slack.calls("chat.update") == []
        survivor = build_runtime(settings, clock=lambda: slow.now)
        async with serve_asgi(create_asgi_app(survivor), lifespan="on"):
            [answer] = await fake_slack.wait_for_async("chat.update", timeout=20)
            assert answer.body["ts"] == placeholder.response["ts"]
            assert first_line(answer).startswith("OOM_KILLED")
            await web.send(slash_command_body("help", response_url=fake_slack.response_url("s")))
            await fake_slack.wait_for_async("response_url", where=lambda c: c.key == "s")
        assert len(fake_slack.calls("chat.postMessage")) == 1  # never a second placeholder
        assert len(fake_slack.calls("chat.update")) == 1
        assert await redis_client.xlen("{runai-why-work}:stream") == 0
        await close_runtime(doomed)  # what the dead process held: its sockets
