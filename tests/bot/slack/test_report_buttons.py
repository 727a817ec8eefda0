"""The buttons on an answer, over real HTTP: all evidence, re-run, and the Run:ai link."""

from __future__ import annotations

from typing import Any

import pytest

from bot.render.actions import OPEN_IN_RUNAI, RERUN, SHOW_ALL_EVIDENCE
from bot.slack.render.blocks import ACTIONS_BLOCK_ID
from tests.bot.slack.harness import Bot, first_line, settle
from tests.bot.slack.signing import block_action_body, slash_command_body

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


def _press(bot: Bot, button: dict[str, Any], *, user: str, ts: str) -> bytes:
    return block_action_body(
        button["action_id"],
        button.get("value", ""),
        user=user,
        channel="C1",
        message_ts=ts,
        response_url=bot.slack.response_url(f"press-{user}"),
    )


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
