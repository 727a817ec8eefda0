"""Makes untrusted text safe for Slack mrkdwn, and measures, truncates and packs it.

Owns the jobs every Slack renderer needs for upstream text: remove invisible and control
characters, escape Slack's only control characters (`&`, `<`, `>`) so no mention or link
can be formed, cut text to a length without breaking an escape, and pack lines into
`verbatim` mrkdwn sections within a character and block budget.
Lengths are counted in UTF-16 code units, which is never less than Python's `len` and is
what Slack's own limits are most likely counted in.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata
from collections.abc import Sequence
from typing import Any

__all__ = [
    "ELLIPSIS",
    "SECTION_MAX",
    "Block",
    "block_chars",
    "clean",
    "code",
    "context",
    "escape",
    "mrkdwn",
    "one_line",
    "pack_lines",
    "safe",
    "section",
    "slack_len",
    "truncate",
]

Block = dict[str, Any]

ELLIPSIS = "…"
SECTION_MAX = 3_000

ELLIPSIS = "…"

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


def slack_len(text: str) -> int:
    """Length in UTF-16 code units (characters outside the BMP count twice)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


@functools.cache
def _unsafe() -> re.Pattern[str]:
    """A character class of every character in `_DROP_CATEGORIES` except newline.

    Built from the running Python's Unicode database on first use (a scan of every code point,
    ~0.2 s), since ordinary text never needs it; matching a class of ranges runs at C speed.
    """
    points = [
        cp
        for cp in range(sys.maxunicode + 1)
        if cp != ord("\n") and unicodedata.category(chr(cp)) in _DROP_CATEGORIES
    ]
    spans: list[list[int]] = []
    for cp in points:
        if spans and spans[-1][1] == cp - 1:
            spans[-1][1] = cp
        else:
            spans.append([cp, cp])
    return re.compile("[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in spans) + "]")


def clean(text: str) -> str:
    """Drop control, zero-width, bidi and other format characters; keep newlines."""
    for old, new in _NORMALISE:
        text = text.replace(old, new)
    if text.replace("\n", "").isprintable():  # the common case, checked at C speed
        return text
    return _unsafe().sub("", text)


def escape(text: str) -> str:
    """Clean `text`, then escape `&`, `<` and `>` (and nothing else) for Slack."""
    return clean(text).translate(_ESCAPES)


def one_line(text: str) -> str:
    """Join lines with spaces, for places that must stay on one line (headers, fields)."""
    return " ".join(part.strip() for part in text.split("\n") if part.strip())


def truncate(text: str, limit: int) -> str:
    """Cut already-escaped `text` to at most `limit` units, ending in "…" when cut.

    Never splits an escape sequence such as `&amp;` or a surrogate pair.
    """
    if slack_len(text) <= limit:
        return text
    room = limit - len(ELLIPSIS)
    used = 0
    cut = 0
    for ch in text:
        width = 2 if ord(ch) > _BMP_MAX else 1
        if used + width > room:
            break
        used += width
        cut += 1
    head = text[:cut]
    amp = head.rfind("&", max(0, cut - _LONGEST_ESCAPE + 1))
    if amp != -1 and ";" not in head[amp:]:
        head = head[:amp]
    return head + ELLIPSIS


def safe(text: str, limit: int, *, single_line: bool = False) -> str:
    """Untrusted text made safe for mrkdwn or plain_text, stripped, within `limit` units."""
    escaped = escape(text).strip()
    return truncate(one_line(escaped) if single_line else escaped, limit)


def code(text: str, limit: int) -> str:
    """Untrusted text as one inline code span within `limit` units (backticks neutralised)."""
    inner = one_line(escape(text)).replace("`", _BACKTICK_STAND_IN) or "?"
    return f"`{truncate(inner, limit - 2)}`"


def mrkdwn(text: str) -> Block:
    """A mrkdwn text object that Slack shows as written (no auto-linking or mentions)."""
    return {"type": "mrkdwn", "text": text or ELLIPSIS, "verbatim": True}


def section(text: str) -> Block:
    """A section block with one verbatim mrkdwn text."""
    return {"type": "section", "text": mrkdwn(text)}


def context(texts: Sequence[str]) -> Block:
    """A context block with one verbatim mrkdwn element per text."""
    return {"type": "context", "elements": [mrkdwn(t) for t in texts]}


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
