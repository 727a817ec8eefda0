"""The bot's code spans in text it otherwise neutralises: a command inside them is kept whole.

Recommendations and help put commands in backticks (`docker manifest inspect IMAGE`), and a
command must survive being copied: `nvcr.io/acme/llama__ft:v2_` with look-alikes for its
underscores names no image. Each front end first neutralises the whole text (every
replacement one character for one, so positions still match); `restore` then puts back,
inside each backtick pair, the emphasis marks it is given that cannot open emphasis, and
replaces every backtick that is in no pair by `backtick`, so no code span can form but
those kept. Slack, and Teams' text messages, show code spans as code and are given `*`,
`_` and `~`. A Teams card's TextBlock shows a code span as plain text, so a card never puts
one there: it shows each pair (`pairs`) as a monospace TextRun, which Teams reads as no
markdown at all, so the command in it is shown, and copied, exactly as written.

Safe whatever the text holds, upstream backticks included: a mark is kept only where it can
open nothing, by CommonMark's rules (which Teams' TextBlock follows, and which shows code
spans as plain text) and by Slack's (an emphasis mark after a letter or digit, or before a
space, opens nothing). Emphasis needs an opener, and every mark that could be one, inside a
pair or out, stays a look-alike: a backtick pair an upstream string forms, or a client that
pairs backticks differently, can therefore make nothing bold, italic or struck through. A
pair is a backtick, 1 to `PAIR_MAX` characters that are neither a backtick nor a newline,
and a backtick: leftmost first, one regex pass, so the work is linear in the text. What a
character becomes depends on at most `PAIR_MAX + 2` characters after it (whether the pair
it may open closes), which is what lets a renderer render only the head of a long text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

__all__ = ["MARKS", "PAIR_MAX", "pairs", "restore"]

#: The longest code span kept, in characters between its backticks: longer than any command
#: the engine writes (a `kubectl` line with a 253-character pod name, a 240-character image).
PAIR_MAX = 600
_PAIR = re.compile(rf"`[^`\n]{{1,{PAIR_MAX}}}`")
#: A run of one emphasis mark.
_RUN = re.compile(r"([*_~])\1*")
#: Every emphasis mark `restore` can keep.
MARKS = "*_~"
_ALNUM = re.compile(r"[^\W_]")


def pairs(text: str) -> Iterator[tuple[int, int]]:
    """The (start, end) of each backtick pair in `text`, backticks included, leftmost first."""
    return (pair.span() for pair in _PAIR.finditer(text))


def _punctuation(char: str) -> bool:
    """CommonMark's Unicode punctuation: general category P (punctuation) or S (symbol)."""
    return unicodedata.category(char)[0] in "PS"


def _space(char: str) -> bool:
    """CommonMark's Unicode whitespace: category Zs, tab, line feed, form feed, return."""
    return char in "\t\n\f\r" or unicodedata.category(char) == "Zs"


def _opens_nothing(mark: str, before: str, after: str) -> bool:
    """Whether a run of `mark` between `before` and `after` can open no emphasis.

    Before whitespace no run opens (it is not left-flanking). After a letter or digit: `_`
    never opens (it is right-flanking and not after punctuation), `*` and `~` not before
    punctuation (they are not left-flanking); and Slack opens nothing after a letter or
    digit. Each neighbour is given as it is in the text and as neutralised: the result shows
    one of them, so the rule must hold for both.
    """
    if all(map(_space, after)):
        return True
    if not all(_ALNUM.match(c) for c in before):
        return False
    return mark == "_" or all(map(_punctuation, after))


def restore(original: str, neutralised: str, backtick: str, marks: str = MARKS) -> str:
    """`neutralised` with the code spans of `original` kept, and every other backtick replaced.

    `neutralised` is `original` with some characters replaced one for one (so the same
    length); inside each backtick pair, runs of the emphasis `marks` that open nothing are
    taken from `original`.
    """
    if "`" not in original:
        return neutralised
    if len(neutralised) != len(original):
        raise ValueError("neutralised text must replace characters one for one")
    pieces: list[str] = []
    done = 0
    for start, end in pairs(original):
        pieces.append(neutralised[done:start].replace("`", backtick))
        kept = start
        for run in _RUN.finditer(original, start + 1, end - 1):
            first, last = run.span()
            mark = run.group(1)
            before = original[first - 1] + neutralised[first - 1]
            after = original[last] + neutralised[last]
            if mark in marks and _opens_nothing(mark, before, after):
                pieces += [neutralised[kept:first], run.group()]
                kept = last
        pieces.append(neutralised[kept:end])
        done = end
    pieces.append(neutralised[done:].replace("`", backtick))
    return "".join(pieces)
