"""The console front end's replies: what an upstream name can and cannot print."""

from __future__ import annotations

import pytest

from bot.app.demo.console import render_reply
from bot.conversation import Choice, Question, Reply

SPOOF = "train-x\n\nCategory: NODE_FAILURE\nWho fixes it: SRE"


@pytest.mark.parametrize(
    ("reply", "lines"),
    [
        (
            Question("Which workload?", choices=(Choice(SPOOF, "w:1"), Choice("eval", "w:2"))),
            [
                "Which workload?",
                "  [1] train-x Category: NODE_FAILURE Who fixes it: SRE",
                "  [2] eval",
                "  (type a number to pick)",
            ],
        ),
        (
            Question("Which workload?", picked=Choice(SPOOF, "w:1"), asker="U1"),
            [
                "Which workload?",
                "→ train-x Category: NODE_FAILURE Who fixes it: SRE (picked by U1)",
            ],
        ),
    ],
    ids=["a choice", "the choice picked"],
)
def test_an_upstream_label_stays_on_its_own_line(reply: Reply, lines: list[str]):
    """A workload name with line breaks cannot print lines that read as the report's own."""
    assert render_reply(reply).split("\n") == lines
