"""Progress while diagnosing: the thread status shown for the placeholder."""

from __future__ import annotations

from bot.render.clean import utf16_len
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


def test_a_notice_beyond_the_bmp_is_cut_in_utf16_units():
    """Slack counts UTF-16 units: 100 rockets are 200 of them, so the notice is cut to fit."""
    own = thread_status("Diagnosing " + "\U0001f680" * 100).loading_messages[-1]
    assert utf16_len(own) <= 100
    assert own.endswith("…")
    assert own.startswith("Diagnosing \U0001f680")
