"""The richer Slack answer end to end: memory chart upload, progress status, buttons, limits.

Real HTTP on loopback as in `test_slack_e2e`: the ASGI app under uvicorn, signed requests,
the fake Slack Web API, the Run:ai simulator and a real Redis.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import structlog

from bot.app.demo.scenarios import bundled_scenario
from bot.render.actions import RERUN, SHOW_ALL_EVIDENCE, ActionTarget
from bot.slack.charts import CHART_FILENAME
from bot.slack.render.blocks import ACTIONS_BLOCK_ID
from tests.bot.slack.fake_slack import UPLOAD, FakeSlack
from tests.bot.slack.harness import Bot, running_bots
from tests.bot.slack.signing import slash_command_body

pytestmark = pytest.mark.e2e

ASK = "why did training-job-42 in ml-team fail on cluster prod-a?"


@pytest.fixture
async def bot(fake_slack: FakeSlack, redis_url: str, redis_client) -> AsyncIterator[Bot]:
    async with running_bots(fake_slack, redis_url) as bots:
        yield bots[0]


def _ask(bot: Bot) -> bytes:
    return slash_command_body(ASK, response_url=bot.slack.response_url())


def _images(blocks: list[dict]) -> list[dict]:
    return [b for b in blocks if b["type"] == "image"]


async def test_an_oom_answer_goes_out_first_then_its_chart_into_its_thread(bot: Bot):
    assert (await bot.send(_ask(bot))).status_code == 200
    [posted] = await bot.slack.wait_for_async("chat.postMessage")
    [updated] = await bot.slack.wait_for_async("chat.update")
    [complete] = await bot.slack.wait_for_async("files.completeUploadExternal")
    root = posted.response["ts"]
    [announce] = bot.slack.calls("files.getUploadURLExternal")
    [raw] = bot.slack.calls(UPLOAD)
    assert announce.body["filename"] == CHART_FILENAME
    assert raw.ok
    assert raw.raw.startswith(b"\x89PNG")
    assert (complete.body["channel_id"], complete.body["thread_ts"]) == ("C1", root)
    methods = [c.method for c in bot.slack.calls()]
    assert methods.index("chat.update") < methods.index("files.getUploadURLExternal"), methods
    assert _images(updated.blocks) == []  # the answer shows the sparkline; the chart follows
    assert any(b["type"] == "section" and "CPU memory" in b["text"]["text"] for b in updated.blocks
               if "text" in b)  # fmt: skip
    assert len(bot.slack.files()) == 1
    assert updated.text.startswith("OOM_KILLED")
    assert bot.slack.violations == []


async def test_a_failed_upload_is_logged_and_the_answer_goes_out_without_the_picture(bot: Bot):
    bot.slack.fail_next(UPLOAD, status=500, count=3)  # the first try and both retries.
    with structlog.testing.capture_logs() as logs:
        assert (await bot.send(_ask(bot))).status_code == 200
        [updated] = await bot.slack.wait_for_async("chat.update")
        await bot.slack.wait_for_async(UPLOAD, 3)
        async with asyncio.timeout(10):  # the warning follows the last attempt's answer
            while not [e for e in logs if e["event"] == "slack_chart_upload_failed"]:  # noqa: ASYNC110 - a log has no event
                await asyncio.sleep(0.01)
    assert updated.text.startswith("OOM_KILLED")
    assert _images(updated.blocks) == []
    assert any(b["type"] == "section" and "CPU memory" in b["text"]["text"] for b in updated.blocks
               if "text" in b)  # fmt: skip  # the sparkline stands in for the picture.
    assert len(bot.slack.calls(UPLOAD)) == 3
    assert bot.slack.calls("files.completeUploadExternal") == []
    assert [e for e in logs if e["event"] == "slack_chart_upload_failed"]
    assert bot.slack.violations == []


async def test_progress_is_a_thread_status_cleared_once_the_answer_is_in(bot: Bot):
    assert (await bot.send(_ask(bot))).status_code == 200
    await bot.slack.wait_for_async("chat.update")
    statuses = await bot.slack.wait_for_async("assistant.threads.setStatus", 2)
    root = bot.slack.calls("chat.postMessage")[0].response["ts"]
    assert [(c.body["thread_ts"], c.body["status"]) for c in statuses] == [
        (root, "is diagnosing…"),
        (root, ""),
    ]
    assert "Classifying the failure…" in statuses[0].body["loading_messages"]


async def test_where_the_workspace_refuses_a_status_the_placeholder_still_shows_progress(bot: Bot):
    bot.slack.fail_next("assistant.threads.setStatus", error="missing_scope")
    assert (await bot.send(_ask(bot))).status_code == 200
    [posted] = await bot.slack.wait_for_async("chat.postMessage")
    [updated] = await bot.slack.wait_for_async("chat.update")
    assert posted.text.startswith("Diagnosing training-job-42")
    assert updated.body["ts"] == posted.response["ts"]
    assert len(bot.slack.calls("assistant.threads.setStatus")) == 1  # nothing left to clear.


async def test_the_answer_carries_its_buttons_with_values_the_listener_can_read(bot: Bot):
    assert (await bot.send(_ask(bot))).status_code == 200
    [updated] = await bot.slack.wait_for_async("chat.update")
    [actions] = [b for b in updated.blocks if b.get("block_id") == ACTIONS_BLOCK_ID]
    by_id = {e["action_id"]: e for e in actions["elements"]}
    assert set(by_id) >= {SHOW_ALL_EVIDENCE, RERUN}
    target = ActionTarget.from_value(by_id[RERUN]["value"])
    assert target.lookback == "24h"
    assert target.cluster_id == updated.blocks[2]["elements"][0]["text"].split("`")[1]


async def test_slack_calls_before_the_answer_are_the_placeholder_and_the_update(bot: Bot):
    """The chain Slack adds to an answer: post, then update; the status is not waited for."""
    assert (await bot.send(_ask(bot))).status_code == 200
    await bot.slack.wait_for_async("files.completeUploadExternal")
    await bot.slack.wait_for_async("assistant.threads.setStatus", 2)
    methods = [c.method for c in bot.slack.calls() if c.method not in {"auth.test", "users.info"}]
    before = methods[: methods.index("chat.update") + 1]
    # The status is set after the placeholder and cleared alongside the answer, unwaited.
    assert [m for m in before if m != "assistant.threads.setStatus"] == [
        "chat.postMessage",
        "chat.update",
    ], methods
    assert methods.count("assistant.threads.setStatus") == 2, methods


async def test_the_cluster_is_named_and_its_id_is_in_the_details(bot: Bot):
    assert (await bot.send(_ask(bot))).status_code == 200
    [updated] = await bot.slack.wait_for_async("chat.update")
    assert updated.blocks[1]["fields"][2]["text"] == "*Cluster*\n`prod-a`"
    details = updated.blocks[2]["elements"][0]["text"]
    assert details.startswith("Cluster ID `2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92` · Workload ID `")


async def test_a_running_workload_is_asked_about_a_past_run_in_slack(
    fake_slack: FakeSlack, redis_url: str, redis_client
):
    """`running_no_failure`'s question is shown in the answer, not only in --json."""
    scenario = bundled_scenario("running-no-failure")
    async with running_bots(fake_slack, redis_url, scenario=scenario) as [bot]:
        workload_id = scenario.workloads[0].workload["id"]
        body = slash_command_body(
            f"cluster=prod-a100 id={workload_id}", response_url=fake_slack.response_url()
        )
        assert (await bot.send(body)).status_code == 200
        [updated] = await fake_slack.wait_for_async("chat.update")
    assert updated.text.startswith("RUNNING — no failure confirmed")
    texts = [b["text"]["text"] for b in updated.blocks if b["type"] == "section" and "text" in b]
    assert any(t.startswith("*Question:* Did you mean a past run of this workload?") for t in texts)
    assert fake_slack.violations == []
