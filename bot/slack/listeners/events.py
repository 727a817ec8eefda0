"""Mentions and direct messages start or continue a conversation; thread replies continue one.

Only people are listened to: a message or mention from an app (`bot_id`, subtype
`bot_message`) never starts anything, so two bots cannot answer each other in a loop.

Exactly one answer per message: Slack's retries repeat an event, and a mention in a channel
the bot can read arrives twice (`app_mention` and `message`, with different event ids), so
the message (team, channel, ts) is claimed in the store (`SET NX EX`) before anything is
done, across replicas.

A plain reply in a thread whose conversation the store no longer has (Redis lost it, or it
expired) is not ignored when the bot took part in that thread: the replier is told, once and
privately, to mention the bot with the whole question.
"""

from __future__ import annotations

from typing import Any

import structlog
from slack_bolt.async_app import AsyncApp, AsyncBoltContext
from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation import Incoming, StoreUnavailable, ThreadKey
from bot.conversation.messages import LOST_CONTEXT
from bot.conversation.store import ThreadBusy
from bot.slack.deps import SlackDeps
from bot.slack.responder import SlackResponder
from bot.slack.turns import converse, tell_store_error

__all__ = ["DM_THREAD", "register"]

#: Message subtypes that carry a person's words; every other subtype is ignored.
_HANDLED_SUBTYPES = frozenset({None, "", "thread_broadcast", "file_share"})
#: The conversation key of a direct message's top level (its threads have their own).
DM_THREAD = "im"


def from_an_app(event: dict[str, Any]) -> bool:
    """Whether another app (or this bot) wrote it: such messages never start a diagnosis."""
    return bool(event.get("bot_id")) or event.get("subtype") == "bot_message"


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
    """Register `app_mention` and `message` (channels, private channels, DMs) listeners."""

    async def directed(
        body: dict[str, Any], event: dict[str, Any], client: AsyncWebClient, *, im: bool
    ) -> None:
        channel, user = str(event.get("channel", "")), str(event.get("user", ""))
        thread = event.get("thread_ts") or (DM_THREAD if im else event.get("ts", ""))
        responder = SlackResponder(
            client,
            channel=channel,
            thread_ts=event.get("thread_ts") or (None if im else thread),
            user=user,
            threaded=not im or bool(event.get("thread_ts")),
            runai_url=deps.runai_url,
        )
        try:
            if not await _first_delivery(deps, body, event):
                return
        except StoreUnavailable as error:
            await tell_store_error(responder, error)
            return
        key = ThreadKey("slack", body.get("team_id", ""), channel, thread)
        await converse(deps, Incoming(key, user, text=event.get("text") or ""), responder)

    async def on_mention(
        body: dict[str, Any], event: dict[str, Any], client: AsyncWebClient
    ) -> None:
        if from_an_app(event) or not event.get("channel") or not event.get("user"):
            return
        await directed(body, event, client, im=False)

    async def on_message(
        body: dict[str, Any],
        event: dict[str, Any],
        client: AsyncWebClient,
        context: AsyncBoltContext,
    ) -> None:
        text = event.get("text") or ""
        if (
            event.get("subtype") not in _HANDLED_SUBTYPES
            or from_an_app(event)
            or not event.get("channel")
            or not event.get("user")
        ):
            return
        if event.get("channel_type") == "im":
            await directed(body, event, client, im=True)  # a DM is always meant for the bot
            return
        thread = event.get("thread_ts")
        if thread is None or (context.bot_user_id and f"<@{context.bot_user_id}" in text):
            return  # top-level chatter, or a mention (app_mention delivers it)
        await _thread_reply(deps, body, event, client, context.bot_user_id)

    app.event("app_mention")(on_mention)
    app.event("message")(on_message)


async def _thread_reply(
    deps: SlackDeps,
    body: dict[str, Any],
    event: dict[str, Any],
    client: AsyncWebClient,
    bot_user_id: str | None,
) -> None:
    """A plain reply in a thread: it continues the bot's conversation there, if any."""
    channel, thread, user = event["channel"], event["thread_ts"], event["user"]
    responder = SlackResponder(
        client, channel=channel, thread_ts=thread, user=user, runai_url=deps.runai_url
    )
    key = ThreadKey("slack", body.get("team_id", ""), channel, thread)
    try:
        known = await deps.store.load(key) is not None
        if not await _first_delivery(deps, body, event):
            return
    except StoreUnavailable as error:
        if await deps.threads.bot_took_part(
            client, channel=channel, thread=thread, bot_user_id=bot_user_id
        ):
            await tell_store_error(responder, error)
        return
    if not known:
        if not await deps.threads.bot_took_part(
            client, channel=channel, thread=thread, bot_user_id=bot_user_id
        ):
            return  # a thread among people: not the bot's business
        try:  # a turn still running there may not have saved the thread yet
            known = await deps.engine.settled(key) is not None
        except ThreadBusy:
            known = True  # a turn still holds the thread: the engine answers "busy"
        except StoreUnavailable as error:
            await tell_store_error(responder, error)
            return
        if not known:
            await _lost_context(deps, responder, key=key, user=user)
            return
    incoming = Incoming(key, user, text=event.get("text") or "", directed=False)
    await converse(deps, incoming, responder)


async def _lost_context(
    deps: SlackDeps, responder: SlackResponder, *, key: ThreadKey, user: str
) -> None:
    """Tell the replier, once per thread, that the bot no longer has this conversation."""
    try:
        first = await deps.store.claim(f"lost:{key.redis_key('conv')}:{user}", deps.dedupe_ttl_s)
    except StoreUnavailable as error:
        await tell_store_error(responder, error)
        return
    if first:
        structlog.get_logger(__name__).info("slack_thread_context_lost", thread=key.thread)
        await responder.tell(LOST_CONTEXT)
