"""Progress while diagnosing: the thread status shown for the placeholder."""

from __future__ import annotations

from bot.slack.render.progress import CLEAR, LOADING_MESSAGES, thread_status


def test_the_status_lists_the_steps_then_the_notice_within_slacks_limits():
    status = thread_status("Diagnosing train in nlp on prod-a…\u202e" + "x" * 500)
    assert status.status == "is diagnosing…"
    assert status.loading_messages[: len(LOADING_MESSAGES)] == LOADING_MESSAGES
    assert status.loading_messages[-1].startswith("Diagnosing train in nlp on prod-a…x")
    assert len(status.loading_messages) <= 10
    assert all(len(m) <= 100 for m in status.loading_messages)
    assert "\u202e" not in status.loading_messages[-1]
    assert CLEAR.status == ""
