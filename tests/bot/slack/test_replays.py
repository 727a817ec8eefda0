"""A signed slash command or shortcut sent again within Slack's 5-minute window is one request.

Slack never sends either twice, so a second copy is a replay: the same bytes under the same
signature, by whoever captured them. Each is taken once, by its `trigger_id` (one per user
action), in the queue's one atomic enqueue, so the copies give one public answer between
them, on Redis and in one process's memory alike. They arrive at once, as a replay would.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.ops.metrics import REGISTRY
from tests.bot.slack.fake_slack import FakeSlack
from tests.bot.slack.harness import SECRET, Bot, first_line, running_bots, settle
from tests.bot.slack.signing import message_shortcut_body, signed_headers, slash_command_body

pytestmark = pytest.mark.e2e

COPIES = 3
#: A diagnosis takes well under a second; this much is for a machine running the whole suite.
ANSWER_S = 30


@pytest.fixture(params=["redis", "memory"])
async def bot(
    request: pytest.FixtureRequest, fake_slack: FakeSlack, redis_url: str, redis_client
) -> AsyncIterator[Bot]:
    """One replica whose queue is in Redis, or in its own memory (no `REDIS_URL`)."""
    async with running_bots(fake_slack, redis_url if request.param == "redis" else None) as bots:
        yield bots[0]


def _dropped() -> float:
    return (
        REGISTRY.get_sample_value("runai_why_duplicates_dropped_total", {"platform": "slack"}) or 0
    )


async def _replayed(bot: Bot, body: bytes) -> None:
    """`body` sent `COPIES` times at once, with the one signature Slack gave it.

    Each copy is enqueued or dropped before its 200, so once all are acknowledged the
    count of dropped copies is final: all but one.
    """
    before = _dropped()
    headers = signed_headers(SECRET, body)
    url = f"{bot.url}/slack/events"
    sent = [bot.http.post(url, content=body, headers=headers) for _ in range(COPIES)]
    assert [r.status_code for r in await asyncio.gather(*sent)] == [200] * COPIES
    assert _dropped() - before == COPIES - 1


async def _one_answer(bot: Bot, category: str) -> None:
    [answer] = await bot.slack.wait_for_async("chat.update", timeout=ANSWER_S)
    assert first_line(answer).startswith(category)
    await settle(bot)
    assert len(bot.slack.calls("chat.postMessage")) == 1
    assert len(bot.slack.calls("chat.update")) == 1


async def test_a_replayed_slash_command_is_answered_once(bot: Bot):
    body = slash_command_body(
        "why did training-job-42 in ml-team fail on cluster prod-a?",
        response_url=bot.slack.response_url("cmd"),
    )
    await _replayed(bot, body)
    await _one_answer(bot, "OOM_KILLED")


async def test_a_replayed_message_shortcut_is_diagnosed_once(bot: Bot):
    alert = {
        "ts": "1700005000.000100",
        "user": "U3",
        "text": "training-job-42 in ml-team on prod-a was OOM killed",
    }
    body = message_shortcut_body(
        alert, user="U1", channel="C1", response_url=bot.slack.response_url("sc")
    )
    await _replayed(bot, body)
    await _one_answer(bot, "OOM_KILLED")


async def test_two_invocations_of_the_same_command_are_two_requests(bot: Bot):
    """The key is the user action, not the words: asking again is answered again."""
    for key in ("first", "second"):
        body = slash_command_body(
            "why did training-job-42 in ml-team fail on cluster prod-a?",
            response_url=bot.slack.response_url(key),
        )
        assert (await bot.send(body)).status_code == 200
    assert len(await bot.slack.wait_for_async("chat.update", count=2, timeout=ANSWER_S)) == 2
