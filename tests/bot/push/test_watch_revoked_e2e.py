"""A watch whose subscriber lost their Run:ai access, end to end: stopped, told once, removable.

bob watches ml-team in his direct messages and alice in a channel; then bob's only rule is
removed. His watch stops (he is told once, in his DM), the next failure reaches alice's
channel and never bob's DM, and bob can still remove his watch.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from runai_sim.app import Simulator
from tests.bot.push.scenes import DEMO, failing, put_workload
from tests.bot.slack.fake_slack import Call, FakeSlack
from tests.bot.slack.harness import Bot, first_line, running_bots
from tests.bot.slack.signing import slash_command_body

pytestmark = pytest.mark.e2e

DM, CHANNEL = "D1", "C1"
LLAMA = "9cc179ae-4b7d-44b7-98ae-eacf42d4218d"  # llama-sft-qlora, a training in ml-team


def _in(channel: str, text: str) -> Callable[[Call], bool]:
    def where(call: Call) -> bool:
        return call.body.get("channel") == channel and text in (call.text or "")

    return where


async def _say(bot: Bot, slack: FakeSlack, text: str, *, user: str, channel: str) -> None:
    key = f"{user}-{text}"
    body = slash_command_body(
        text, user=user, channel=channel, response_url=slack.response_url(key)
    )
    assert (await bot.send(body)).status_code == 200


async def test_a_revoked_subscribers_watch_stops_and_posts_nothing_more(
    fake_slack: FakeSlack, redis_url: str, redis_client
):
    fake_slack.users["U2"] = {"profile": {"display_name": "U2", "email": "alice@acme.ai"}}
    sim = Simulator(DEMO.model_copy(deep=True), control=True)
    async with running_bots(
        fake_slack, redis_url, simulator=sim, watch_interval_s=1, authz_cache_ttl_s=1
    ) as [web]:
        await _say(web, fake_slack, "watch ml-team on prod-a", user="U1", channel=DM)
        await fake_slack.wait_for_async(
            "chat.postMessage", where=_in(DM, "subscribed this channel"), timeout=20
        )
        await _say(web, fake_slack, "watch ml-team on prod-a", user="U2", channel=CHANNEL)
        await fake_slack.wait_for_async(
            "chat.postMessage", where=_in(CHANNEL, "subscribed this channel"), timeout=20
        )

        rules = sim.scenario.access_rules
        assert rules is not None
        rules[:] = [r for r in rules if r.get("subjectId") != "bob@acme.ai"]
        [stopped] = await fake_slack.wait_for_async(
            "chat.postMessage", where=_in(DM, "no longer watches"), timeout=30
        )
        assert (stopped.text or "").startswith(
            "This channel no longer watches project ml-team on prod-a: nothing more is posted"
        )
        assert "bob" not in (stopped.text or ""), "whose access changed is nobody's business"

        await put_workload(web.runai_url, failing(LLAMA))
        [report] = await fake_slack.wait_for_async(
            "chat.postMessage", where=_in(CHANNEL, "llama-sft-qlora"), timeout=30
        )
        assert "llama-sft-qlora" in first_line(report)
        # The poll that found it for alice's channel passed bob's watch by: stopped, not polled.
        in_dm = [c for c in fake_slack.calls("chat.postMessage") if c.body.get("channel") == DM]
        assert [first_line(c)[:40] for c in in_dm] == [
            "bob@acme.ai subscribed this channel to f",
            "This channel no longer watches project m",
        ]

        await _say(web, fake_slack, "unwatch ml-team on prod-a", user="U1", channel=DM)
        await fake_slack.wait_for_async(
            "chat.postMessage",
            where=_in(DM, "bob@acme.ai unsubscribed this channel from project ml-team on prod-a."),
            timeout=20,
        )
