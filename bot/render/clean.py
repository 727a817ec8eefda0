"""Untrusted text made harmless to show anywhere: invisible characters go, lengths in UTF-16.

One list of what is unsafe, for every front end and the console: control characters (terminal
escape sequences), zero-width, bidirectional and other invisible format characters are
removed, so a log line cannot rewrite a screen or hide text from its reader. Lengths are
counted in UTF-16 code units, as Slack and Teams count them, and `truncate` cuts within
such a length without splitting a surrogate pair or an entity such as `&amp;`. Text sized
before Slack escapes it is measured as sent (`escaped_len`), entities included.
"""

from __future__ import annotations

import functools
import itertools
import re
import sys
import unicodedata
from collections.abc import Sequence

__all__ = [
    "ELLIPSIS",
    "LONGEST_ENTITY",
    "clean",
    "escaped_len",
    "middle_cut",
    "one_line",
    "truncate",
    "utf16_len",
]

ELLIPSIS = "…"
# Categories removed outright: control (Cc), format (Cf: zero-width, bidi overrides,
# invisible tag characters, soft hyphen) and lone surrogates (Cs, not encodable).
_DROP_CATEGORIES = frozenset({"Cc", "Cf", "Cs"})
# Characters normalised before dropping, so line structure and spacing survive (in this order).
_NORMALISE = (("\r\n", "\n"), ("\r", "\n"), ("\t", " "), ("\u2028", "\n"), ("\u2029", "\n"))
# Longest entity is "&amp;": an unfinished one starts within the last 4 characters.
LONGEST_ENTITY = len("&amp;")
_BMP_MAX = 0xFFFF


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units (characters outside the BMP count twice)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def escaped_len(text: str) -> int:
    """`utf16_len` of `text` once `&`, `<` and `>` are sent as `&amp;`, `&lt;` and `&gt;`.

    What a Slack limit counts of text that is escaped after it is sized: a name sized for a
    button by its own length would lose its end to the entities (`bot.slack.render.mrkdwn`).
    """
    entities = 4 * text.count("&") + 3 * (text.count("<") + text.count(">"))
    return utf16_len(text) + entities


#: The most units one character can take in `escaped_len` (`&` as `&amp;`), and in UTF-16.
_WIDEST_ESCAPED, _WIDEST = LONGEST_ENTITY, 2


def _class(spans: Sequence[tuple[int, int]]) -> re.Pattern[str]:
    """A character class of the code point `spans` (first, last); never matches when empty."""
    return re.compile(
        "[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in spans) + "]" if spans else "(?!)"
    )


@functools.cache
def _unsafe() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The characters in `_DROP_CATEGORIES` but newline: in the BMP, their planes, beyond it.

    Three character classes; the middle one spans, for each plane beyond the BMP, its first
    to its last such character. Built from the running Python's Unicode database on first use
    (a scan of every code point, ~0.2 s), since ordinary text never needs it; matching a class
    of ranges runs at C speed. `re` looks a class's BMP characters up in one table but tries
    its other ranges one by one, so the few beyond the BMP (in planes 1 and 14) are sought
    only in a text with a character in those spans: about 5 instead of 14 ns per character
    of a text with characters beyond the BMP (most of what Hypothesis writes).
    """
    every = range(sys.maxunicode + 1)
    # All in C (no Python-level loop over the code points, so no tracer sees 1.1M iterations).
    dropped = map(_DROP_CATEGORIES.__contains__, map(unicodedata.category, map(chr, every)))
    spans: list[tuple[int, int]] = []
    for cp in itertools.compress(every, dropped):
        if cp == ord("\n"):
            continue
        if spans and spans[-1][1] == cp - 1:
            spans[-1] = (spans[-1][0], cp)
        else:
            spans.append((cp, cp))
    bmp = [(a, b) for a, b in spans if b <= _BMP_MAX]
    beyond = [(a, b) for a, b in spans if b > _BMP_MAX]
    planes = [
        (group[0][0], group[-1][1])
        for group in (list(g) for _, g in itertools.groupby(beyond, key=lambda s: s[0] >> 16))
    ]
    return _class(bmp), _class(planes), _class(beyond)


def clean(text: str) -> str:
    """Drop control, zero-width, bidi and other format characters; keep newlines."""
    for old, new in _NORMALISE:
        text = text.replace(old, new)
    if text.replace("\n", "").isprintable():  # the common case, checked at C speed
        return text
    bmp, planes, beyond = _unsafe()
    text = bmp.sub("", text)
    return beyond.sub("", text) if planes.search(text) else text


def one_line(text: str) -> str:
    """Join lines with spaces, for places that must stay on one line (headers, fields)."""
    return " ".join(part.strip() for part in text.split("\n") if part.strip())


def truncate(text: str, limit: int) -> str:
    """Cut (already escaped) `text` to at most `limit` units, ending in "…" when cut.

    Never splits an escape sequence such as `&amp;` or a surrogate pair.
    """
    if len(text) <= limit and utf16_len(text) <= limit:  # a longer text has more units
        return text
    room = max(limit - len(ELLIPSIS), 0)
    head = text[:room]
    if utf16_len(head) > room:  # a character outside the BMP: fewer characters fit
        head = text[: _fitting(text, room)]
    cut = len(head)
    amp = head.rfind("&", max(0, cut - LONGEST_ENTITY + 1))
    if amp != -1 and ";" not in head[amp:]:
        head = head[:amp]
    return head + ELLIPSIS


def middle_cut(text: str, limit: int, *, escaped: bool = False) -> str:
    """`text`, or its start and end around "…", within `limit` UTF-16 units (at least 2 kept).

    For a name whose end tells it from others as much as its start. Never splits a
    surrogate pair: a half that would not fit whole is left out. With `escaped`, units are
    counted as Slack is sent the text (`escaped_len`), so that it fits once escaped.
    """
    measure = escaped_len if escaped else utf16_len
    if len(text) <= limit and measure(text) <= limit:
        return text
    keep = max(limit - len(ELLIPSIS), 2)
    head = text[: _fitting(text, (keep + 1) // 2, escaped=escaped)]
    tail_size = _fitting(text[len(head) :][::-1], keep // 2, escaped=escaped)
    return f"{head}{ELLIPSIS}{text[len(text) - tail_size :]}"


def _fitting(text: str, room: int, *, escaped: bool = False) -> int:
    """How many leading characters of `text` take at most `room` units (slices, at C speed).

    Units as `utf16_len` counts them, or `escaped_len` when `escaped`.
    """
    measure, widest = (escaped_len, _WIDEST_ESCAPED) if escaped else (utf16_len, _WIDEST)
    cut = 0
    while room >= widest and cut < len(text):  # the next room // widest characters fit
        part = text[cut : cut + room // widest]
        cut, room = cut + len(part), room - measure(part)
    while cut < len(text) and (cost := measure(text[cut])) <= room:  # fewer than `widest` left
        cut, room = cut + 1, room - cost
    return cut
