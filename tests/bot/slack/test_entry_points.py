"""Who the bot listens to, where it answers, and what stays private, end to end.

Direct messages, the "Why did this fail?" message shortcut, slash commands and mentions,
over real HTTP with signed requests, the simulator, a real Redis and the fake Slack.
"""

from __future__ import annotations

import pytest

from bot.slack.listeners.actions import only_asker
from tests.bot.slack.fake_slack import Call
from tests.bot.slack.harness import Bot, first_line
from tests.bot.slack.signing import (
    BOT_USER_ID,
    app_mention_event,
    block_action_body,
    event_body,
    message_event,
    message_shortcut_body,
    slash_command_body,
)

pytestmark = pytest.mark.e2e


def _buttons(call: Call) -> list[dict]:
    return [e for b in call.blocks if b["type"] == "actions" for e in b["elements"]]


def _public_texts(bot: Bot) -> list[str]:
    return [c.text or "" for m in ("chat.postMessage", "chat.update") for c in bot.slack.calls(m)]


async def _told_privately_then_answered(bot: Bot, told: str, category: str) -> None:
    """A private notice through `response_url` that starts with `told`; the answer public."""
    [hint] = await bot.slack.wait_for_async("response_url")
    assert hint.body["response_type"] == "ephemeral"
    assert hint.body["text"].startswith(told)
    [answer] = await bot.slack.wait_for_async("chat.update")
    assert first_line(answer).startswith(category)
    assert not [t for t in _public_texts(bot) if told in t]


async def test_slash_command_help_is_private_to_the_asker(bot: Bot):
    body = slash_command_body("help", response_url=bot.slack.response_url("help"))
    assert (await bot.send(body)).status_code == 200
    [private] = await bot.slack.wait_for_async("response_url")
    assert private.key == "help"
    assert private.body["response_type"] == "ephemeral"
    assert "I explain why a Run:ai workload failed" in private.body["text"]
    assert bot.slack.calls("chat.postMessage") == []


async def test_mention_help_is_an_ephemeral_in_the_thread(bot: Bot):
    mention = app_mention_event(
        f"<@{BOT_USER_ID}> help", user="U7", channel="C1", ts="1700003000.000100"
    )
    await bot.send(event_body(mention))
    [private] = await bot.slack.wait_for_async("chat.postEphemeral")
    assert private.body["user"] == "U7"
    assert private.body["channel"] == "C1"
    assert private.body["thread_ts"] == "1700003000.000100"
    assert "I explain why" in private.text
    assert bot.slack.calls("chat.postMessage") == []


async def test_a_bad_part_is_told_privately_and_the_answer_stays_public(bot: Bot):
    body = slash_command_body(
        "cluster=prod-a workload=eval-harness project=ml-team symptom=flaky",
        response_url=bot.slack.response_url("bad"),
    )
    await bot.send(body)
    await _told_privately_then_answered(bot, "I could not use part of that", "CRASH_APP_ERROR")


async def test_the_incidents_40_kb_mention_is_read_up_to_the_cap_and_told_privately(bot: Bot):
    """`show show show …` froze the bot for 4 s; now its start is read, and the asker told."""
    text = f"<@{BOT_USER_ID}> " + "show " * 8000
    mention = app_mention_event(text, user="U7", channel="C1", ts="1700003050.000100")
    await bot.send(event_body(mention))
    [private, *_] = await bot.slack.wait_for_async("chat.postEphemeral")
    assert (private.body["user"], private.body["thread_ts"]) == ("U7", "1700003050.000100")
    assert private.text.startswith("That message is long, so I read only its first 4,096")
    [question] = await bot.slack.wait_for_async("chat.postMessage")  # nothing named: which?
    assert "message is long" not in question.text


async def test_a_shortcut_on_a_long_alert_answers_from_its_start_and_says_so(bot: Bot):
    alert = {
        "ts": "1700003060.000100",
        "bot_id": "B-ALERTS",
        "text": "cluster=prod-a project=ml-team workload=training-job-42 " + "label=x " * 1000,
    }
    body = message_shortcut_body(
        alert,
        user="U1",
        channel="C1",
        response_url=bot.slack.response_url("long"),
        trigger_id="t-long-alert",
    )
    await bot.send(body)
    await _told_privately_then_answered(bot, "That message is long", "OOM_KILLED")


async def test_only_the_asker_can_pick_and_a_pick_replaces_the_buttons(bot: Bot):
    root = "1700003100.000100"
    mention = app_mention_event(
        f"<@{BOT_USER_ID}> why did training-job-42 in ml-team fail?",
        user="U1",
        channel="C1",
        ts=root,
    )
    await bot.send(event_body(mention))
    [question] = await bot.slack.wait_for_async("chat.postMessage")
    [button] = _buttons(question)

    def click(user: str, key: str) -> bytes:
        return block_action_body(
            button["action_id"],
            button["value"],
            user=user,
            channel="C1",
            message_ts=question.response["ts"],
            thread_ts=root,
            response_url=bot.slack.response_url(key),
            message_blocks=question.blocks,
            label=button["text"]["text"],
            message_text=question.text,
        )

    assert (await bot.send(click("U2", "teammate"))).status_code == 200
    [denied] = await bot.slack.wait_for_async("response_url")
    assert denied.key == "teammate"
    assert denied.body["response_type"] == "ephemeral"
    assert denied.body["text"] == only_asker("U1")
    assert bot.slack.calls("chat.update") == []  # nothing picked, nothing diagnosed

    assert (await bot.send(click("U1", "asker"))).status_code == 200
    updates = await bot.slack.wait_for_async("chat.update", count=2)
    picked = updates[0]
    assert picked.body["ts"] == question.response["ts"]
    assert _buttons(picked) == []
    [choice] = [b for b in picked.blocks if b["type"] == "context"]
    assert [e["text"] for e in choice["elements"]] == ["<@U1> picked", "prod-a"]
    assert first_line(updates[1]).startswith("OOM_KILLED")


async def test_direct_message_is_answered_in_the_conversation_and_continued(bot: Bot):
    ask = message_event(
        "why did training-job-42 in ml-team fail?", user="U1", channel="D1", ts="1700003200.0001"
    )
    assert ask["channel_type"] == "im"
    await bot.send(event_body(ask))
    [question] = await bot.slack.wait_for_async("chat.postMessage")
    assert question.body["channel"] == "D1"
    assert "thread_ts" not in question.body  # a DM is answered in the conversation itself
    assert "Which Run:ai cluster" in question.text

    await bot.send(event_body(message_event("prod-a", user="U1", channel="D1", ts="1700003201.0")))
    posts = await bot.slack.wait_for_async("chat.postMessage", count=2)
    assert "thread_ts" not in posts[1].body
    [answer] = await bot.slack.wait_for_async("chat.update")
    assert answer.body["channel"] == "D1"
    assert first_line(answer).startswith("OOM_KILLED")


async def test_message_shortcut_diagnoses_an_alert_in_its_thread(bot: Bot):
    alert = {
        "ts": "1700003300.000100",
        "bot_id": "B-ALERTS",
        "text": "[FIRING:1] RunaiWorkloadFailed",
        "attachments": [
            {
                "fallback": "RunaiWorkloadFailed",
                "title": "Workload failed",
                "text": "cluster=prod-a project=ml-team workload=training-job-42",
            }
        ],
    }
    body = message_shortcut_body(
        alert, user="U1", channel="C1", response_url=bot.slack.response_url("sc")
    )
    assert (await bot.send(body)).status_code == 200
    [working] = await bot.slack.wait_for_async("chat.postMessage")
    assert working.body["thread_ts"] == "1700003300.000100"  # under the alert
    [answer] = await bot.slack.wait_for_async("chat.update")
    assert first_line(answer).startswith("OOM_KILLED")


async def test_message_shortcut_asks_for_what_the_message_lacks(bot: Bot):
    thread, ts = "1700003400.000100", "1700003401.000100"
    message = {"ts": ts, "thread_ts": thread, "user": "U3", "text": "eval-harness in ml-team died"}
    body = message_shortcut_body(
        message, user="U1", channel="C1", response_url=bot.slack.response_url("sc")
    )
    await bot.send(body)
    [question] = await bot.slack.wait_for_async("chat.postMessage")
    assert question.body["thread_ts"] == thread
    assert "Which Run:ai cluster" in question.text

    reply = message_event("prod-a", user="U1", channel="C1", ts="1700003402.0", thread_ts=thread)
    await bot.send(event_body(reply))
    [answer] = await bot.slack.wait_for_async("chat.update")
    assert first_line(answer).startswith("CRASH_APP_ERROR")


async def test_another_bots_mention_starts_nothing_but_a_person_after_it_does(bot: Bot):
    """A bot's mention is ignored (no loop); the barrier is a person's mention answered after."""
    text = f"<@{BOT_USER_ID}> why did eval-harness in ml-team fail on cluster prod-a"
    from_bot = {**app_mention_event(text, user="UB", channel="C1", ts="1700003500.1")}
    from_bot["bot_id"] = "B-OTHER"
    await bot.send(event_body(from_bot))
    person = app_mention_event(text, user="U1", channel="C1", ts="1700003501.1")
    await bot.send(event_body(person))
    await bot.slack.wait_for_async("chat.update")
    threads = [c.body.get("thread_ts") for c in bot.slack.calls("chat.postMessage")]
    assert threads == ["1700003501.1"]


async def test_a_command_that_mentions_payload_still_reaches_the_command(bot: Bot):
    """Bolt alone reads any form body containing "payload" as an interaction and drops it."""
    body = slash_command_body(
        "cluster=prod-a workload=payload-etl project=ml-team",
        response_url=bot.slack.response_url("p"),
    )
    assert (await bot.send(body)).status_code == 200
    [working] = await bot.slack.wait_for_async("chat.postMessage")
    assert working.text.startswith("Diagnosing payload-etl in ml-team on prod-a")
    await bot.slack.wait_for_async("chat.update")


async def test_a_button_in_a_direct_message_continues_the_conversation(bot: Bot):
    ask = message_event("why did eval-harness in ml-team fail?", user="U1", channel="D2", ts="1.5")
    await bot.send(event_body(ask))
    [question] = await bot.slack.wait_for_async("chat.postMessage")
    [button] = _buttons(question)
    click = block_action_body(
        button["action_id"],
        button["value"],
        user="U1",
        channel="D2",
        message_ts=question.response["ts"],
        response_url=bot.slack.response_url("dm"),
        message_blocks=question.blocks,
        label=button["text"]["text"],
    )
    await bot.send(click)
    updates = await bot.slack.wait_for_async("chat.update", count=2)
    assert _buttons(updates[0]) == []
    assert first_line(updates[1]).startswith("CRASH_APP_ERROR")
    assert all("thread_ts" not in c.body for c in bot.slack.calls("chat.postMessage"))
