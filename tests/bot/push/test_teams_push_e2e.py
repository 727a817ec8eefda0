"""Watches in Teams end to end: a mention subscribes the channel, failures are posted unasked."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from tests.bot.push.alerts import TOKEN, alert, webhook
from tests.bot.push.scenes import DEMO, OOM_ID, failing
from tests.bot.teams.fake_teams import Call
from tests.bot.teams.harness import CHANNEL, click, mention, running_teams

pytestmark = pytest.mark.e2e


def _answer(call: Call) -> bool:
    return any(t.startswith("OOM_KILLED") for t in call.texts)


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
