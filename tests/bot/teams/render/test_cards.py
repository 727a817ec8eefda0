"""The answer card's parts (`bot.teams.render.cards`): the closing notes line, the commands."""

from __future__ import annotations

import pytest

from bot.render.clean import utf16_len
from bot.render.wording import cli_command
from bot.teams.render.card_parts import activity
from bot.teams.render.cards import render_report_cards
from diagnosis import EvidenceLine
from tests.bot.render.reports import WORKLOAD, report
from tests.bot.teams.adaptive import check_activity, runs

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


COMMAND = "kubectl get pods -n runai-nlp -l 'app in (bert*)' -o name ~/out"


def test_a_recommended_command_is_shown_and_copied_as_written():
    """Teams reads no markdown in a TextRun: the command keeps its `*` and `~`."""
    advice = f"List the pods with `{COMMAND}`, then *retry*."
    [card] = render_report_cards(report(recommendations=(advice,)))
    shown = activity(card)
    assert check_activity(shown) == []
    code = [r["text"] for r in runs(shown) if r.get("fontType") == "Monospace"]
    assert code == [COMMAND]
    prose = "".join(r["text"] for r in runs(shown) if "fontType" not in r)
    assert prose == "• List the pods with , then \u2217retry\u2217."  # around it: inert


def test_the_command_that_prints_everything_is_shown_as_written():
    many = tuple(
        EvidenceLine(text=f"line {i}", source="get_workload_status", deciding=True)
        for i in range(12)
    )
    odd = WORKLOAD.model_copy(update={"id": "job*1~x", "cluster_id": "prod_a"})
    tall = report(workload=odd, evidence=many)
    [card] = render_report_cards(tall, lookback="24h")
    shown = activity(card)
    assert check_activity(shown) == []
    code = [r["text"] for r in runs(shown) if r.get("fontType") == "Monospace"]
    assert code == [cli_command(tall, "24h")]
    assert "'job*1~x'" in code[0]
