"""What people paste and type, understood end to end over real HTTP (Slack).

A pasted Alertmanager alert in a thread, a correction after an answer, and two workloads in
one mention, each through the real app under uvicorn, signed like Slack, against the fake
Slack Web API, the Run:ai simulator and a real Redis.
"""

from __future__ import annotations

import json

import pytest

from tests.bot.slack.harness import Bot, first_line
from tests.bot.slack.signing import BOT_USER_ID, app_mention_event, event_body, message_event

pytestmark = pytest.mark.e2e

ALERT = (
    "*[FIRING:1] KubePodCrashLooping runai-ml-team (pytorch training-job-42-0-1 warning)*\n"
    "alertname=KubePodCrashLooping cluster=prod-a namespace=runai-ml-team "
    "pod=training-job-42-0-1 uid=5d0c2b8e-1f4a-4c7e-9b21-6e3a8d4f0a77 "
    "&lt;https://alertmanager.example.com/#/alerts&gt;"
)


async def test_an_alert_pasted_in_a_thread_is_diagnosed_there(bot: Bot):
    mention = app_mention_event(
        f"<@{BOT_USER_ID}> why? {ALERT}",
        user="U1",
        channel="C1",
        ts="1700000200.000200",
        thread_ts="1700000100.000100",  # the alert's own thread
    )
    assert (await bot.send(event_body(mention))).status_code == 200
    [working] = await bot.slack.wait_for_async("chat.postMessage")
    assert working.body["thread_ts"] == "1700000100.000100"
    assert (working.text or "").startswith("Diagnosing training-job-42 in ml-team on prod-a")
    [answer] = await bot.slack.wait_for_async("chat.update")
    assert first_line(answer).startswith("OOM_KILLED")
    assert "Pod training-job-42-0-1 belongs to workload training-job-42." in json.dumps(
        answer.body, ensure_ascii=False
    )


async def test_a_correction_after_an_answer_re_runs_and_says_what_changed(bot: Bot):
    root = "1700000300.000300"
    ask = app_mention_event(
        f"<@{BOT_USER_ID}> why did *training-job-42* in `ml-team` fail on <#C0PRODA|prod-a>?",
        user="U1",
        channel="C1",
        ts=root,
    )
    await bot.send(event_body(ask))
    [first] = await bot.slack.wait_for_async("chat.update")
    assert first_line(first).startswith("OOM_KILLED")

    fix = message_event(
        "actually it's `eval-harness`", user="U1", channel="C1", ts="1700000301.0", thread_ts=root
    )
    assert (await bot.send(event_body(fix))).status_code == 200
    updates = await bot.slack.wait_for_async("chat.update", count=2)
    corrected = json.dumps(updates[1].body, ensure_ascii=False)
    assert "Corrected: workload training-job-42 → eval-harness." in corrected
    posts = bot.slack.calls("chat.postMessage")
    assert posts[-1].body["thread_ts"] == root
    assert (posts[-1].text or "").startswith("Diagnosing eval-harness in ml-team on prod-a")


async def test_two_workloads_in_one_mention_get_one_answer_each(bot: Bot):
    ask = app_mention_event(
        f"<@{BOT_USER_ID}> why did `training-job-42` and `eval-harness` in ml-team fail on prod-a?",
        user="U1",
        channel="C1",
        ts="1700000400.000400",
    )
    await bot.send(event_body(ask))
    working = await bot.slack.wait_for_async("chat.postMessage", count=2)
    assert [(w.text or "").split(" in ")[0] for w in working] == [
        "Diagnosing training-job-42",
        "Diagnosing eval-harness",
    ]
    assert {w.body["thread_ts"] for w in working} == {"1700000400.000400"}
    answers = await bot.slack.wait_for_async("chat.update", count=2)
    assert [a.body["ts"] for a in answers] == [w.response["ts"] for w in working]


async def test_a_forwarded_alert_with_a_mention_is_read_from_its_attachment(bot: Bot):
    mention = app_mention_event(
        f"<@{BOT_USER_ID}> why?", user="U1", channel="C1", ts="1700000500.000500"
    )
    mention["attachments"] = [
        {
            "is_share": True,
            "author_name": "Alertmanager",
            "title": "[FIRING:1] KubePodCrashLooping runai-ml-team (training-job-42-0-1)",
            "text": "cluster=prod-a namespace=runai-ml-team pod=training-job-42-0-1",
            "fallback": "[FIRING:1] KubePodCrashLooping",
        }
    ]
    assert (await bot.send(event_body(mention))).status_code == 200
    [working] = await bot.slack.wait_for_async("chat.postMessage")
    assert (working.text or "").startswith("Diagnosing training-job-42 in ml-team on prod-a")
    [answer] = await bot.slack.wait_for_async("chat.update")
    assert first_line(answer).startswith("OOM_KILLED")
