"""The answer card's parts (`bot.teams.render.cards`): the closing notes line."""

from __future__ import annotations

import pytest

from bot.render.clean import utf16_len
from bot.teams.render.cards import render_report_cards
from tests.bot.render.reports import report

_LONG = "Posted because this channel watches project " + "p" * 150 + " on cluster-a."


@pytest.mark.parametrize(
    ("notes", "redactions", "ending"),
    [
        ([_LONG] * 6, 3, "… · 3 sensitive values redacted"),
        ([_LONG] * 6, 1, "… · 1 sensitive value redacted"),
        (["\U0001f680" * 190] * 6, 2, "… · 2 sensitive values redacted"),
        ([_LONG] * 6, 0, "…"),
        (["short"], 2, "short · 2 sensitive values redacted"),
        ([], 1, "1 sensitive value redacted"),
    ],
)
def test_the_redaction_count_is_never_cut_from_the_notes(notes, redactions, ending):
    card = render_report_cards(report(redactions=redactions), notes=notes)[0]
    closing = card.body[-1]["text"]
    assert closing.endswith(ending)
    assert utf16_len(closing) <= 1_000


def test_no_notes_and_nothing_redacted_add_no_line():
    card = render_report_cards(report(redactions=0))[0]
    assert "redacted" not in card.body[-1]["text"]
