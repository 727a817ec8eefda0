"""Makes untrusted text safe for Slack mrkdwn, and measures and packs it into blocks.

Owns the jobs every Slack renderer needs for upstream text, after `bot.render.clean` has
removed invisible and control characters: escape Slack's only control characters (`&`, `<`,
`>`) so no mention or link can be formed, keep mrkdwn's formatting marks (`*bold*`, `_x_`,
`~x~`, backticks, a leading `>`) from taking effect, cut text to a length without breaking an
escape, and pack lines into `verbatim` mrkdwn sections within a character and block budget.
Blocks are built with `slack_sdk.models.blocks`, whose classes carry Slack's limits and
validate every block. Lengths are counted in UTF-16 code units, which is never less than
Python's `len` and is what Slack's own limits are most likely counted in.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from slack_sdk.models.blocks import (
    ContextBlock,
    MarkdownTextObject,
    SectionBlock,
)

from bot.render import code_spans
from bot.render.clean import ELLIPSIS, LONGEST_ENTITY, clean, one_line, truncate
from bot.render.clean import utf16_len as slack_len
from bot.render.wording import fit_label

__all__ = [
    "SECTION_MAX",
    "Block",
    "block_chars",
    "code",
    "context",
    "escape",
    "fields_section",
    "mrkdwn",
    "neutralise",
    "pack_lines",
    "pre",
    "safe",
    "safe_label",
    "section",
    "slack_len",
]

Block = dict[str, Any]

SECTION_MAX: int = SectionBlock.text_max_length

_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
# Shown in place of a backtick inside an inline code span (MODIFIER LETTER GRAVE ACCENT).
_BACKTICK_STAND_IN = "\u02cb"
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


def escape(text: str) -> str:
    """Clean `text`, then escape `&`, `<` and `>` (and nothing else) for Slack."""
    return _escaped(clean(text))


def _escaped(text: str) -> str:
    """`text.translate(_ESCAPES)`, by three replacements (`&` first), ~15 times faster.

    `str.translate` looks every character up in a dict when it maps one to several.
    """
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def neutralise(text: str, *, keep_code: bool = False) -> str:
    """Keep mrkdwn's marks in (unescaped) `text` literal, with look-alike characters.

    Emphasis marks that could format, every backtick, and a `>` that would start a quote.
    With `keep_code` (the engine's own code spans in recommendations), backtick pairs stay,
    and inside them the marks that can open nothing (`bot.render.code_spans`).
    """
    original = text
    for mark, pattern, new in _MARKS:
        if mark in text:
            text = pattern.sub(new, text)
    if ">" in text:
        text = _QUOTE_AT_LINE_START.sub("\\1\u203a", text)
    if keep_code:
        return code_spans.restore(original, text, _BACKTICK_STAND_IN)
    return text.replace("`", _BACKTICK_STAND_IN)


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

    return _cut(render, text, limit, code_spans.PAIR_MAX + 2 if keep_code and not plain else 0)


def safe_label(label: str, limit: int, *, plain: bool = True) -> str:
    """A label on one line within `limit` units: a candidate's name is cut, never its facts.

    Fitted as Slack is sent it (`fit_label` with the escaped count), then made `safe`.
    """
    return safe(fit_label(label, limit, escaped=True), limit, single_line=True, plain=plain)


def _cut(render: Callable[[str], str], text: str, limit: int, ahead: int = 0) -> str:
    """`truncate(render(text), limit)`, rendering only as much of a long `text` as that shows.

    The work is bounded by `limit`, not by the size of untrusted input (a multi-megabyte log
    line costs what a short one does). Sound for every `render` here: each character's output
    depends on it, its neighbours and at most `ahead` characters after it (whether a backtick
    pair closes, `code_spans`), so cutting the input only strips or changes the output in its
    last `ahead + 1` characters, each expanding to at most `LONGEST_ENTITY`. So when the head
    of the input renders to more than `limit` characters plus that much, the whole input
    renders to the same first `limit` units, and `truncate` reads nothing past those.
    """
    reserve = LONGEST_ENTITY * ahead
    if len(text) > (head := 2 * max(limit, 0) + _HEAD_SLACK + reserve):
        rendered = render(text[:head])
        if len(rendered) > limit + LONGEST_ENTITY + reserve:
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
