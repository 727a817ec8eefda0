"""Pushed answers in Teams: a new post in a channel, and replies in its thread.

A subscription made in a Teams channel keeps the activity's service URL (`place`), so the
bot can post there unasked later: a new thread is a send to the channel's conversation, a
reply goes to `<channel>;messageid=<root>`, as Teams threads are addressed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from bot.conversation import Incoming, Responder
from bot.push import Target
from bot.teams.connector import TeamsConnector
from bot.teams.responder import ChartUrl, ReplyTarget, TeamsResponder
from bot.teams.turns import inbound_of

__all__ = ["TeamsPoster", "place"]


def place(incoming: Incoming) -> Mapping[str, str]:
    """The service URL of the activity a subscription command came in (see `WatchingEngine`)."""
    inbound = inbound_of(incoming)
    return {"service_url": inbound.service_url} if inbound is not None else {}


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
        conversation = target.channel if thread is None else f"{target.channel};messageid={thread}"
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
