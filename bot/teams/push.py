"""Pushed answers in Teams: a new post in a channel, and replies in its thread.

A subscription made in a Teams channel keeps the activity's service URL and conversation
type (`place`), so the bot can post there unasked later: a new thread is a send to the
channel's conversation, a reply goes to `<channel>;messageid=<root>`, as Teams threads are
addressed. A group or 1:1 chat has no threads: every post goes to the chat, and a click on
any of them continues the chat's one conversation (`CHAT_THREAD`), where the answer is kept.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from bot.conversation import Incoming, Responder
from bot.push import Target
from bot.teams.activity import CHAT_THREAD
from bot.teams.connector import TeamsConnector
from bot.teams.responder import ChartUrl, ReplyTarget, TeamsResponder
from bot.teams.turns import inbound_of

__all__ = ["TeamsPoster", "chat", "place"]

#: The conversation types of the chats, as activities name them (`conversationType`).
_CHATS = frozenset({"personal", "groupChat"})
#: How Teams channels' conversation IDs end; a group chat's end `@thread.v2`.
_CHANNEL_SUFFIXES = ("@thread.tacv2", "@thread.skype")


def place(incoming: Incoming) -> Mapping[str, str]:
    """Where the activity a subscription command came in was (see `WatchingEngine`).

    Its service URL, and its conversation type: a chat's posts are not threaded.
    """
    inbound = inbound_of(incoming)
    if inbound is None:
        return {}
    return {"service_url": inbound.service_url, "conversation_type": inbound.conversation_type}


def chat(target: Target) -> bool:
    """Whether `target` is a group or 1:1 chat (no threads), not a channel.

    As its subscribing activity said; for a target known only by its ID (a declared
    watch, a subscription kept before the type was), a chat unless the ID ends as a
    channel's does.
    """
    if target.conversation_type is not None:
        return target.conversation_type in _CHATS
    return not target.channel.endswith(_CHANNEL_SUFFIXES)


class TeamsPoster:
    """The `Poster` for Teams conversations, through the Bot Connector."""

    def __init__(
        self,
        connector: TeamsConnector,
        *,
        app_id: str,
        runai_url: str | None,
        chart_url: ChartUrl | None = None,
    ) -> None:
        self._connector = connector
        self._bot_id = f"28:{app_id}"
        self._runai_url = runai_url
        self._chart_url = chart_url

    def responder(
        self, target: Target, thread: str | None, on_posted: Callable[[str], Awaitable[None]]
    ) -> Responder:
        """See `Poster.responder`; a target without a service URL cannot be posted to."""
        if not target.service_url:
            raise ValueError("a Teams conversation needs the service URL of a subscription")
        threaded = thread is not None and not chat(target)
        conversation = f"{target.channel};messageid={thread}" if threaded else target.channel
        reply = ReplyTarget(
            service_url=target.service_url,
            conversation_id=conversation,
            reply_to=thread,
            user_id="",
            tenant_id=target.team,
            bot_id=self._bot_id,
        )
        responder = TeamsResponder(
            self._connector, reply, runai_url=self._runai_url, chart_url=self._chart_url
        )
        responder.on_posted = on_posted
        return responder

    def click_thread(self, target: Target, thread: str | None) -> str | None:
        """See `Poster.click_thread`: a chat is one conversation, a channel's are threads."""
        return CHAT_THREAD if chat(target) else thread
