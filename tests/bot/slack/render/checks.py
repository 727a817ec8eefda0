"""Checks on rendered Slack messages: Block Kit limits, inertness, ranges and counts."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from slack_sdk.models.blocks import Block

from bot.slack.render.blocks import BUDGET, MAX_BLOCKS, SlackMessage
from bot.slack.render.mrkdwn import slack_len
from tests.unicode_classes import category_class

__all__ = [
    "DROPPED",
    "FORBIDDEN",
    "LEFT_OUT",
    "MORE",
    "RANGE",
    "all_text",
    "assert_within_limits",
    "evidence_coverage",
    "left_out",
    "strings",
    "text_objects",
]

FORBIDDEN = ("<!", "<@", "<#", "<http")
#: What `clean` drops: control, format and surrogate characters.
DROPPED = frozenset({"Cc", "Cf", "Cs"})
MORE = re.compile(
    r"^_(\d+) more evidence lines?"
    r"(?P<how> in the thread|: (?P<thread>\d+) in the thread, (?P<left>\d+) left out"
    r"| left out \(see below\))_$"
)
RANGE = re.compile(r"^evidence (\d+)\u2013(\d+) of (\d+)$")
LEFT_OUT = re.compile(r"^_(\d+) more lines? (?:was|were) left out to keep the thread short\._")


def strings(node: Any, key: str = "") -> Iterator[tuple[str, str]]:
    """Every (key, string) leaf of a block tree."""
    if isinstance(node, str):
        yield key, node
    elif isinstance(node, dict):
        for k, v in node.items():
            yield from strings(v, k)
    elif isinstance(node, list):
        for v in node:
            yield from strings(v, key)


def text_objects(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        if node.get("type") in {"mrkdwn", "plain_text"}:
            yield node
        for v in node.values():
            yield from text_objects(v)
    elif isinstance(node, list):
        for v in node:
            yield from text_objects(v)


def all_text(message: SlackMessage) -> str:
    return "\n".join([message.text, *(s for k, s in strings(message.blocks) if k == "text")])


def assert_within_limits(message: SlackMessage) -> None:
    """Valid for slack_sdk, within every Block Kit limit and our budget, and inert."""
    assert message.text.strip()
    assert 1 <= len(message.blocks) <= MAX_BLOCKS
    for block in message.blocks:
        parsed = Block.parse(block)
        assert parsed is not None, block
        parsed.validate_json()  # raises SlackObjectFormationError
        kind = block["type"]
        if kind == "header":
            assert block["text"]["type"] == "plain_text"
            assert slack_len(block["text"]["text"]) <= 150
        if kind == "section":
            assert "text" in block or "fields" in block
            assert slack_len(block.get("text", {}).get("text", "")) <= 3000
            assert len(block.get("fields", [])) <= 10
            assert all(slack_len(f["text"]) <= 2000 for f in block.get("fields", []))
        if kind == "context":
            assert 1 <= len(block["elements"]) <= 10
        if kind == "actions":
            assert 1 <= len(block["elements"]) <= 25
            for button in block["elements"]:
                assert 1 <= slack_len(button["text"]["text"]) <= 75
                assert len(button.get("value", "")) <= 2000
                assert "value" in button or button["url"].startswith(("https://", "http://"))
                assert 1 <= len(button["action_id"]) <= 255
        assert len(block.get("block_id", "")) <= 255
    leaves = list(strings(message.blocks))  # walked once, for the budget and the checks below
    assert sum(slack_len(s) for k, s in leaves if k != "type") <= BUDGET
    for obj in text_objects(message.blocks):
        assert obj["text"].strip()
        assert obj["type"] == "plain_text" or obj["verbatim"] is True
        assert "parse" not in obj
    for text in (message.text, *(s for _, s in leaves)):
        assert not any(f in text for f in FORBIDDEN), text
        assert "<" not in text, text  # the renderer creates no mention or link of its own.
        # isprintable() (C speed) is False for every Cc, Cf and Cs character.
        if not text.replace("\n", "").isprintable():
            assert not category_class(DROPPED, but="\n").search(text), text


def left_out(messages: list[SlackMessage]) -> int:
    """The count the last message gives of lines left out (0 when none were)."""
    last = messages[-1].blocks[-1]
    if last["type"] != "context" or not (m := LEFT_OUT.match(last["elements"][0]["text"])):
        return 0
    return int(m.group(1))


def evidence_coverage(messages: list[SlackMessage], total: int) -> tuple[int, int]:
    """(Evidence lines carried, evidence lines said to be left out).

    Checks the ranges are contiguous and every line is either carried or counted.
    """
    in_thread = left = 0
    for block in messages[0].blocks:
        if block["type"] == "context" and (m := MORE.match(block["elements"][0]["text"])):
            if m["how"] == " in the thread":
                in_thread = int(m[1])
            elif m["thread"] is not None:
                in_thread, left = int(m["thread"]), int(m["left"])
            else:
                left = int(m[1])
            assert in_thread + left == int(m[1])
    shown = total - in_thread - left
    for message in messages[1:]:
        first_line = message.text.split("\n")[0]
        assert message.blocks[0]["text"]["text"] == first_line
        for part in first_line.rsplit(" — ", 1)[1].split("; "):
            if m := RANGE.match(part):
                start, end, of = map(int, m.groups())
                assert (start, of) == (shown + 1, total)
                shown = end
    assert shown + left == total
    return shown, left
