"""Engine replies as Slack messages (`bot.slack.messages`): what a pick shows."""

from __future__ import annotations

import pytest

from bot.conversation import Choice, Question, ReportReply
from bot.render.clean import utf16_len
from bot.slack.messages import picked_blocks, to_slack
from tests.bot.render.reports import report

_EMOJI = "\U0001f600"
_FACTS = " · Failed · submitted 11-04 00:17Z"


@pytest.mark.parametrize(
    ("label", "shown"),
    [
        ("prod-a", "prod-a"),
        ("train-\u202egpj.exe", "train-gpj.exe"),  # a bidi override cannot reverse it
        ("zero\u200bwidth\u2060joined", "zerowidthjoined"),
        ("\x1b[2Jclear", "[2Jclear"),  # no terminal escape
        ("two\nlines", "two lines"),
        ("  ", "?"),
        ("", "?"),
        (_EMOJI * 200, _EMOJI * 74 + "…"),  # 150 UTF-16 units, not 150 code points
        ("a" * 200, "a" * 149 + "…"),
        # a candidate's label (`candidate_labels`) loses the middle of its name, not its facts
        ("n" * 200 + _FACTS, "n" * 58 + "…" + "n" * 57 + _FACTS),
        ("&" * 200 + _FACTS, "&amp;" * 11 + "…" + "&amp;" * 11 + _FACTS),  # counted as sent
    ],
)
def test_a_picked_label_is_cleaned_and_cut_in_utf16_units(label, shown):
    [picked] = picked_blocks([], "U1", label)
    element = picked["elements"][1]
    assert element == {"type": "plain_text", "text": shown, "emoji": False}
    assert utf16_len(element["text"]) <= 150


def test_the_answered_question_shows_the_cleaned_label():
    label = "train-\u202egpj.exe\u200b\x1b[2J" + _EMOJI * 200
    question = Question("Which workload?", (Choice(label, "v1"),), asker="U1")
    [message] = to_slack(Question(question.text, asker="U1", picked=Choice(label, "v1")))
    [context] = [b for b in message.blocks if b["type"] == "context"]
    text = context["elements"][1]["text"]
    assert text.startswith("train-gpj.exe[2J")
    assert utf16_len(text) <= 150


@pytest.mark.parametrize(("most", "replies"), [(None, 3), (4, 3), (2, 1), (1, 0)])
def test_an_answer_fits_the_messages_it_is_given(most, replies):
    long = report(recommendations=tuple(f"rec {i} " + "y" * 900 for i in range(40)))
    messages = to_slack(ReportReply(long, "24h"), max_messages=most)
    assert len(messages) == 1 + replies
    assert ("left out to keep the thread short" in str(messages[-1].blocks)) is (replies < 3)
