"""Mentions and direct messages start or continue a conversation; thread replies continue one.

Only people are listened to: a message or mention from an app (`bot_id`, subtype
`bot_message`) never starts anything, so two bots cannot answer each other in a loop.

Exactly one answer per message: Slack's retries repeat an event, and a mention in a channel
the bot can read arrives twice (`app_mention` and `message`, with different event ids), so
the message (team, channel, ts) is the work item's dedupe key: claimed and queued in one
atomic step before the event is acknowledged, across replicas. A claimed message is always
in the queue until answered, so a later delivery is a true duplicate. When Redis is down
the event is answered with an error, so Slack delivers it again.

A plain reply in a thread is queued only when the conversation is known, or the bot took
part in that thread (asked of Slack): the worker then continues it, or tells the replier,
once and privately, to mention the bot with the whole question.
"""

from __future__ import annotations

from typing import Any

from bot.conversation import Incoming, Markup, StoreUnavailable, ThreadKey
from bot.conversation.edges import not_taken_notice
from bot.slack.deps import SlackDeps
from bot.slack.intake import ResponderSpec, RetryLater
from bot.slack.listeners.routes import Ack, Route, SlackRequest
from bot.slack.listeners.shortcuts import message_text
from bot.slack.listeners.take import take

__all__ = ["DM_THREAD", "ROUTES", "dm_top", "take_event"]

#: Message subtypes that carry a person's words; every other subtype is ignored.
_HANDLED_SUBTYPES = frozenset({None, "", "thread_broadcast", "file_share"})
#: The conversation key of a direct message's top level (its threads have their own).
DM_THREAD = "im"


def dm_top(channel: str, thread_ts: str | None) -> bool:
    """Whether a message in `channel` (`thread_ts`: its thread) is at a DM's top level.

    A click on it continues the DM's one conversation (`DM_THREAD`), and so does a pushed
    answer posted there (`bot.slack.poster`).
    """
    return thread_ts is None and channel.startswith("D")


def _words(event: dict[str, Any]) -> str:
    """A mention's text with what it forwards or shares (an alert's attachment, say)."""
    return (
        message_text(event, blocks=False) if event.get("attachments") else event.get("text") or ""
    )


def from_an_app(event: dict[str, Any]) -> bool:
    """Whether another app (or this bot) wrote it: such messages never start a diagnosis."""
    return bool(event.get("bot_id")) or event.get("subtype") == "bot_message"


def _message_key(body: dict[str, Any], event: dict[str, Any]) -> str:
    """One key for Slack's retries and the app_mention + message double delivery."""
    return f"msg:{body.get('team_id', '')}:{event.get('channel')}:{event.get('ts')}"


async def take_event(deps: SlackDeps, request: SlackRequest) -> Ack:
    """Take an `app_mention` or `message` event into the queue when it is for the bot.

    Raises:
        RetryLater: Redis is down; the HTTP answer must be an error, so Slack sends it again.
    """
    event = request.body.get("event") or {}
    if (
        from_an_app(event)
        or not event.get("channel")
        or not event.get("user")
        or event.get("user") == request.bot_user_id  # the bot never listens to itself
    ):
        return Ack()
    if event.get("type") == "app_mention":
        await _directed(deps, request, im=False)
    elif event.get("type") != "message" or event.get("subtype") not in _HANDLED_SUBTYPES:
        pass
    elif event.get("channel_type") == "im":
        await _directed(deps, request, im=True)  # a DM is always for the bot
    elif event.get("thread_ts") is not None and not _mentions(event, request.bot_user_id):
        await _thread_reply(deps, request)
    # else top-level chatter, or a mention (app_mention delivers it)
    return Ack()


def _mentions(event: dict[str, Any], bot_user_id: str | None) -> bool:
    return bool(bot_user_id) and f"<@{bot_user_id}" in (event.get("text") or "")


ROUTES = [Route("event", "app_mention", take_event), Route("event", "message", take_event)]


async def _directed(deps: SlackDeps, request: SlackRequest, *, im: bool) -> None:
    """A mention, or a direct message: always the bot's to take."""
    body = request.body
    event = body["event"]
    channel, user = str(event["channel"]), str(event["user"])
    thread = event.get("thread_ts") or (DM_THREAD if im else event.get("ts", ""))
    spec = ResponderSpec(
        channel=channel,
        thread_ts=event.get("thread_ts") or (None if im else thread),
        user=user,
        threaded=not im or bool(event.get("thread_ts")),
    )
    key = ThreadKey("slack", body.get("team_id", ""), channel, thread)
    await take(
        deps,
        request.client,
        kind="turn",
        incoming=Incoming(key, user, text=_words(event), markup=Markup.SLACK),
        spec=spec,
        dedupe=_message_key(body, event),
        retry=True,
        first_delivery=request.first_delivery,
    )


async def _thread_reply(deps: SlackDeps, request: SlackRequest) -> None:
    """A plain reply in a thread: queued when it may continue the bot's conversation there."""
    body, client = request.body, request.client
    event = body["event"]
    channel, thread, user = event["channel"], event["thread_ts"], event["user"]
    spec = ResponderSpec(channel=channel, thread_ts=thread, user=user)
    key = ThreadKey("slack", body.get("team_id", ""), channel, thread)

    async def took_part() -> bool:
        return await deps.threads.bot_took_part(
            client, channel=channel, thread=thread, bot_user_id=request.bot_user_id
        )

    try:
        known = await deps.store.load(key) is not None
    except StoreUnavailable as error:
        if not await took_part():
            return  # a thread among people: not the bot's business, Redis or not
        if request.first_delivery:
            await spec.responder(client, runai_url=deps.runai_url).tell(
                not_taken_notice(error, retrying=True)
            )
        raise RetryLater(str(error)) from error
    if not known and not await took_part():
        return  # a thread among people: not the bot's business
    text = event.get("text") or ""
    incoming = Incoming(key, user, text=text, directed=False, bot_thread=True, markup=Markup.SLACK)
    await take(
        deps,
        client,
        kind="reply",
        incoming=incoming,
        spec=spec,
        dedupe=_message_key(body, event),
        retry=True,
        first_delivery=request.first_delivery,
        quiet_when_capped=True,  # a "thanks" during a backlog earns no notice
    )
