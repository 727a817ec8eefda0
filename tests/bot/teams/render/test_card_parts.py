"""The parts of every card (`bot.teams.render.card_parts`): questions and notices with code."""

from __future__ import annotations

from bot.teams.render.card_parts import activity, render_notice, render_question_card
from tests.bot.teams.adaptive import check_activity, runs


def test_a_question_shows_its_code_span_as_written():
    card = render_question_card("Which project is `train~v2*` in? *now*", [("nlp", "p:nlp")])
    shown = activity(card)
    assert check_activity(shown) == []
    assert [(r["text"], r.get("fontType")) for r in runs(shown)] == [
        ("Which project is ", None),
        ("train~v2*", "Monospace"),
        (" in? \u2217now\u2217", None),
    ]


def test_a_question_without_code_is_a_text_block():
    card = render_question_card("Which cluster, <at>x</at>?", [("a", "c:a")])
    assert card.body[0] == {
        "type": "TextBlock",
        "text": "Which cluster, \u2039at\u203ax\u2039/at\u203a?",
        "wrap": True,
    }


def test_a_notice_gives_its_code_spans_what_cannot_format():
    """A text message shows a code span as code: as in Slack, a mark that opens nothing stays."""
    notice = render_notice("Run `ls x* y~` or `a_b`, not *this*")
    assert notice["text"] == "Run `ls x* y~` or `a_b`, not \u2217this\u2217"
