"""The "Why did this fail?" message shortcut: diagnose from any message, such as an alert.

The identifiers (cluster, workload, project) are read from the message's own words, with
the text of its attachments and blocks (monitoring alerts put them there); whatever is
missing is asked in that message's thread, like a mention would be. The request is taken
into the work queue before the shortcut is acknowledged, once per `trigger_id` (a replayed
payload is a duplicate).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from bot.conversation import Incoming, Markup, ThreadKey
from bot.conversation.parse_bounds import MAX_PARSED_CHARS
from bot.slack.deps import SlackDeps
from bot.slack.intake import ResponderSpec, trigger_key
from bot.slack.listeners.routes import Ack, Route, SlackRequest
from bot.slack.listeners.take import take

__all__ = ["MESSAGE_SHORTCUT", "ROUTES", "message_text", "take_shortcut"]

#: The shortcut's `callback_id`, as declared in deploy/slack-app-manifest*.yaml.
MESSAGE_SHORTCUT = "runai_why_message"
_ATTACHMENT_FIELDS = ("pretext", "title", "text", "fallback")


def _strings(node: object) -> Iterator[str]:
    """Every `text` string in a Block Kit tree (sections, fields, rich text, context)."""
    if isinstance(node, dict):
        text = node.get("text")
        if isinstance(text, str):
            yield text
        for key, value in node.items():
            if key != "text" or not isinstance(value, str):
                yield from _strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from _strings(item)


def _parts(message: dict[str, Any], *, blocks: bool = True) -> Iterator[str]:
    """The message's text, then its attachments' and blocks' text, as found (lazily)."""
    yield str(message.get("text") or "")
    for attachment in message.get("attachments") or []:
        if isinstance(attachment, dict):
            yield from (str(attachment.get(f) or "") for f in _ATTACHMENT_FIELDS)
            for field in attachment.get("fields") or []:
                if isinstance(field, dict):
                    yield f"{field.get('title') or ''} {field.get('value') or ''}"
            yield from _strings(attachment.get("blocks") or [])
    if blocks:
        yield from _strings(message.get("blocks") or [])


def message_text(message: dict[str, Any], *, blocks: bool = True) -> str:
    """The words of a message: its text, then its attachments' and blocks' text, deduplicated.

    Read only until there is more than the parser reads (`MAX_PARSED_CHARS`): the engine
    then tells the asker privately that the rest was not read. `blocks=False` leaves out
    the message's own blocks, which a person's message only repeats its text in.
    """
    seen: dict[str, None] = {}  # insertion-ordered, found in constant time
    size = 0
    for part in map(str.strip, _parts(message, blocks=blocks)):
        if part and part not in seen:
            seen[part] = None
            size += len(part) + 1
            if size > MAX_PARSED_CHARS:
                break
    return "\n".join(seen)


async def take_shortcut(deps: SlackDeps, request: SlackRequest) -> Ack:
    """Take "Why did this fail?" on a message into the queue, read from its words."""
    shortcut = request.body
    message = shortcut["message"]
    channel, user = shortcut["channel"]["id"], shortcut["user"]["id"]
    thread = message.get("thread_ts") or message.get("ts") or ""
    team = shortcut["team"]["id"]
    key = ThreadKey("slack", team, channel, thread)
    spec = ResponderSpec(
        channel=channel,
        thread_ts=thread or None,
        user=user,
        response_url=shortcut.get("response_url"),
    )
    text = message_text(message) or "help"
    await take(
        deps,
        request.client,
        kind="turn",
        incoming=Incoming(key, user, text=text, markup=Markup.SLACK),
        spec=spec,
        dedupe=trigger_key(team, shortcut["trigger_id"]),
    )
    return Ack()


ROUTES = [Route("shortcut", MESSAGE_SHORTCUT, take_shortcut)]
