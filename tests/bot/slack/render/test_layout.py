"""The `label · workload` title (`bot.slack.render.layout`) in each place a Slack message shows it."""

from __future__ import annotations

import pytest

from bot.slack.render.blocks import render_evidence, render_report
from bot.slack.render.layout import SlackMessage
from diagnosis import EvidenceLine
from tests.bot.render.reports import WORKLOAD, report

_NAME = "*URGENT* _pay_ ~now~ `x` >quote"
#: The name as mrkdwn shows it: each mark a look-alike that formats nothing.
_NEUTRAL = "\u2217URGENT\u2217 \u02cdpay\u02cd \u223cnow\u223c \u02cbx\u02cb &gt;quote"
_LONG = report(
    workload=WORKLOAD.model_copy(update={"name": _NAME}),
    recommendations=tuple(f"rec {i} " + "y" * 900 for i in range(40)),
    evidence=tuple(EvidenceLine(text=f"line {i} " + "x" * 900, source="events") for i in range(60)),
)


def _first_section(message: SlackMessage) -> str:
    block = message.blocks[0]
    assert block["type"] == "section"
    assert block["text"]["type"] == "mrkdwn"
    return str(block["text"]["text"])


@pytest.mark.parametrize(
    ("where", "shown"),
    [
        ("header", lambda: render_report(_LONG)[0].blocks[0]["text"]["text"]),
        ("notification", lambda: render_report(_LONG)[0].text.split("\n")[0]),
        ("continued", lambda: _first_section(render_report(_LONG)[1])),
        ("continued text", lambda: render_report(_LONG)[1].text),
        ("all evidence", lambda: _first_section(render_evidence(_LONG)[0])),
        ("no evidence", lambda: _first_section(render_evidence(report(
            workload=_LONG.workload, evidence=(), missing=(), changes=None
        ))[0])),
    ],
)  # fmt: skip
def test_a_workload_name_formats_nothing_where_it_is_mrkdwn(where, shown):
    text = shown()
    if where == "header":  # plain_text: the marks cannot format, so they are shown as written
        assert text == "OOM_KILLED · *URGENT* _pay_ ~now~ `x` &gt;quote"
        return
    assert _NEUTRAL in text
    for formatting in ("*URGENT*", "_pay_", "~now~", "`x`"):
        assert formatting not in text
