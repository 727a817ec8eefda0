"""`clean()` removes exactly the control, format and surrogate characters, and keeps the rest."""

from __future__ import annotations

import itertools
import sys
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.render.clean import clean, escaped_len, middle_cut, utf16_len

DROPPED = {"Cc", "Cf", "Cs"}


def by_definition(text: str) -> str:
    """What clean() promises, one character at a time."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
    text = text.replace("\u2028", "\n").replace("\u2029", "\n")
    return "".join(c for c in text if c == "\n" or unicodedata.category(c) not in DROPPED)


# No deadline: the first text with a character to drop builds `clean`'s tables (~0.2 s, once).
@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec=None, exclude_categories=())))
def test_clean_is_its_definition(text: str) -> None:
    assert clean(text) == by_definition(text)


def test_clean_keeps_or_drops_every_code_point_as_defined() -> None:
    every = "".join(map(chr, range(sys.maxunicode + 1)))  # those beyond the BMP too (~0.2 s)
    assert clean(every) == by_definition(every)
    beyond = every[0x10000:]
    categories = map(unicodedata.category, beyond)  # in C: no Python loop over 1M characters
    for char in itertools.compress(beyond, map(DROPPED.__contains__, categories)):
        assert clean(f"a{char}b") == "ab", hex(ord(char))  # with no other to drop


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain log line", "plain log line"),
        ("two\nlines", "two\nlines"),
        ("tab\there", "tab here"),
        ("crlf\r\nline", "crlf\nline"),
        ("zero\u200bwidth\nnext", "zerowidth\nnext"),
        ("bidi \u202eevil\u202c", "bidi evil"),
        ("nul\x00bell\x07", "nulbell"),
        ("tag \U000e0041\U000e007f chars", "tag  chars"),
        ("soft\u00adhyphen", "softhyphen"),
        ("line\u2028sep", "line\nsep"),
        ("nbsp\u00a0kept", "nbsp\u00a0kept"),
        ("emoji 🚀 kept", "emoji 🚀 kept"),
    ],
    ids=lambda v: v if isinstance(v, str) and v.isascii() and v.isprintable() else None,
)
def test_clean_table(text: str, expected: str) -> None:
    assert clean(text) == expected


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("short", 5, "short"),
        ("abcdefgh", 7, "abc…fgh"),
        ("abcdefgh", 6, "abc…gh"),
        ("🚀🚀🚀🚀", 8, "🚀🚀🚀🚀"),
        ("🚀🚀🚀🚀", 7, "🚀…🚀"),  # an odd unit on each side is left unused
        ("🚀🚀🚀🚀", 6, "🚀…🚀"),
        ("a🚀🚀🚀b", 6, "a🚀…b"),
        ("🚀🚀🚀🚀", 4, "🚀…"),  # the tail's one unit cannot hold a pair: it stays empty
    ],
)
def test_middle_cut_keeps_both_ends_within_utf16_units(text, limit, expected) -> None:
    assert middle_cut(text, limit) == expected


@given(st.text(), st.integers(3, 80))
def test_middle_cut_fits_and_keeps_the_ends(text: str, limit: int) -> None:
    cut = middle_cut(text, limit)
    assert utf16_len(cut) <= limit
    if cut != text:  # a start of the text, "…", an end of it
        splits = [i for i, c in enumerate(cut) if c == "…"]
        assert any(text.startswith(cut[:i]) and text.endswith(cut[i + 1 :]) for i in splits)


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("r&d-team", 12, "r&d-team"),  # `r&amp;d-team`: 12 units as sent
        ("r&d-team", 11, "r…-team"),  # `&amp;` (5) does not fit the 4 units left of "…"
        ("<<<<>>>>", 10, "<…>"),  # each angle is 4 units as sent (`&lt;`)
        ("a&&&&&&b", 8, "a…b"),  # no room for a whole `&amp;` on either side
    ],
)
def test_middle_cut_counts_what_slack_is_sent_when_escaped(text, limit, expected) -> None:
    assert middle_cut(text, limit, escaped=True) == expected
    assert escaped_len(expected) <= limit


@given(st.text(alphabet=st.sampled_from("ab&<>🚀")), st.integers(3, 80))
def test_an_escaped_middle_cut_fits_once_escaped_and_wastes_less_than_an_entity(
    text: str, limit: int
) -> None:
    cut = middle_cut(text, limit, escaped=True)
    sent = cut.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    assert utf16_len(sent) == escaped_len(cut) <= limit
    if cut != text:
        head, tail = cut.split("…")
        assert text.startswith(head)
        assert text.endswith(tail)
        room = limit - 1
        assert escaped_len(head + tail) > room - 2 * 5  # each side misses < one widest char
