"""The buttons on an answer, over real HTTP: all evidence, re-run, and the Run:ai link."""

from __future__ import annotations

from typing import Any

import pytest

from bot.conversation.messages import NOT_IN_THREAD
from bot.render.actions import OPEN_IN_RUNAI, RERUN, SHOW_ALL_EVIDENCE, ActionTarget
from bot.slack.render.blocks import ACTIONS_BLOCK_ID
from tests.bot.slack.fake_slack import Call
from tests.bot.slack.harness import Bot, first_line, settle
from tests.bot.slack.signing import (
    BOT_USER_ID,
    app_mention_event,
    block_action_body,
    event_body,
    slash_command_body,
)

pytestmark = pytest.mark.e2e

ASK = "why did training-job-42 in ml-team fail on cluster prod-a?"


async def _answer(bot: Bot) -> tuple[str, list[dict[str, Any]]]:
    """Ask in full; (the answer's ts, the buttons on it)."""
    await bot.send(slash_command_body(ASK, response_url=bot.slack.response_url()))
    [root] = await bot.slack.wait_for_async("chat.postMessage")
    [answer] = await bot.slack.wait_for_async("chat.update")
    assert first_line(answer).startswith("OOM_KILLED")
    [actions] = [b for b in answer.blocks if b.get("block_id") == ACTIONS_BLOCK_ID]
    return str(root.response["ts"]), actions["elements"]


def _press(
    bot: Bot, button: dict[str, Any], *, user: str, ts: str, thread_ts: str | None = None
) -> bytes:
    return block_action_body(
        button["action_id"],
        button.get("value", ""),
        user=user,
        channel="C1",
        message_ts=ts,
        thread_ts=thread_ts,
        response_url=bot.slack.response_url(f"press-{user}"),
    )


def _button(answer: Call, action_id: str) -> dict[str, Any]:
    [actions] = [b for b in answer.body["blocks"] if b.get("block_id") == ACTIONS_BLOCK_ID]
    [button] = [b for b in actions["elements"] if b["action_id"] == action_id]
    return button


async def _two_answers(bot: Bot) -> dict[str, Call]:
    """One mention naming two workloads: two answers in its thread (200.1), by workload."""
    ask = app_mention_event(
        f"<@{BOT_USER_ID}> why did eval-harness and training-job-42 fail in ml-team on prod-a?",
        user="U1",
        channel="C1",
        ts="200.1",
    )
    await bot.send(event_body(ask))
    answers = await bot.slack.wait_for_async(
        "chat.update", count=2, where=lambda c: " · " in first_line(c), timeout=30
    )
    return {first_line(a).split(" · ")[-1]: a for a in answers}


async def test_the_answer_links_to_run_ai_from_the_configured_url_and_ids(bot: Bot):
    _, buttons = await _answer(bot)
    by_id = {b["action_id"]: b for b in buttons}
    assert set(by_id) == {SHOW_ALL_EVIDENCE, RERUN, OPEN_IN_RUNAI}
    link = by_id[OPEN_IN_RUNAI]["url"]
    assert link.startswith(bot.runai_url + "/workloads?")
    assert "clusterId=" in link
    assert "workloadId=" in link


async def test_anyone_can_show_all_evidence_in_the_thread_and_a_retry_answers_once(bot: Bot):
    ts, buttons = await _answer(bot)
    [show] = [b for b in buttons if b["action_id"] == SHOW_ALL_EVIDENCE]
    press = _press(bot, show, user="U2", ts=ts)  # a teammate, not the asker
    assert (await bot.send(press)).status_code == 200
    assert (await bot.send(press, headers={"X-Slack-Retry-Num": "1"})).status_code == 200
    [_, evidence] = await bot.slack.wait_for_async("chat.postMessage", count=2)
    assert evidence.body["thread_ts"] == ts
    assert "All evidence" in first_line(evidence)
    await settle(bot)
    assert len(bot.slack.calls("chat.postMessage")) == 2, "the retry posted the evidence again"


async def test_re_run_checks_again_and_says_when_nothing_changed(bot: Bot):
    ts, buttons = await _answer(bot)
    [rerun] = [b for b in buttons if b["action_id"] == RERUN]
    assert (await bot.send(_press(bot, rerun, user="U1", ts=ts))).status_code == 200
    [_, progress] = await bot.slack.wait_for_async("chat.postMessage", count=2)
    assert progress.body["thread_ts"] == ts
    [_, again] = await bot.slack.wait_for_async("chat.update", count=2)
    assert again.body["ts"] == progress.response["ts"]
    assert "nothing changed" in again.text


async def test_each_answer_s_buttons_act_on_that_answer_in_a_thread_of_two(bot: Bot):
    answers = await _two_answers(bot)
    first = answers["eval-harness"]
    show = _button(first, SHOW_ALL_EVIDENCE)
    pressed = _press(bot, show, user="U2", ts=first.body["ts"], thread_ts="200.1")
    assert (await bot.send(pressed)).status_code == 200
    [evidence] = await bot.slack.wait_for_async(
        "chat.postMessage", where=lambda c: "All evidence" in first_line(c), timeout=20
    )
    assert first_line(evidence).startswith("All evidence · CRASH_APP_ERROR · eval-harness")

    rerun = _button(first, RERUN)
    pressed = _press(bot, rerun, user="U1", ts=first.body["ts"], thread_ts="200.1")
    assert (await bot.send(pressed)).status_code == 200
    [checked] = await bot.slack.wait_for_async(
        "chat.update", where=lambda c: "nothing changed" in (c.text or ""), timeout=20
    )
    assert "CRASH_APP_ERROR" in (checked.text or ""), "eval-harness checked again, not the last"


async def test_a_button_naming_a_workload_not_answered_in_the_thread_is_told_privately(
    bot: Bot,
):
    answers = await _two_answers(bot)
    first = answers["eval-harness"]
    forged = dict(_button(first, SHOW_ALL_EVIDENCE))
    # llama-sft-qlora: in the same project, never answered in this thread.
    forged["value"] = ActionTarget(
        "2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92", "9cc179ae-4b7d-44b7-98ae-eacf42d4218d"
    ).to_value()
    pressed = _press(bot, forged, user="U1", ts=first.body["ts"], thread_ts="200.1")
    assert (await bot.send(pressed)).status_code == 200
    [told] = await bot.slack.wait_for_async("response_url", where=lambda c: c.key == "press-U1")
    assert told.body["response_type"] == "ephemeral"
    assert told.body["text"] == NOT_IN_THREAD
    await settle(bot)
    assert not [c for c in bot.slack.calls("chat.postMessage") if "All evidence" in first_line(c)]
