"""Mentions start or continue a conversation; plain replies continue threads the bot owns.

Exactly one answer per message: Slack's retries repeat an event, and a mention in a channel
the bot can read arrives twice (`app_mention` and `message`, with different event ids), so
the message (team, channel, ts) is claimed in the store (`SET NX EX`) before anything is
done, across replicas.
"""

from __future__ import annotations

from typing import Any

import structlog
from slack_bolt.async_app import AsyncApp, AsyncBoltContext
from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation import Incoming, ThreadKey
from bot.slack.deps import SlackDeps
from bot.slack.responder import SlackResponder

__all__ = ["register"]

#: Message subtypes that carry a person's words; every other subtype is ignored.
_HANDLED_SUBTYPES = frozenset({None, "thread_broadcast", "file_share"})


async def _first_delivery(deps: SlackDeps, body: dict[str, Any], event: dict[str, Any]) -> bool:
    """Claim the message itself, atomically, across replicas.

    One key covers Slack's retries (same event, same message) and the app_mention + message
    double delivery (two events, one message).
    """
    team = body.get("team_id", "")
    message = f"msg:{team}:{event.get('channel')}:{event.get('ts')}"
    first = await deps.store.claim(message, deps.dedupe_ttl_s)
    if not first:
        structlog.get_logger(__name__).info(
            "slack_duplicate_ignored", event_id=body.get("event_id")
        )
    return first


def register(app: AsyncApp, deps: SlackDeps) -> None:
    """Register `app_mention` and `message` listeners."""

    async def on_mention(
        body: dict[str, Any], event: dict[str, Any], client: AsyncWebClient
    ) -> None:
        if not await _first_delivery(deps, body, event):
            return
        thread = event.get("thread_ts") or event["ts"]
        key = ThreadKey("slack", body.get("team_id", ""), event["channel"], thread)
        responder = SlackResponder(client, channel=event["channel"], thread_ts=thread)
        await deps.engine.handle(
            Incoming(key, event.get("user", ""), text=event.get("text", "")), responder
        )

    async def on_message(
        body: dict[str, Any],
        event: dict[str, Any],
        client: AsyncWebClient,
        context: AsyncBoltContext,
    ) -> None:
        thread = event.get("thread_ts")
        text = event.get("text") or ""
        if (
            thread is None  # top-level chatter: only mentions start a conversation
            or event.get("subtype") not in _HANDLED_SUBTYPES
            or event.get("bot_id")
            or (context.bot_user_id and f"<@{context.bot_user_id}" in text)  # app_mention has it
        ):
            return
        if not await _first_delivery(deps, body, event):
            return
        key = ThreadKey("slack", body.get("team_id", ""), event["channel"], thread)
        responder = SlackResponder(client, channel=event["channel"], thread_ts=thread)
        incoming = Incoming(key, event.get("user", ""), text=text, directed=False)
        await deps.engine.handle(incoming, responder)

    app.event("app_mention")(on_mention)
    app.event("message")(on_message)
