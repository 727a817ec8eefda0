"""Which messages are subscription commands (a table), read in linear time."""

from __future__ import annotations

import pytest

from bot.conversation.parse_bounds import MAX_PARSED_CHARS
from bot.watch.command import WatchCommand, parse_watch
from tests.linear_time import assert_linear, ratio

W = WatchCommand


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("watch nlp on prod-a", W("watch", "nlp", "prod-a")),
        ("  Watch nlp on prod-a  ", W("watch", "nlp", "prod-a")),
        ("watch project nlp on cluster prod-a", W("watch", "nlp", "prod-a")),
        ("watch nlp on prod-a with preemptions", W("watch", "nlp", "prod-a", preemptions=True)),
        ("<@U0BOT> watch nlp on prod-a", W("watch", "nlp", "prod-a")),
        ("@runai-why watch nlp on prod-a", W("watch", "nlp", "prod-a")),
        ("unwatch nlp on prod-a", W("unwatch", "nlp", "prod-a")),
        ("UNWATCH ml.team_2 on 2b7c3d1e-9f4a", W("unwatch", "ml.team_2", "2b7c3d1e-9f4a")),
        ("watches", W("list")),
        ("<@U0BOT> watches", W("list")),
        ("watch project on prod-a", W("watch", "project", "prod-a")),
        # questions, not commands
        ("why did training-job-42 in ml-team fail?", None),
        ("watch nlp", None),
        ("watch nlp on", None),
        ("watch nlp on prod-a please", None),
        ("please watch nlp on prod-a", None),
        ("watch nlp on prod-a with", None),
        ("watch <!channel> on prod-a", None),
        ("watch `nlp` on prod-a", None),
        ("watches nlp", None),
        ("", None),
        ("watch nlp on " + "a" * 129, None),
        ("watch nlp on prod-a" + " " + "x" * MAX_PARSED_CHARS, None),
    ],
)
def test_parse_watch(text: str, command: WatchCommand | None):
    assert parse_watch(text) == command


def test_parsing_is_linear_in_the_message():
    allowed = 8 * ratio(parse_watch, ["watch nlp on prod-a" * 200, "why did it fail " * 250])
    for hostile in (
        "watch " * 680,
        "watch a on " * 370,
        "watch project " * 290,
        "watch nlp on prod-a with " * 160,
        ("watch " + "a" * 120 + " ") * 32,
    ):
        assert_linear(parse_watch, hostile[:MAX_PARSED_CHARS], allowed)
