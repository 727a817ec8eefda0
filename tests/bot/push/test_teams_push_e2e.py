"""Watches in Teams end to end: a mention subscribes the channel, failures are posted unasked."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest
import redis.asyncio
from pydantic import SecretStr

from bot.conversation import ThreadKey
from bot.ops.audit import read_audit
from tests.bot.push.alerts import TOKEN, alert, webhook
from tests.bot.push.scenes import DEMO, OOM_ID, failing
from tests.bot.teams.fake_teams import TENANT, Call
from tests.bot.teams.harness import CHANNEL, chat_click, click, mention, running_teams

pytestmark = pytest.mark.e2e

T = TypeVar("T")


def _answer(call: Call) -> bool:
    return any(t.startswith("OOM_KILLED") for t in call.texts)


async def _until(check: Callable[[], Awaitable[T]]) -> T:
    """What `check` gives once it is truthy (15 s: a hang guard, not a speed check)."""
    async with asyncio.timeout(15):
        while not (found := await check()):  # noqa: ASYNC110 - Redis has no event to wait on
            await asyncio.sleep(0.01)
    return found


async def _locked(client: redis.asyncio.Redis, key: ThreadKey) -> None:
    """Once someone holds the lock of `key`'s thread."""
    await _until(lambda: client.exists(key.redis_key("lock")))


async def test_a_teams_channel_watches_a_project_and_gets_its_failures_in_one_thread(
    redis_url: str, redis_client
):
    world = DEMO.model_copy(deep=True)  # the simulator serves this object: changed below
    async with running_teams(redis_url, scenario=world, watch_interval_s=1) as [bot]:
        ask = mention(bot, "watch ml-team on prod-a")
        assert (await bot.send(ask)).status_code == 200
        [confirmation] = await bot.teams.wait_for("send")
        assert confirmation.conversation == f"{CHANNEL};messageid={ask['id']}"
        assert any(
            "subscribed this channel to failures of project ml-team" in t
            for t in confirmation.texts
        )

        world.workloads.append(failing(OOM_ID, new_id="11111111-2222-4333-8444-555555555555"))
        sends = await bot.teams.wait_for("send", count=2, timeout_s=30)
        first = sends[1]
        assert _answer(first)
        assert first.conversation == CHANNEL  # a new post in the channel
        assert "replyToId" not in first.body
        assert {a["title"] for a in first.card["actions"]} >= {"Show all evidence"}

        entry = failing(OOM_ID, new_id="11111111-2222-4333-8444-555555555555")
        world.workloads[-1] = entry  # the same failure, a new phase change
        sends = await bot.teams.wait_for("send", count=3, timeout_s=30)
        again = sends[2]
        assert _answer(again)
        assert again.conversation == f"{CHANNEL};messageid={first.activity_id}"
        assert again.body["replyToId"] == first.activity_id
        assert any("2nd time in 1 min" in t for t in again.texts)


async def test_an_alert_in_a_channel_watched_only_through_watches_is_posted_with_working_buttons(
    redis_url: str,
):
    """`WATCHES` alone gives the channel its address; the answer's thread is the tenant's."""
    watch = {"channel": CHANNEL, "project": "ml-team", "cluster": "prod-a"}
    async with running_teams(
        redis_url,
        teams_watches=[watch],
        alertmanager_token=SecretStr(TOKEN),
        alert_cluster="prod-a",
        alert_channels={"prod-a/ml-team": CHANNEL},
    ) as [bot]:
        answer = await bot.http.post(
            f"{bot.url}/alerts/alertmanager",
            content=webhook(alert()),
            headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        )
        assert answer.json()["queued"] == 1
        [posted] = await bot.teams.wait_for("send", timeout_s=30)
        assert _answer(posted)
        assert posted.conversation == CHANNEL
        pressed = click(
            bot, "report:evidence", card=posted.activity_id, thread=posted.activity_id, user="29:u2"
        )
        assert (await bot.send(pressed)).status_code == 200
        sends = await bot.teams.wait_for("send", count=2, timeout_s=30)
        assert any(t.startswith("All evidence · OOM_KILLED") for t in sends[1].texts)


async def test_a_click_on_a_pushed_card_the_moment_it_shows_finds_its_answer(
    redis_url: str, redis_client
):
    """The card is in the channel before the Bot Connector answers the bot's post.

    A click on it that quick used to find no state (the push saved it after posting) and
    was told the thread is forgotten. Now its turn waits for the state the push saves
    while it holds the channel's new-root lock, and shows the evidence.
    """
    watch = {"channel": CHANNEL, "project": "ml-team", "cluster": "prod-a"}
    async with running_teams(
        redis_url,
        teams_watches=[watch],
        alertmanager_token=SecretStr(TOKEN),
        alert_cluster="prod-a",
        alert_channels={"prod-a/ml-team": CHANNEL},
    ) as [bot]:
        answered = bot.teams.hold("send")  # every post is shown at once, answered later
        await bot.http.post(
            f"{bot.url}/alerts/alertmanager",
            content=webhook(alert()),
            headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        )
        [posted] = await bot.teams.wait_for("send", timeout_s=30)
        assert _answer(posted)
        pressed = click(
            bot, "report:evidence", card=posted.activity_id, thread=posted.activity_id, user="29:u2"
        )
        assert (await bot.send(pressed)).status_code == 200
        # The click's turn holds its thread: it has looked for the state (old code: found
        # none, and its private "forgotten" is held like every post) or is waiting for it.
        await _locked(redis_client, ThreadKey("teams", TENANT, CHANNEL, posted.activity_id))
        answered.set()
        [_, shown] = await bot.teams.wait_for("send", count=2, timeout_s=30)
        assert shown.conversation == f"{CHANNEL};messageid={posted.activity_id}"
        assert any(t.startswith("All evidence · OOM_KILLED") for t in shown.texts)
        assert bot.teams.of("create") == []  # nobody was told anything privately


async def test_a_click_on_a_repeat_the_moment_it_shows_finds_the_repeat_not_the_first(
    redis_url: str, redis_client
):
    """The same failure again goes into the first one's thread; its buttons act on it.

    Its "Check again" the moment it shows used to find the first answer's state (the push
    saved the repeat's after posting it) and diagnose the first answer's workload again.
    """
    world = DEMO.model_copy(deep=True)
    first_id, again_id = (
        "11111111-2222-4333-8444-555555555555",
        "22222222-3333-4444-8555-666666666666",
    )
    async with running_teams(redis_url, scenario=world, watch_interval_s=1) as [bot]:
        ask = mention(bot, "watch ml-team on prod-a")
        assert (await bot.send(ask)).status_code == 200
        await bot.teams.wait_for("send")
        world.workloads.append(failing(OOM_ID, new_id=first_id))
        [_, first] = await bot.teams.wait_for("send", count=2, timeout_s=30)
        assert _answer(first)

        answered = bot.teams.hold("send")
        world.workloads.append(failing(OOM_ID, new_id=again_id))
        [*_, again] = await bot.teams.wait_for("send", count=3, timeout_s=30)
        assert again.body["replyToId"] == first.activity_id
        pressed = click(
            bot, "report:rerun", card=again.activity_id, thread=first.activity_id, user="29:u2"
        )
        assert (await bot.send(pressed)).status_code == 200
        await _locked(redis_client, ThreadKey("teams", TENANT, CHANNEL, first.activity_id))
        answered.set()
        [checked] = await bot.teams.wait_for("update", timeout_s=30)
        assert checked.conversation == f"{CHANNEL};messageid={first.activity_id}"

        async def rerun() -> list[str | None]:  # audited after the answer
            return [e.resolved_id for e in await read_audit(redis_client) if e.user == "29:u2"]

        assert await _until(rerun) == [again_id]  # old code: first_id, the first answer's


async def test_a_failure_pushed_to_a_chat_is_posted_there_and_its_buttons_act_on_it(
    redis_url: str, redis_client
):
    """A chat has no threads: a click on any card there continues the chat's one conversation.

    The push used to keep the answer under its own activity ID, which no click in a chat
    computes: its buttons said the thread was forgotten.
    """
    world = DEMO.model_copy(deep=True)
    async with running_teams(redis_url, scenario=world, watch_interval_s=1) as [bot]:
        ask = mention(bot, "watch ml-team on prod-a", kind="personal")
        chat = ask["conversation"]["id"]
        assert (await bot.send(ask)).status_code == 200
        await bot.teams.wait_for("send")
        world.workloads.append(failing(OOM_ID, new_id="11111111-2222-4333-8444-555555555555"))
        [_, posted] = await bot.teams.wait_for("send", count=2, timeout_s=30)
        assert _answer(posted)
        assert posted.conversation == chat  # the chat itself: it has no threads

        world.workloads[-1] = failing(OOM_ID, new_id="11111111-2222-4333-8444-555555555555")
        [*_, again] = await bot.teams.wait_for("send", count=3, timeout_s=30)
        assert _answer(again)
        assert again.conversation == chat, "a repeat goes to the chat too"

        [show] = [b for b in posted.buttons if b["title"] == "Show all evidence"]
        pressed = chat_click(bot, show["data"], card=posted.activity_id, chat=chat)
        assert (await bot.send(pressed)).status_code == 200
        [*_, shown] = await bot.teams.wait_for("send", count=4, timeout_s=30)
        assert shown.conversation == chat
        assert any(t.startswith("All evidence · OOM_KILLED") for t in shown.texts)
