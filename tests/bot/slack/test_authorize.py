"""Bolt's authorization: `auth.test` once per process, however many first requests arrive."""

from __future__ import annotations

import asyncio
import logging

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation import MemoryStore
from bot.slack.app import build_slack_app
from bot.slack.authorize import AuthTest, tokenless_twin
from bot.slack.deps import SlackDeps
from bot.work import MemoryWorkQueue
from tests.bot.slack.fake_slack import BOT_ID, BOT_USER_ID, TEAM_ID, FakeSlack
from tests.bot.slack.harness import Bot, running_bots
from tests.bot.slack.signing import slash_command_body


@pytest.mark.e2e
async def test_concurrent_first_requests_share_one_auth_test(fake_slack: FakeSlack, redis_url):
    fake_slack.delay_next("auth.test", 0.3)  # the first call is slow: the others pile up
    async with running_bots(fake_slack, redis_url) as [bot]:
        await _help_storm(bot, 20)
    assert len(fake_slack.calls("auth.test")) == 1, "Bolt and the identity lookup share it"


async def _help_storm(bot: Bot, count: int) -> None:
    bodies = [
        slash_command_body(
            "help", user=f"U{i}", trigger_id=f"t{i}", response_url=bot.slack.response_url(f"h{i}")
        )
        for i in range(count)
    ]
    responses = await asyncio.gather(*(bot.send(body) for body in bodies))
    assert {r.status_code for r in responses} == {200}
    await bot.slack.wait_for_async("response_url", count=count)


async def test_the_answer_carries_the_bot_and_the_asker(fake_slack: FakeSlack):
    client = AsyncWebClient(token="xoxb-e2e-token", base_url=fake_slack.base_url)
    authorize = AuthTest(client).authorize()
    first = await authorize(user_id="U7")
    second = await authorize(user_id="U9")
    assert (first.bot_user_id, first.bot_id, first.team_id) == (BOT_USER_ID, BOT_ID, TEAM_ID)
    assert first.bot_token == "xoxb-e2e-token"
    assert (first.user_id, second.user_id) == ("U7", "U9")
    assert len(fake_slack.calls("auth.test")) == 1


async def test_a_failed_auth_test_is_not_kept(fake_slack: FakeSlack):
    client = AsyncWebClient(token="xoxb-e2e-token", base_url=fake_slack.base_url)
    authorize = AuthTest(client).authorize()
    fake_slack.fail_next("auth.test", error="invalid_auth")
    with pytest.raises(SlackApiError):
        await authorize(user_id="U1")
    assert (await authorize(user_id="U1")).bot_user_id == BOT_USER_ID
    assert len(fake_slack.calls("auth.test")) == 2


def test_bolt_gets_the_client_without_its_token(fake_slack: FakeSlack):
    client = AsyncWebClient(token="xoxb-e2e-token", base_url=fake_slack.base_url)
    twin = tokenless_twin(client)
    assert twin.token is None
    assert twin.base_url == client.base_url


def test_building_the_app_warns_of_no_unused_token(fake_slack: FakeSlack, monkeypatch, caplog):
    """Bolt reads SLACK_BOT_TOKEN from the environment too; that is the token it uses."""
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-e2e-token")
    client = AsyncWebClient(token="xoxb-e2e-token", base_url=fake_slack.base_url)
    deps = SlackDeps(engine=None, store=MemoryStore(), queue=MemoryWorkQueue(max_items=1))  # type: ignore[arg-type]
    with caplog.at_level(logging.INFO, logger="slack_bolt"):
        build_slack_app(client=client, signing_secret="s", deps=deps)
        build_slack_app(client=client, signing_secret="s", deps=deps)  # one filter, not two
        logging.getLogger("slack_bolt.AsyncApp").warning("another warning")
    assert [r.getMessage() for r in caplog.records if r.name.startswith("slack_bolt")] == [
        "another warning"
    ]
