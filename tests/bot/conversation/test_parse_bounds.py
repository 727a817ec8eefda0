"""The cap on what is parsed: the first 4,096 characters, cut at a word's end, the rest counted."""

from __future__ import annotations

import sys
from dataclasses import replace

import pytest

import bot.conversation.parse
from bot.conversation.parse import parse
from bot.conversation.parse_bounds import MAX_PARSED_CHARS, Bounded, bounded

CAP = MAX_PARSED_CHARS
WORD = "word "  # 5 characters: CAP is not a multiple of it, so the cap falls inside a word

# (text, what is parsed, how many characters are ignored)
TABLE: list[tuple[str, str, int]] = [
    ("", "", 0),
    ("why did train-bert fail", "why did train-bert fail", 0),
    ("x" * CAP, "x" * CAP, 0),  # exactly at the cap: all of it
    ("x" * (CAP - 2) + " y", "x" * (CAP - 2) + " y", 0),
    # the cap falls inside a word: that word is not read, nor anything after it
    ("x" * (CAP - 2) + " yz", "x" * (CAP - 2), 3),
    ("x" * (CAP - 2) + " yz and more", "x" * (CAP - 2), 12),
    # the cap falls on a space: the last word is whole
    ("x" * CAP + " tail", "x" * CAP, 5),
    ("x" * (CAP - 1) + "\ntail", "x" * (CAP - 1), 5),
    # no space at all before the cap: cut at the cap
    ("x" * (CAP + 10), "x" * CAP, 10),
    # only whitespace after the cap: nothing was lost
    ("x" * CAP + " " * 100, "x" * CAP, 0),
    ("x" * (CAP - 2) + " " * 100, "x" * (CAP - 2) + "  ", 0),
]


@pytest.mark.parametrize(
    ("text", "parsed", "ignored"), TABLE, ids=[f"{len(t)}-{i}" for t, _, i in TABLE]
)
def test_what_is_parsed_and_what_is_ignored(text, parsed, ignored):
    assert bounded(text) == Bounded(parsed, ignored)


@pytest.mark.parametrize("length", [0, 1, CAP - 1, CAP, CAP + 1, 3 * CAP, 40_000])
def test_the_parsed_part_is_a_prefix_within_the_cap(length):
    text = (WORD * (length // len(WORD) + 1))[:length]
    result = bounded(text)
    assert len(result.text) <= CAP
    assert text.startswith(result.text)
    assert result.ignored == (0 if length <= CAP else len(text) - len(result.text))


def _spy_on_what_is_parsed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every text the parser itself reads (`_clean` is its first step)."""
    seen: list[int] = []
    clean = bot.conversation.parse._clean

    def spy(text: str, bot_user_id: str | None) -> str:
        seen.append(len(text))
        return clean(text, bot_user_id)

    monkeypatch.setattr(bot.conversation.parse, "_clean", spy)
    return seen


def test_the_40_kb_mention_of_the_incident_is_parsed_only_up_to_the_cap(monkeypatch):
    """The message that froze the bot for 4 s: `show show show …`, 40,000 characters."""
    text = "<@UBOT> " + "show " * 8000
    seen = _spy_on_what_is_parsed(monkeypatch)
    query = parse(text, bot_user_id="UBOT")
    assert seen == [len(bounded(text).text)]
    assert seen[0] <= CAP
    assert query.ignored_chars == len(text) - seen[0] > 35_000


def test_the_answer_depends_only_on_the_parsed_part():
    head = "why did train-bert in nlp fail on cluster prod-a? " + "show " * 1000
    text = head + "and also eval-harness in vision " * 100
    parsed = bounded(text).text
    assert len(parsed) <= CAP < len(head)
    query = parse(text)
    assert query == replace(parse(parsed), ignored_chars=len(text) - len(parsed))
    assert (query.workload_name, query.project, query.cluster) == ("train-bert", "nlp", "prod-a")


def test_a_name_after_the_cap_is_not_read():
    query = parse("hmm " * 1100 + "train-bert in nlp")
    assert query.workload_name is None
    assert query.project is None
    assert query.ignored_chars > 0


def test_a_short_message_is_read_whole():
    assert parse("why did train-bert in nlp fail").ignored_chars == 0


@pytest.mark.parametrize("digits", [5_000, 40_000])
def test_a_huge_character_reference_never_raises(digits):
    """`&#999…;` longer than int()'s digit limit made html.unescape raise ValueError."""
    query = parse("&#" + "9" * digits + "; train-bert")
    assert query.workload_name is None  # the reference is one word, cut at the cap


def test_a_huge_character_reference_never_raises_whatever_the_digit_limit():
    """`PYTHONINTMAXSTRDIGITS` may be as low as 640: a reference is never handed to int()."""
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        query = parse("&#" + "9" * 1000 + "; &#x" + "f" * 700 + " why did train-bert fail")
    finally:
        sys.set_int_max_str_digits(limit)
    assert query.workload_name == "train-bert"
