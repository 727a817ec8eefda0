"""Makes untrusted text safe for Slack mrkdwn, and measures, truncates and packs it.

Owns the jobs every Slack renderer needs for upstream text: remove invisible and control
characters, escape Slack's only control characters (`&`, `<`, `>`) so no mention or link
can be formed, keep mrkdwn's formatting marks (`*bold*`, `_x_`, `~x~`, backticks, a leading
`>`) from taking effect, cut text to a length without breaking an escape, and pack lines into
`verbatim` mrkdwn sections within a character and block budget. Blocks are built with
`slack_sdk.models.blocks`, whose classes carry Slack's limits and validate every block.
Lengths are counted in UTF-16 code units, which is never less than Python's `len` and is
what Slack's own limits are most likely counted in.
"""

from __future__ import annotations

import functools
import itertools
import re
import sys
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

from slack_sdk.models.blocks import (
    ContextBlock,
    MarkdownTextObject,
    SectionBlock,
)

__all__ = [
    "ELLIPSIS",
    "SECTION_MAX",
    "Block",
    "block_chars",
    "clean",
    "code",
    "context",
    "escape",
    "fields_section",
    "mrkdwn",
    "neutralise",
    "one_line",
    "pack_lines",
    "pre",
    "safe",
    "section",
    "slack_len",
    "truncate",
]

Block = dict[str, Any]

ELLIPSIS = "…"
SECTION_MAX: int = SectionBlock.text_max_length

# Categories removed outright: control (Cc), format (Cf: zero-width, bidi overrides,
# invisible tag characters, soft hyphen) and lone surrogates (Cs, not encodable).
_DROP_CATEGORIES = frozenset({"Cc", "Cf", "Cs"})
# Characters normalised before dropping, so line structure and spacing survive (in this order).
_NORMALISE = (("\r\n", "\n"), ("\r", "\n"), ("\t", " "), ("\u2028", "\n"), ("\u2029", "\n"))
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
# Shown in place of a backtick inside an inline code span (MODIFIER LETTER GRAVE ACCENT).
_BACKTICK_STAND_IN = "\u02cb"
# Longest escape sequence is "&amp;": an unfinished one starts within the last 4 characters.
_LONGEST_ESCAPE = len("&amp;")
_BMP_MAX = 0xFFFF
# Input characters beyond twice the limit rendered first (`_cut`), plus this many.
_HEAD_SLACK = 64
# mrkdwn's emphasis marks, shown as look-alikes where they could open or close formatting
# (next to anything but a letter or digit on either side); `snake_case` is left alone.
_MARK_STAND_INS = {"*": "\u2217", "_": "\u02cd", "~": "\u223c"}
# One pattern per mark, a literal first (found at C speed): not after, or not before, a letter
# or digit. Applied one after another, `_` last: the other look-alikes are no letters, like
# the marks they replace, so each pattern sees the neighbours all of them would see at once.
_MARKS = tuple(
    (mark, re.compile(rf"{re.escape(mark)}(?:(?<![^\W_]{re.escape(mark)})|(?![^\W_]))"), new)
    for mark, new in sorted(_MARK_STAND_INS.items(), key=lambda item: item[0] == "_")
)
# Blank lines before the `>` are the next lines' starts, not this one's indentation: `\s*`
# here read a run of newlines again from each of them (quadratic in the run).
_QUOTE_AT_LINE_START = re.compile(r"^([^\S\n]*+)>", re.MULTILINE)


def slack_len(text: str) -> int:
    """Length in UTF-16 code units (characters outside the BMP count twice)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


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


def escape(text: str) -> str:
    """Clean `text`, then escape `&`, `<` and `>` (and nothing else) for Slack."""
    return _escaped(clean(text))


def _escaped(text: str) -> str:
    """`text.translate(_ESCAPES)`, by three replacements (`&` first), ~15 times faster.

    `str.translate` looks every character up in a dict when it maps one to several.
    """
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def one_line(text: str) -> str:
    """Join lines with spaces, for places that must stay on one line (headers, fields)."""
    return " ".join(part.strip() for part in text.split("\n") if part.strip())


def truncate(text: str, limit: int) -> str:
    """Cut already-escaped `text` to at most `limit` units, ending in "…" when cut.

    Never splits an escape sequence such as `&amp;` or a surrogate pair.
    """
    if len(text) <= limit and slack_len(text) <= limit:  # a longer text has more units
        return text
    room = max(limit - len(ELLIPSIS), 0)
    head = text[:room]
    if slack_len(head) > room:  # a character outside the BMP: fewer characters fit
        head = text[: _fitting(text, room)]
    cut = len(head)
    amp = head.rfind("&", max(0, cut - _LONGEST_ESCAPE + 1))
    if amp != -1 and ";" not in head[amp:]:
        head = head[:amp]
    return head + ELLIPSIS


def _fitting(text: str, room: int) -> int:
    """How many leading characters of `text` take at most `room` units (slices, at C speed)."""
    cut = 0
    while room > 1 and cut < len(text):  # the next room // 2 characters fit, whatever they are
        part = text[cut : cut + room // 2]
        cut, room = cut + len(part), room - slack_len(part)
    if room == 1 and cut < len(text) and ord(text[cut]) <= _BMP_MAX:
        cut += 1
    return cut


def neutralise(text: str, *, keep_code: bool = False) -> str:
    """Keep mrkdwn's marks in (unescaped) `text` literal, with look-alike characters.

    Emphasis marks that could format, every backtick (unless `keep_code`: the engine's own
    code spans in recommendations), and a `>` that would start a quote.
    """
    for mark, pattern, new in _MARKS:
        if mark in text:
            text = pattern.sub(new, text)
    if ">" in text:
        text = _QUOTE_AT_LINE_START.sub("\\1\u203a", text)
    return text if keep_code else text.replace("`", _BACKTICK_STAND_IN)


def safe(
    text: str,
    limit: int,
    *,
    single_line: bool = False,
    plain: bool = False,
    keep_code: bool = False,
) -> str:
    """Untrusted text made safe for mrkdwn (or `plain` text), stripped, within `limit` units.

    In mrkdwn, formatting marks are also neutralised (`neutralise`).
    """

    def render(text: str) -> str:
        cleaned = clean(text)
        marked = cleaned if plain else neutralise(cleaned, keep_code=keep_code)
        escaped = _escaped(marked).strip()
        return one_line(escaped) if single_line else escaped

    return _cut(render, text, limit)


def _cut(render: Callable[[str], str], text: str, limit: int) -> str:
    """`truncate(render(text), limit)`, rendering only as much of a long `text` as that shows.

    The work is bounded by `limit`, not by the size of untrusted input (a multi-megabyte log
    line costs what a short one does). Sound for every `render` here: each character's output
    depends on it and its neighbours, and cutting the input only strips or changes the output
    at the cut, in at most the expansion of its last character (`_LONGEST_ESCAPE`). So when
    the head of the input renders to more than `limit + _LONGEST_ESCAPE` characters, the whole
    input renders to the same first `limit` units, and `truncate` reads nothing past those.
    """
    if len(text) > (head := 2 * max(limit, 0) + _HEAD_SLACK):
        rendered = render(text[:head])
        if len(rendered) > limit + _LONGEST_ESCAPE:
            return truncate(rendered, limit)
    return truncate(render(text), limit)


def pre(text: str, limit: int) -> str:
    """Untrusted text (a log line) as a preformatted block: shown as is, nothing formats."""
    inner = _cut(
        lambda t: escape(t).strip("\n").replace("`", _BACKTICK_STAND_IN) or " ", text, limit - 6
    )
    return f"```{inner}```"


def code(text: str, limit: int) -> str:
    """Untrusted text as one inline code span within `limit` units (backticks neutralised)."""
    inner = _cut(
        lambda t: one_line(escape(t)).replace("`", _BACKTICK_STAND_IN) or "?", text, limit - 2
    )
    return f"`{inner}`"


def _text(text: str) -> MarkdownTextObject:
    return MarkdownTextObject(text=text or ELLIPSIS, verbatim=True)


def mrkdwn(text: str) -> Block:
    """A mrkdwn text object that Slack shows as written (no auto-linking or mentions)."""
    return _text(text).to_dict()


def section(text: str, *, block_id: str | None = None) -> Block:
    """A section block with one verbatim mrkdwn text (validated by slack_sdk)."""
    return SectionBlock(text=_text(text), block_id=block_id).to_dict()


def fields_section(texts: Sequence[str]) -> Block:
    """A section block of verbatim mrkdwn fields (at most 10, validated by slack_sdk)."""
    return SectionBlock(fields=[_text(t) for t in texts]).to_dict()


def context(texts: Sequence[str]) -> Block:
    """A context block with one verbatim mrkdwn element per text (validated by slack_sdk)."""
    return ContextBlock(elements=[_text(t) for t in texts]).to_dict()


def block_chars(*blocks: Block) -> int:
    """Characters blocks count against a message budget: every string except `type`."""

    def walk(node: object, key: str) -> int:
        if isinstance(node, str):
            return 0 if key == "type" else slack_len(node)
        if isinstance(node, dict):
            return sum(walk(v, k) for k, v in node.items())
        if isinstance(node, list):
            return sum(walk(v, key) for v in node)
        return 0

    return sum(walk(b, "") for b in blocks)


def pack_lines(
    title: str, lines: Sequence[str], chars: int, blocks: int
) -> tuple[int, list[Block]]:
    """As many leading `lines` as fit, `title` first, in sections within `chars` and `blocks`.

    Each line must be shorter than a section; returns how many lines were packed.
    """
    texts: list[str] = []
    used = count = 0
    for line in lines:
        joined = f"{texts[-1]}\n{line}" if texts else ""
        if texts and slack_len(joined) <= SECTION_MAX:
            extra, grown = 1 + slack_len(line), [*texts[:-1], joined]
        else:
            first = f"{title}\n{line}" if not texts else line
            extra, grown = slack_len(first), [*texts, first]
        if used + extra > chars or len(grown) > blocks:
            break
        texts, used, count = grown, used + extra, count + 1
    return count, [section(t) for t in texts]
