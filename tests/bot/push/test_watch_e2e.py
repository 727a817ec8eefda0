"""Watched projects end to end: two replicas, a real Redis, the simulator changed while they run."""

from __future__ import annotations

import asyncio

import pytest

from bot.render.actions import SHOW_ALL_EVIDENCE
from bot.slack.render.blocks import ACTIONS_BLOCK_ID
from runai_sim.app import Simulator
from tests.bot.push.scenes import DEMO, NLP_ID, OOM_ID, failing, put_workload
from tests.bot.slack.fake_slack import Call, FakeSlack
from tests.bot.slack.harness import Bot, first_line, running_bots
from tests.bot.slack.signing import (
    block_action_body,
    event_body,
    message_event,
    slash_command_body,
)

pytestmark = pytest.mark.e2e

CHANNEL = "C1"
DM = "D1"
LLAMA_ID = "9cc179ae-4b7d-44b7-98ae-eacf42d4218d"  # llama-sft-qlora in ml-team


def _is_report(call: Call) -> bool:
    """A message posted in the channel that is an answer (a category line, not a notice)."""
    return call.body.get("channel") == CHANNEL and " · " in first_line(call)


def _reports(slack: FakeSlack) -> list[Call]:
    return [c for c in slack.calls("chat.postMessage") if _is_report(c)]


async def _subscribe(bot: Bot, slack: FakeSlack, text: str) -> Call:
    await bot.send(slash_command_body(text, channel=CHANNEL, response_url=slack.response_url("w")))
    [confirmation] = await slack.wait_for_async(
        "chat.postMessage", where=lambda c: "subscribed this channel" in (c.text or ""), timeout=20
    )
    return confirmation


async def test_a_watched_failure_is_posted_once_and_again_in_its_thread_with_the_count(
    fake_slack: FakeSlack, redis_url: str, redis_client
):
    sim = Simulator(DEMO.model_copy(deep=True), control=True)
    async with running_bots(
        fake_slack, redis_url, replicas=2, simulator=sim, watch_interval_s=1
    ) as [web, _other]:
        confirmation = await _subscribe(web, fake_slack, "watch ml-team on prod-a")
        assert (confirmation.text or "").startswith("bob@acme.ai subscribed this channel")
        assert "Everyone in this channel will see" in (confirmation.text or "")

        await put_workload(web.runai_url, failing(NLP_ID))  # a project nobody watches
        await put_workload(web.runai_url, failing(OOM_ID))
        [first] = await fake_slack.wait_for_async("chat.postMessage", where=_is_report, timeout=30)
        assert first_line(first).startswith("OOM_KILLED · training-job-42")
        assert first.body.get("thread_ts") is None  # a message of its own
        assert "watches project ml-team on prod-a" in str(first.body)
        # Its memory chart follows in its thread, as an asked answer's does.
        [chart] = await fake_slack.wait_for_async("files.completeUploadExternal", timeout=30)
        assert chart.body.get("thread_ts") == first.response["ts"]

        await put_workload(web.runai_url, failing(OOM_ID))  # the same failure, a new change
        [_, again] = await fake_slack.wait_for_async(
            "chat.postMessage", count=2, where=_is_report, timeout=30
        )
        assert again.body.get("thread_ts") == first.response["ts"]
        assert "2nd time in 1 min" in str(again.body)

        await asyncio.sleep(3)  # three more polls: nothing new is posted, nothing twice
        reports = _reports(fake_slack)
        assert len(reports) == 2
        assert not any("bert-ft-squad" in first_line(c) for c in reports)

        # Its buttons work as an asked answer's: anyone who may read it sees all evidence.
        [actions] = [b for b in first.blocks if b.get("block_id") == ACTIONS_BLOCK_ID]
        [show] = [b for b in actions["elements"] if b["action_id"] == SHOW_ALL_EVIDENCE]
        press = block_action_body(
            show["action_id"],
            show.get("value", ""),
            user="U2",
            channel=CHANNEL,
            message_ts=first.response["ts"],
            response_url=fake_slack.response_url("press"),
        )
        assert (await web.send(press)).status_code == 200
        [evidence] = await fake_slack.wait_for_async(
            "chat.postMessage", where=lambda c: "All evidence" in first_line(c), timeout=20
        )
        assert evidence.body["thread_ts"] == first.response["ts"]


def _press_show_all_evidence(message: Call, *, ts: str, slack: FakeSlack, key: str) -> bytes:
    """U1's click on `message`'s *Show all evidence*, at the DM's top level."""
    [actions] = [b for b in message.blocks if b.get("block_id") == ACTIONS_BLOCK_ID]
    [show] = [b for b in actions["elements"] if b["action_id"] == SHOW_ALL_EVIDENCE]
    return block_action_body(
        show["action_id"],
        show.get("value", ""),
        user="U1",
        channel=DM,
        message_ts=ts,
        response_url=slack.response_url(key),
    )


async def test_a_failure_pushed_to_a_dm_keeps_its_buttons_and_the_dm_s_own_answer_its_own(
    fake_slack: FakeSlack, redis_url: str, redis_client
):
    """A DM's top level is one conversation: a click on a pushed answer there finds it."""
    sim = Simulator(DEMO.model_copy(deep=True), control=True)
    async with running_bots(fake_slack, redis_url, simulator=sim, watch_interval_s=1) as [web]:
        watch = "watch ml-team on prod-a"
        await web.send(
            slash_command_body(watch, channel=DM, response_url=fake_slack.response_url("w"))
        )
        await fake_slack.wait_for_async(
            "chat.postMessage", where=lambda c: "subscribed this channel" in (c.text or "")
        )
        text = "why did eval-harness fail in ml-team on prod-a?"
        await web.send(event_body(message_event(text, user="U1", channel=DM, ts="100.1")))
        [asked] = await fake_slack.wait_for_async(
            "chat.update", where=lambda c: "eval-harness" in first_line(c), timeout=30
        )
        await put_workload(web.runai_url, failing(LLAMA_ID))
        [pushed] = await fake_slack.wait_for_async(
            "chat.postMessage",
            where=lambda c: c.body.get("channel") == DM and "llama-sft-qlora" in first_line(c),
            timeout=30,
        )
        assert pushed.body.get("thread_ts") is None  # at the DM's top level

        press = _press_show_all_evidence(
            pushed, ts=pushed.response["ts"], slack=fake_slack, key="pushed"
        )
        assert (await web.send(press)).status_code == 200
        [shown] = await fake_slack.wait_for_async(
            "chat.postMessage", where=lambda c: "All evidence" in first_line(c), timeout=20
        )
        assert "llama-sft-qlora" in first_line(shown)

        press = _press_show_all_evidence(asked, ts=asked.body["ts"], slack=fake_slack, key="asked")
        assert (await web.send(press)).status_code == 200
        [_, shown] = await fake_slack.wait_for_async(
            "chat.postMessage", count=2, where=lambda c: "All evidence" in first_line(c), timeout=20
        )
        assert "eval-harness" in first_line(shown), "the DM's own answer keeps its buttons"
