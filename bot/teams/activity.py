"""A verified Bot Framework activity, read with the Teams SDK's models, as what the bot needs.

Only called on a body whose token has been verified. `read_activity` validates it with
`microsoft_teams.api.ActivityTypeAdapter` and keeps the few facts the conversation needs:
where it happened (service URL, conversation, thread root), who (user ID, Entra object ID,
tenant), what (text with the bot's mention removed, or a card button's value), and whether
it was meant for the bot (a mention, or anything in a 1:1 chat). An activity from another
Bot Framework channel (Web Chat, say: its key endorses it) is not for us.

Threads: in a channel, a conversation ID ends with `;messageid=<root>`, and the reply goes
there. A group or 1:1 chat has no threads; its conversation is one thread (`CHAT_THREAD`).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

from microsoft_teams.api import ActivityTypeAdapter
from microsoft_teams.api.activities.invoke.adaptive_card import AdaptiveCardInvokeActivity
from microsoft_teams.api.activities.message import MessageActivity
from microsoft_teams.api.activities.utils import StripMentionsTextOptions
from microsoft_teams.api.models import MentionEntity
from pydantic import ValidationError

from bot.conversation.parse_bounds import MAX_PARSED_CHARS
from bot.errors import BotError
from bot.teams.render.card_parts import SUBMIT_CHOICE, SUBMIT_KEY

__all__ = ["CHAT_THREAD", "TEAMS_CHANNEL", "Inbound", "NotForUs", "read_activity"]

#: The `channelId` of every Teams activity; other Bot Framework channels are not answered.
TEAMS_CHANNEL = "msteams"
#: The thread of a group or 1:1 chat (they have no threads of their own).
CHAT_THREAD = "chat"
_MESSAGE_ID = ";messageid="
_MENTIONS_STRIPPED = 4
_MIRROR_LINKS = 8
_HREF = re.compile(r"""<a\b[^<>]*?\bhref\s*+=\s*+["'](https?://[^"'<>\s]++)["']""", re.IGNORECASE)


class NotForUs(BotError):
    """The body is not an activity the bot acts on (the message says why, for the log)."""


@dataclass(frozen=True)
class Inbound:
    """The facts of one verified activity the conversation engine needs."""

    activity_id: str
    service_url: str
    conversation_id: str
    """The conversation to reply in (a channel's includes `;messageid=<root>`)."""
    channel: str
    """The conversation without the thread suffix: a channel, a group chat or a 1:1 chat."""
    thread: str
    conversation_type: str
    tenant_id: str
    user_id: str
    aad_object_id: str | None
    bot_id: str
    text: str
    directed: bool
    """A mention of the bot, or anything in a 1:1 chat: it may start a conversation."""
    choice: str | None = None
    card_id: str | None = None
    """For a click, the activity the card was on (its `replyToId`)."""
    invoke: bool = False
    """An `adaptiveCard/action` invoke (Action.Execute), which expects an invoke response."""

    @property
    def personal(self) -> bool:
        """A 1:1 chat with the bot, where every reply is private already."""
        return self.conversation_type == "personal"


def _choice(value: Any) -> str | None:
    if isinstance(value, dict) and value.get(SUBMIT_KEY) == SUBMIT_CHOICE:
        choice = value.get("value")
        return choice if isinstance(choice, str) and choice else None
    return None


def _without_our_mentions(activity: MessageActivity) -> str:
    """The text without the bot's `<at>…</at>` mentions, stripped by the SDK.

    The SDK makes one pass over the whole text per mention entity; a message names the bot
    once or twice, so only the first `_MENTIONS_STRIPPED` different ones are passed to it
    (a body of a thousand made-up mentions cost a quarter of a second).
    """
    ours: dict[tuple[str | None, str | None], MentionEntity] = {}
    for entity in activity.entities or []:
        if isinstance(entity, MentionEntity) and entity.mentioned.id == activity.recipient.id:
            ours.setdefault((entity.text, entity.mentioned.name), entity)
            if len(ours) == _MENTIONS_STRIPPED:
                break
    few = activity.model_copy(update={"entities": list(ours.values())})
    stripped = few.strip_mentions_text(StripMentionsTextOptions(account_id=activity.recipient.id))
    return (stripped.text or "").strip()


def _linked_urls(activity: MessageActivity, text: str) -> str:
    """`text` and, after it, the links of the message's HTML mirror that `text` lacks.

    Teams' composer may turn a pasted URL into a link titled with the page's title: the
    text then holds only the title, and the URL survives only in the `text/html`
    attachment. The first `_MIRROR_LINKS` of them are kept; nothing else of the HTML is read.
    """
    found: list[str] = []
    for attachment in activity.attachments or []:
        content = attachment.content
        if attachment.content_type != "text/html" or not isinstance(content, str):
            continue
        for match in _HREF.finditer(content[:MAX_PARSED_CHARS]):
            url = html.unescape(match.group(1))
            if url not in text and url not in found and len(found) < _MIRROR_LINKS:
                found.append(url)
    return "\n".join([text, *found]) if found else text


def read_activity(body: dict[str, Any]) -> Inbound:
    """The activity's facts; `NotForUs` for a kind the bot ignores or a malformed body."""
    try:
        activity = ActivityTypeAdapter.validate_python(body)
    except ValidationError as error:
        raise NotForUs(f"not a Bot Framework activity ({error.error_count()} errors)") from error
    choice: str | None = None
    invoke = False
    if isinstance(activity, AdaptiveCardInvokeActivity):
        invoke = True
        choice = _choice(getattr(activity.value.action, "data", None))
    elif isinstance(activity, MessageActivity):
        choice = _choice(activity.value)
    else:
        raise NotForUs(f"activity type {activity.type!r} is not handled")
    if activity.channel_id != TEAMS_CHANNEL:
        raise NotForUs("not a Teams activity (another Bot Framework channel)")
    if not activity.id:
        raise NotForUs("activity has no id")
    if activity.from_.id == activity.recipient.id:
        raise NotForUs("the bot's own activity")
    conversation = activity.conversation
    channel, _, root = conversation.id.partition(_MESSAGE_ID)
    kind = str(conversation.conversation_type or "personal")
    tenant = conversation.tenant_id or ""
    if not tenant and activity.channel_data and activity.channel_data.tenant:
        tenant = activity.channel_data.tenant.id or ""
    text, directed = "", kind == "personal"
    if isinstance(activity, MessageActivity) and choice is None:
        mentioned = activity.get_account_mention(activity.recipient.id) is not None
        directed = directed or mentioned
        text = _linked_urls(activity, _without_our_mentions(activity))
    thread = root or (activity.reply_to_id if kind == "channel" and activity.reply_to_id else None)
    if kind == "channel" and thread is None:
        thread = activity.id  # a new post: its own id is the thread's root
    return Inbound(
        activity_id=activity.id,
        service_url=activity.service_url or "",
        conversation_id=conversation.id
        if root or kind != "channel"
        else f"{channel}{_MESSAGE_ID}{thread}",
        channel=channel,
        thread=thread or CHAT_THREAD,
        conversation_type=kind,
        tenant_id=tenant,
        user_id=activity.from_.id,
        aad_object_id=activity.from_.aad_object_id,
        bot_id=activity.recipient.id,
        text=text,
        directed=directed,
        choice=choice,
        card_id=activity.reply_to_id if choice is not None else None,
        invoke=invoke,
    )
