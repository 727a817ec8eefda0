"""The parts of every card (`bot.teams.render.card_parts`): questions, their buttons, notices."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.render.clean import utf16_len
from bot.render.wording import candidate_labels
from bot.teams.render.card_parts import activity, render_notice, render_question_card
from diagnosis import WorkloadRef
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


#: A name whose `&`, `<` and `>` Slack sends as entities (75 units once escaped, so Slack's
#: button must shorten it) but Teams shows one for one, as look-alikes where they could tag.
_MARKED = "r&d<ml>&co-" * 3
_WHEN = datetime(2025, 11, 4, 0, 17, tzinfo=UTC)

#: (the workload's name, the title its button shows): fitted by Teams' own count.
TITLES = [
    pytest.param(
        _MARKED,
        "r&d\u2039ml\u203a&co-" * 3 + " · Failed · submitted 11-04 00:17Z",
        id="a name only Slack must shorten is shown whole",
    ),
    pytest.param(
        "x" * 40 + "&" + "y" * 40,
        "x" * 23 + "…" + "y" * 22 + " · Failed · submitted 11-04 00:17Z",
        id="a longer one loses its middle, by Teams' count, never the facts",
    ),
]


@pytest.mark.parametrize(("name", "title"), TITLES)
def test_a_candidate_button_is_sized_by_teams_count_not_slacks(name: str, title: str):
    ref = WorkloadRef(id="w1", name=name, project="p", cluster_id="c", phase="Failed")
    [label] = candidate_labels([ref.model_copy(update={"submitted_at": _WHEN})])
    card = render_question_card("Which workload?", [(label, "workload:w1")])
    [button] = [a for row in card.body if row["type"] == "ActionSet" for a in row["actions"]]
    assert button["title"] == title
    assert utf16_len(button["title"]) <= 80
    picked = render_question_card("Which workload?", (), picked=label).body[-1]["text"]
    assert picked.endswith(" · Failed · submitted 11-04 00:17Z**"), picked  # its room is 150
