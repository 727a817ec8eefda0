"""Platform markup to plain words: Slack mrkdwn, Teams text/HTML, or the console's plain text.

Each front end only names its markup (`Markup`); everything after this step is the same for
every platform. What comes out is the text a person meant (`*prod-a*` is `prod-a`), the links
they gave (target and label kept apart: a label may be a workload name, a target may carry
its UUID), and whether they addressed someone other than the bot. Every pattern here is read
possessively and stops where the next markup could start (`bot.conversation.parse_bounds`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import parse_qs, urlsplit

__all__ = ["FENCE", "OTHER_PERSON", "Link", "Markup", "Plain", "normalise"]

#: What stands in the text where a person other than the bot was mentioned.
OTHER_PERSON = "@someone"
#: The line that opens and closes a code block (pasted output) in the plain text.
FENCE = "```"


class Markup(StrEnum):
    """How a platform writes a message's text."""

    SLACK = "slack"  # mrkdwn: <url|label>, <@U…>, <#C…|name>, *bold*, `code`, &amp;
    TEAMS = "teams"  # plain text with <at>…</at>, sometimes HTML (<a href>, <p>, &nbsp;)
    PLAIN = "plain"  # the console and scripts: what was typed


@dataclass(frozen=True)
class Link:
    """A link in a message: where it points and what it said (None: a bare URL)."""

    url: str
    label: str | None = None


@dataclass(frozen=True)
class Plain:
    """A message as plain words, with its links and whether it spoke to someone else."""

    text: str
    links: tuple[Link, ...] = ()
    addressed_other: bool = False
    """It mentions a person who is not the bot (a question to a teammate, say)."""
    channels: tuple[str, ...] = ()
    """The names of the Slack channels it links (`<#C…|prod-a>`): never in `text`, since a
    channel is at most a cluster called exactly that, never a project or a workload."""
    emoji: bool = False
    """It held emoji shortcodes (`:eyes:`), which are never words: they are not in `text`."""
    quoted: frozenset[str] = frozenset()
    """The words (lower-cased) only its quoted lines (`> …`, an earlier message) hold."""


# Slack: everything between < and > is one reference; it never holds another `<` or `>`.
_SLACK_REF = re.compile(r"<([^<>|]*+)(?:\|([^<>]*+))?>")
_SLACK_PERSON = re.compile(r"<@([A-Z0-9]++)(?:\|[^<>]*+)?>")
_HUGE_CHARREF = re.compile(r"&#[0-9]{8,}+;?")
_TEAMS_AT = re.compile(r"<at\b[^<>]*+>([^<>]*+)</at>", re.IGNORECASE)
_TEAMS_LINK = re.compile(r"<a\b([^<>]*+)>([^<>]*+)</a>", re.IGNORECASE)
_HREF = re.compile(r"""href\s*+=\s*+["']([^"'<>]*+)["']""", re.IGNORECASE)
_PRE_TAG = re.compile(r"</?pre\b[^<>]*+>", re.IGNORECASE)
_BREAK_TAG = re.compile(
    r"</?(?:br|p|div|li|ul|ol|pre|tr|h[1-6]|blockquote)\b[^<>]*+>", re.IGNORECASE
)
_ANY_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]*+\b[^<>]*+>")
_BARE_URL = re.compile(r"(?<![\w/])https?://[^\s<>()\"'`]++")
_MENTION_WORD = re.compile(r"(?<![\w@])@([A-Za-z][\w.-]*+)")
# `:eyes:`, `:this-is-fine:`, `:+1:`; never inside a word or a time (`12:30:00`).
_EMOJI_CODE = re.compile(r"(?<!\w):[\w+-]++:(?!\w)")
# Markers around a word: *bold*, _italic_, ~strike~, `code`, > quote (never inside a name).
_MARKERS = "*_~`>#"
_URL_TRAIL = ".,;:!?)]}'\""
_SAFE_LINKS = "safelinks.protection.outlook.com"
_PUNCTUATION = ".,;:!?\"'()[]{}*_~<>`"


def normalise(
    text: str, markup: Markup, *, bot_user_id: str | None = None, bot_names: tuple[str, ...] = ()
) -> Plain:
    """The plain words, links and addressee of `text`, written in `markup`.

    `bot_user_id` is the bot's Slack user ID; `bot_names` are the names a plain `@name`
    means the bot by (`runai-why`), so that only other people count as someone else.
    """
    links: list[Link] = []
    channels: list[str] = []
    other = False
    if markup is Markup.SLACK:
        text, other = _slack(text, bot_user_id, links, channels)
    elif markup is Markup.TEAMS:
        text, other = _teams(text, bot_names, links)
    text, at_other = _plain_mentions(_slack_people(text, bot_user_id), bot_names)
    text = _bare_urls(text, links).replace(OTHER_PERSON, " ")  # a person is never a slot
    plain, emoji, quoted = _unmarked(text)
    return Plain(plain, tuple(links), other or at_other, tuple(channels), emoji, quoted)


def _slack_people(text: str, bot_user_id: str | None) -> str:
    """`<@U…>` wherever it was pasted: the bot (when its ID is known) or someone else."""

    def person(match: re.Match[str]) -> str:
        return " " if match.group(1) == bot_user_id else f" {OTHER_PERSON} "

    return _SLACK_PERSON.sub(person, text)


def _unescape(text: str) -> str:
    return html.unescape(_HUGE_CHARREF.sub("\ufffd", text))


def _slack(
    text: str, bot_user_id: str | None, links: list[Link], channels: list[str]
) -> tuple[str, bool]:
    other = False

    def reference(match: re.Match[str]) -> str:
        nonlocal other
        target, label = match.group(1), match.group(2)
        if target.startswith("@"):  # a person: the bot, or someone else
            if target[1:] != bot_user_id:
                other = True
                return f" {OTHER_PERSON} "
            return " "
        if target.startswith("#"):  # a channel: its name may be a cluster's (#prod-a)
            if label:
                channels.append(_unescape(label).strip().lstrip("#"))
            return " "
        if target.startswith(("!", "mailto:")):
            return " "  # @here, a user group, an e-mail address: never a slot
        url = _unescape(target)
        shown = _unescape(label) if label else None
        links.append(Link(_unwrapped(url), shown))
        if shown is None or shown == url or url.endswith("//" + shown) or "://" in shown:
            return " "  # the URL itself is in `links`; its words are not names
        return f" {shown} "

    return _unescape(_SLACK_REF.sub(reference, text)), other


def _teams(text: str, bot_names: tuple[str, ...], links: list[Link]) -> tuple[str, bool]:
    other = False
    names = {n.casefold() for n in bot_names}

    def at(match: re.Match[str]) -> str:
        nonlocal other
        if match.group(1).strip().casefold() in names:
            return " "
        other = True
        return f" {OTHER_PERSON} "

    def anchor(match: re.Match[str]) -> str:
        href = _HREF.search(match.group(1))
        label = _unescape(match.group(2)).strip()
        if href is None:
            return f" {label} "
        url = _unwrapped(_unescape(href.group(1)))
        links.append(Link(url, label or None))
        return " " if not label or "://" in label else f" {label} "

    text = _TEAMS_AT.sub(at, text)
    text = _TEAMS_LINK.sub(anchor, text)
    text = _PRE_TAG.sub(f"\n{FENCE}\n", text)  # a code block, as Slack and the console write it
    text = _ANY_TAG.sub(" ", _BREAK_TAG.sub("\n", text))
    return _unescape(text).replace("\u00a0", " "), other


def _plain_mentions(text: str, bot_names: tuple[str, ...]) -> tuple[str, bool]:
    """A typed `@runai-why` is the bot (dropped); any other `@name` is a person."""
    names = {n.casefold() for n in bot_names}
    other = OTHER_PERSON in text

    def mention(match: re.Match[str]) -> str:
        nonlocal other
        name = match.group(1).rstrip(".-").casefold()
        if name in names:
            return " "
        if name == OTHER_PERSON[1:]:
            return match.group(0)
        other = True
        return f" {OTHER_PERSON} "

    return _MENTION_WORD.sub(mention, text), other


def _bare_urls(text: str, links: list[Link]) -> str:
    """URLs typed as text (Teams, the console, a slash command): into `links`, out of words."""

    def url(match: re.Match[str]) -> str:
        found = match.group(0).rstrip(_URL_TRAIL)
        links.append(Link(_unwrapped(found)))
        return " " + match.group(0)[len(found) :]

    return _BARE_URL.sub(url, text)


def _unwrapped(url: str) -> str:
    """Outlook's Safe Links wrapper (`…safelinks…/?url=<encoded>`) around the real URL."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if parts.hostname and parts.hostname.endswith(_SAFE_LINKS):
        inner = parse_qs(parts.query).get("url")
        if inner:
            return inner[0]
    return url


def _unmarked(text: str) -> tuple[str, bool, frozenset[str]]:
    """Lines of words without the markers around them (`*prod-a*` → `prod-a`), and emoji.

    A code block's lines stand between `FENCE` lines: what is pasted there is read for
    names, never for time words (`AGE 5m` is no lookback). Quoted lines (`> …`, an earlier
    message) come after the asker's own, outside code: what they write now names the slots
    first. Emoji shortcodes (`:eyes:`, `:this-is-fine:`) are cut; the second value says
    whether there were any, the third is the words only quoted lines hold.
    """
    blocks: list[list[str]] = []
    quoted: list[str] = []
    emoji = False
    for i, block in enumerate(text.split(FENCE)):
        lines: list[str] = []
        for typed in block.splitlines():
            line, codes = _EMOJI_CODE.subn(" ", typed)
            emoji = emoji or bool(codes)
            words = [w.strip(_MARKERS) for w in line.replace("`", " ").split()]
            said = " ".join(w for w in words if w)
            quote = not i % 2 and line.lstrip().startswith(">")
            (quoted if quote else lines).append(said)
        blocks.append(lines)
    only: frozenset[str] = frozenset()
    if quoted:
        only = _lower_words(quoted) - _lower_words(line for block in blocks for line in block)
        blocks[-1 if len(blocks) % 2 else -2].extend(quoted)  # the last block outside code
    lines = [line for i, block in enumerate(blocks) for line in ([FENCE] if i else []) + block]
    return "\n".join(line for line in lines if line), emoji, only


def _lower_words(lines: Iterable[str]) -> frozenset[str]:
    """The words of `lines`, lower-cased, without the punctuation around them."""
    return frozenset(w.strip(_PUNCTUATION).lower() for line in lines for w in line.split())
