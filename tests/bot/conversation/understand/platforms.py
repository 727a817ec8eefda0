"""One message as each platform delivers it: Slack mrkdwn, Teams text/HTML, console text.

Rows are written once in a small notation and rendered per platform, so the same row runs
through each normaliser:
  `@bot` the bot's mention; `@alice` someone else's; `[label](url)` a labelled link;
  `*x*` bold; `` `x` `` code; ```` ```x``` ```` a code block; `#prod-a` a channel; `:eyes:`
  an emoji; newlines as typed.
"""

from __future__ import annotations

import html
import re

from bot.conversation import Markup

__all__ = ["BOT_ID", "PLATFORMS", "render"]

BOT_ID = "U0RUNAIWHY"
PLATFORMS = (Markup.SLACK, Markup.TEAMS, Markup.PLAIN)

_LINK = re.compile(r"\[([^\]]*)\]\((https?://[^)\s]+)\)")
_BARE = re.compile(r"(?<![(\w])(https?://[^\s)]+)")
_PERSON = re.compile(r"@(alice|bob|oncall)\b")
_BOT = re.compile(r"@bot\b")
_CHANNEL = re.compile(r"(?<![\w&])#([a-z][\w-]*)")
_BOLD = re.compile(r"\*([^*\s][^*]*)\*")
_CODE = re.compile(r"`([^`]+)`")
_BLOCK = re.compile(r"```(.*?)```", re.DOTALL)
_EMOJI = {":eyes:": "\U0001f440", ":fire:": "\U0001f525", ":pray:": "\U0001f64f"}


def render(said: str, markup: Markup) -> str:
    """`said` (in the notation above) as `markup` delivers it."""
    if markup is Markup.SLACK:
        return _slack(said)
    if markup is Markup.TEAMS:
        return _teams(said)
    text = _LINK.sub(lambda m: f"{m.group(1)} {m.group(2)}", said)
    return _BOT.sub("@runai-why", text)


def _slack(said: str) -> str:
    text = said.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    links: list[str] = []

    def keep(ref: str) -> str:
        links.append(ref)
        return f"\x00{len(links) - 1}\x00"

    text = _LINK.sub(lambda m: keep(f"<{m.group(2).replace('&amp;', '&amp;')}|{m.group(1)}>"), text)
    text = _BARE.sub(lambda m: keep(f"<{m.group(1)}>"), text)
    text = _BOT.sub(f"<@{BOT_ID}>", text)
    text = _PERSON.sub(lambda m: f"<@U0{m.group(1).upper()}>", text)
    text = _CHANNEL.sub(lambda m: f"<#C0{m.group(1).upper().replace('-', '')}|{m.group(1)}>", text)
    return re.sub("\x00(\\d+)\x00", lambda m: links[int(m.group(1))], text)


def _teams(said: str) -> str:
    links: list[str] = []

    def keep(ref: str) -> str:
        links.append(ref)
        return f"\x00{len(links) - 1}\x00"

    text = _LINK.sub(
        lambda m: keep(f'<a href="{html.escape(m.group(2))}">{html.escape(m.group(1))}</a>'), said
    )
    text = _BARE.sub(lambda m: keep(html.escape(m.group(1), quote=False)), text)
    text = html.escape(text, quote=False)
    text = _BOT.sub("<at>runai-why</at>", text)
    text = _PERSON.sub(lambda m: f"<at>{m.group(1).title()} Example</at>", text)
    text = _CHANNEL.sub(lambda m: m.group(1), text)
    text = _BOLD.sub(lambda m: f"<b>{m.group(1)}</b>", text)
    text = _BLOCK.sub(lambda m: f"<pre>{m.group(1)}</pre>", text)
    text = _CODE.sub(lambda m: f"<code>{m.group(1)}</code>", text)
    for code, emoji in _EMOJI.items():
        text = text.replace(code, emoji)
    text = text.replace("\n", "<br>").replace("  ", "&nbsp; ")
    return re.sub("\x00(\\d+)\x00", lambda m: links[int(m.group(1))], text)
