"""Progress while diagnosing: which notice is the placeholder, and the thread status for it."""

from __future__ import annotations

import pytest

from bot.conversation import Slots
from bot.conversation.messages import HELP, working_text
from bot.render.progress import CLEAR, LOADING_MESSAGES, is_progress, thread_status


@pytest.mark.parametrize(
    ("text", "progress"),
    [
        (working_text(Slots(cluster_id="c", workload_name="train", project="nlp")), True),
        (working_text(Slots(cluster_label="prod-a", workload_id="3f1c")), True),
        (HELP, False),
        ("I could not finish the diagnosis: …", False),
    ],
)
def test_the_engines_progress_notice_is_recognised(text, progress):
    assert is_progress(text) is progress


def test_the_status_lists_the_steps_then_the_notice_within_slacks_limits():
    status = thread_status("Diagnosing train in nlp on prod-a…\u202e" + "x" * 500)
    assert status.status == "is diagnosing…"
    assert status.loading_messages[: len(LOADING_MESSAGES)] == LOADING_MESSAGES
    assert status.loading_messages[-1].startswith("Diagnosing train in nlp on prod-a…x")
    assert len(status.loading_messages) <= 10
    assert all(len(m) <= 100 for m in status.loading_messages)
    assert "\u202e" not in status.loading_messages[-1]
    assert CLEAR.status == ""
