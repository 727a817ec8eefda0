"""Makes untrusted text inert in Adaptive Card markdown, and measures Bot Framework activities.

Teams reads a TextBlock's and a Fact's text as a markdown subset (bold, italics, lists, links;
Microsoft's "Format cards in Teams" page) and its clients disagree on the rest: no escape
sequence works everywhere (backslashes and HTML entities show literally on some clients), so
every character that could format, link or tag is replaced by a look-alike, one table of
them (`MARKDOWN_STAND_INS`), the way Slack's renderer neutralises mrkdwn. A `<` can then
never open an `<at>` mention, a tag or an autolink, `[x](y)` never links, and `scheme://`
never autolinks. Invisible and control characters go first (`bot.render.clean`, shared).
The bot's own code spans are the exception: a TextBlock would show `*` and `~` in a command as
look-alikes that do not run once copied, so `code_runs` cuts a text into runs for a
RichTextBlock, whose TextRuns Teams reads as no markdown ("Markdown is not supported", the
Adaptive Cards schema): each code span's run is shown as written, in monospace.

Size: reference/slack-and-teams.md §10.3 gives Teams' bot message limit as ~100 KB of
UTF-16 (≤80 KB recommended; older copies of the page said 40 KB) and ~28 KB on connector-
style surfaces. Every activity stays under `ACTIVITY_MAX_BYTES`, 28,000 bytes of UTF-16-encoded
JSON, which meets all of those figures.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from bot.render import code_spans
from bot.render.clean import ELLIPSIS, clean, one_line, truncate, utf16_len
from diagnosis import Prefilter

__all__ = [
    "ACTIVITY_MAX_BYTES",
    "MARKDOWN_STAND_INS",
    "Run",
    "code_runs",
    "json_bytes",
    "neutralise",
    "plain",
    "safe",
    "verbatim",
]

ACTIVITY_MAX_BYTES = 28_000

_Sub = str | Callable[[re.Match[str]], str]
_LINE_START = r"(?m)^([ \u00a0]*)"
#: A list or heading mark at a line's start, and its look-alike.
_LINE_MARKS = {"-": "\u2010", "+": "\uff0b", "=": "\uff1d", ".": "\u2024", ")": "\uff09"}


def _line_mark(match: re.Match[str]) -> str:
    """The indentation, any digits, then the look-alike of the mark (the last group)."""
    *kept, mark = match.groups()
    return "".join(kept) + _LINE_MARKS[mark]


#: (what could take effect, its look-alike), applied in this order to cleaned text.
MARKDOWN_STAND_INS: tuple[tuple[str, _Sub], ...] = (
    ("<", "\u2039"),  # single angle quote: no tag, `<at>` mention or `<https://...>` autolink.
    (">", "\u203a"),  # nor a closing one, nor a quote.
    (r"&(?=#?[0-9A-Za-z]+;)", "\uff06"),  # fullwidth: no `&lt;` entity decodes into a `<`.
    (r"\*", "\u2217"),  # asterisk operator: no bold or italics, even inside a word.
    (r"(?<![^\W_])_|_(?![^\W_])", "\u02cd"),  # no italics; `snake_case` is left alone.
    ("~", "\u223c"),  # tilde operator: no strikethrough.
    (r"\](?=\s*[(\[:])", "\uff3d"),  # fullwidth: no `[x](y)` link, `[x][y]` or `[x]: url`.
    ("://", ":\u2215\u2215"),  # division slashes: no bare `https://...` autolink.
    (r"(?i)\b(www)\.", "\\1\u2024"),  # one dot leader: nor `www....`.
    (r"(?i)\b(mailto):", "\\1\ua789"),  # modifier letter colon: nor `mailto:`.
    ("\\|", "\u2223"),  # divides: no table.
    (_LINE_START + "#", "\\1\uff03"),  # fullwidth: no heading.
    (_LINE_START + "([-+=])", _line_mark),  # no list, thematic break or setext heading.
    (_LINE_START + r"([0-9]{1,9})([.)])", _line_mark),  # no numbered list.
    (r"(?m)^[ \u00a0]+", lambda m: "\u00a0" * len(m.group())),  # indentation kept, no code.
)
#: The rules (each with whether it works at line starts) behind their literal pre-checks. A
#: rule that cannot match the text given cannot match at its turn either: a replacement keeps
#: the ASCII characters it does not replace, in order, and adds only non-ASCII ones (none that
#: `re` folds onto ASCII), so it makes no run of ASCII characters that was not there.
_RULES = Prefilter(
    [
        ((new, pattern.startswith("(?m)^")), re.compile(pattern))
        for pattern, new in MARKDOWN_STAND_INS
    ]
)
#: What a line-start rule's match begins with, at a line's start. No rule puts one there (the
#: only replacement among them, a no-break space, is made by the last rule) or adds a line.
_LINE_MARK_FIRST = frozenset(" \u00a0#-+=0123456789")
_LINE_MARK_AFTER_NEWLINE = re.compile("\n[" + re.escape("".join(sorted(_LINE_MARK_FIRST))) + "]")
_BACKTICK_STAND_IN = "\u02cb"  # modifier letter grave accent


def neutralise(text: str, *, keep_code: bool = False, marks: str = "_") -> str:
    """Cleaned `text` with every markdown, tag and link mark replaced by its look-alike.

    Backticks too, unless `keep_code` (the bot's own code spans in a text message): then
    backtick pairs stay, and inside them each of `marks` that can open nothing
    (`bot.render.code_spans`; every rule replaces characters one for one). A TextBlock shows
    a code span as plain text, where `*` and `~` could format: only `_` is given by default.
    Each rule of `MARKDOWN_STAND_INS` in turn, skipping those that cannot match (`_RULES`).
    """
    original = text
    line_marks = text[:1] in _LINE_MARK_FIRST or _LINE_MARK_AFTER_NEWLINE.search(text) is not None
    for (new, at_line_start), pattern in _RULES.candidates(text):
        if line_marks or not at_line_start:
            text = pattern.sub(new, text)
    if keep_code:
        return code_spans.restore(original, text, _BACKTICK_STAND_IN, marks=marks)
    return text.replace("`", _BACKTICK_STAND_IN)


def safe(
    text: str,
    limit: int,
    *,
    single_line: bool = False,
    keep_code: bool = False,
    marks: str = "_",
) -> str:
    """Untrusted text made inert for a TextBlock or Fact, stripped, within `limit` characters.

    Lines become paragraphs (a blank line between them), since Teams joins single newlines;
    `limit` counts the text as written, before that doubling. `keep_code` and `marks` are
    `neutralise`'s.
    """
    cleaned = clean(text).strip()
    joined = one_line(cleaned) if single_line else cleaned
    cut = truncate(neutralise(joined, keep_code=keep_code, marks=marks), limit)
    return cut.replace("\n", "\n\n")


#: A run of a RichTextBlock: its text and whether it is one of the bot's code spans.
Run = tuple[str, bool]


def code_runs(text: str, limit: int) -> list[Run]:
    """Untrusted text cut at its code spans into runs within `limit` units; [] without any.

    Each code span (`code_spans.pairs`) is a run of its content as written, cleaned: TextRuns
    read no markdown, so a command copies exactly. The text around the spans is neutralised
    as in a TextBlock (backticks in no pair included), in case a client reads markdown there.
    """
    cleaned = clean(text).strip()
    spans = list(code_spans.pairs(cleaned))
    if not spans:
        return []
    neutral = neutralise(cleaned)  # one for one: positions match `cleaned`
    runs: list[Run] = []
    done = 0
    for start, end in spans:
        runs += [(neutral[done:start], False), (cleaned[start + 1 : end - 1], True)]
        done = end
    runs.append((neutral[done:], False))
    return _within([r for r in runs if r[0]], limit)


def _within(runs: list[Run], limit: int) -> list[Run]:
    """`runs` within `limit` units together: when cut, the run cut (or the next) ends in "…"."""
    flat = "".join(text for text, _ in runs)
    if utf16_len(flat) <= limit:
        return runs
    head = truncate(flat, limit).removesuffix(ELLIPSIS)  # a start of `flat`
    kept: list[Run] = []
    done = 0
    for text, code in runs:
        if done + len(text) > len(head):
            return [*kept, (head[done:] + ELLIPSIS, code)]
        kept.append((text, code))
        done += len(text)
    return kept  # pragma: no cover - `head` is shorter than `flat`


def verbatim(text: str, limit: int) -> str:
    """The bot's own command for a TextRun: cleaned, on one line, within `limit` units.

    A TextRun reads no markdown, so nothing else is replaced: it copies as written.
    """
    return truncate(one_line(clean(text)), limit)


def plain(text: str, limit: int) -> str:
    """Untrusted text for a plain-text property (an action's title, an image's alt text)."""
    return truncate(one_line(neutralise(clean(text))), limit)


def json_bytes(node: Any) -> int:
    """The size of `node` as compact JSON, encoded as UTF-16 (how Teams counts a message)."""
    text = json.dumps(node, ensure_ascii=False, separators=(",", ":"))
    return len(text.encode("utf-16-le", "surrogatepass"))
