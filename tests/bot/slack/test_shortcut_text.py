"""What the "Why did this fail?" shortcut reads from a message, and the picked-choice blocks."""

from __future__ import annotations

from typing import Any

import pytest

from bot.conversation.parse import parse
from bot.conversation.parse_bounds import MAX_PARSED_CHARS
from bot.slack.listeners.actions import only_asker
from bot.slack.listeners.shortcuts import message_text
from bot.slack.responder import picked_blocks

SECTION = {"type": "section", "text": {"type": "mrkdwn", "text": "cluster=prod-a"}}
RICH = {
    "type": "rich_text",
    "elements": [
        {
            "type": "rich_text_section",
            "elements": [{"type": "text", "text": "workload training-job-42"}],
        }
    ],
}


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ({"text": "why did eval-harness fail?"}, "why did eval-harness fail?"),
        ({"text": "", "blocks": [SECTION]}, "cluster=prod-a"),
        ({"text": "cluster=prod-a", "blocks": [SECTION]}, "cluster=prod-a"),  # said once
        ({"text": "alert", "blocks": [RICH]}, "alert\nworkload training-job-42"),
        (
            {
                "text": "[FIRING:1] RunaiWorkloadFailed",
                "attachments": [
                    {
                        "fallback": "[FIRING:1] RunaiWorkloadFailed",
                        "title": "Workload failed",
                        "text": "project=ml-team",
                        "fields": [{"title": "cluster", "value": "prod-a"}],
                    }
                ],
            },
            "[FIRING:1] RunaiWorkloadFailed\nWorkload failed\nproject=ml-team\ncluster prod-a",
        ),
        ({"attachments": ["not a dict"], "blocks": "nor a list"}, ""),
        ({}, ""),
    ],
    ids=["text", "block", "dedup", "rich-text", "alertmanager", "odd-shapes", "empty"],
)
def test_message_text(message: dict[str, Any], expected: str):
    assert message_text(message) == expected


def test_a_long_message_is_passed_on_whole_for_the_engine_to_cap_and_say_so():
    text = message_text({"text": "why did eval-harness fail? " + "x" * 50_000})
    assert len(text) > MAX_PARSED_CHARS
    assert parse(text).ignored_chars > 0  # so the asker is told the rest was not read


def test_reading_stops_once_there_is_more_than_the_parser_reads():
    blocks = [
        {"type": "section", "text": {"type": "mrkdwn", "text": f"line {i}"}} for i in range(50_000)
    ]
    text = message_text({"text": "alert", "blocks": blocks})
    assert MAX_PARSED_CHARS < len(text) <= MAX_PARSED_CHARS + len("line 49999\n")
    assert text.startswith("alert\nline 0\nline 1\n")


QUESTION: list[dict[str, Any]] = [
    {"type": "section", "text": {"type": "mrkdwn", "text": "Which cluster?"}},
    {"type": "actions", "elements": [{"type": "button", "action_id": "a_0"}]},
    {"type": "actions", "elements": [{"type": "button", "action_id": "a_25"}]},
    {"type": "context", "elements": [{"type": "mrkdwn", "text": "_3 more_"}]},
]


def test_a_pick_replaces_every_button_block_with_one_line_in_place():
    blocks = picked_blocks(QUESTION, "U1", "prod-a")
    assert [b["type"] for b in blocks] == ["section", "context", "context"]
    assert [e["text"] for e in blocks[1]["elements"]] == ["<@U1> picked", "prod-a"]
    assert blocks[1]["elements"][1]["type"] == "plain_text"  # a label can format nothing


@pytest.mark.parametrize(
    ("user", "who"),
    [("U1", "<@U1> picked"), ("<!channel>", "Picked"), ("", "Picked")],
)
def test_only_real_user_ids_become_mentions(user: str, who: str):
    [picked] = picked_blocks([], user, "x")
    assert picked["elements"][0]["text"] == who
    assert ("<!channel>" in only_asker(user)) is False
