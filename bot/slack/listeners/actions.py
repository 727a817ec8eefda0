"""Button clicks (a cluster or a workload to pick) continue the conversation in its thread.

Only the person who asked can pick: anyone else is told so privately, before the click is
claimed, so it cannot use up the asker's. A click that is taken goes to the engine with the
question's message, which it replaces by the choice (so it cannot be answered twice).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation import Incoming, StoreUnavailable, ThreadKey, messages
from bot.slack.deps import SlackDeps
from bot.slack.listeners.events import DM_THREAD
from bot.slack.responder import CHOICE_ACTION, SlackResponder
from bot.slack.turns import converse, tell_store_error

__all__ = ["Click", "clicked", "only_asker", "register"]

_USER_ID = re.compile(r"^[UW][A-Z0-9]{1,20}$")


def only_asker(asker: str) -> str:
    """The private answer to a click from someone other than the asker, naming them."""
    return messages.only_asker(f"<@{asker}>" if _USER_ID.match(asker) else "the person who asked")


@dataclass(frozen=True)
class Click:
    """Who clicked a button of ours, on which thread's message, and how to answer them."""

    key: ThreadKey
    user: str
    responder: SlackResponder


def clicked(body: dict[str, Any], client: AsyncWebClient, deps: SlackDeps) -> Click | None:
    """Where a click happened (None when the payload names no channel, thread or user)."""
    message = body.get("message") or {}
    container = body.get("container") or {}
    channel = (body.get("channel") or {}).get("id") or container.get("channel_id")
    top = message.get("thread_ts") is None and str(channel).startswith("D")
    thread = DM_THREAD if top else message.get("thread_ts") or message.get("ts")
    user = (body.get("user") or {}).get("id", "")
    if not channel or not thread or not user:
        return None
    responder = SlackResponder(
        client,
        channel=channel,
        thread_ts=None if top else thread,
        user=user,
        response_url=body.get("response_url"),
        threaded=not top,
        runai_url=deps.runai_url,
    )
    key = ThreadKey("slack", (body.get("team") or {}).get("id", ""), channel, thread)
    return Click(key, user, responder)


def register(app: AsyncApp, deps: SlackDeps) -> None:
    """Register the choice-button listener."""

    async def on_choice(
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient
    ) -> None:
        await ack()
        click = clicked(body, client, deps)
        if click is None:
            return
        key, user, responder = click.key, click.user, click.responder
        message = body.get("message") or {}
        container = body.get("container") or {}
        channel = key.channel
        try:
            asker = await deps.engine.asker(key)
            if asker is None:
                await responder.tell(messages.LOST_CONTEXT)
                return
            if asker != user:
                await responder.tell(only_asker(asker), ours=True)
                return
            claim = f"act:{channel}:{message.get('ts')}:{action.get('value')}"
            if not await deps.store.claim(claim, deps.dedupe_ttl_s):
                return  # a double click, or the same click delivered twice
        except StoreUnavailable as error:
            await tell_store_error(responder, error)
            return
        # An ephemeral question cannot be updated in place: the engine then replaces the
        # thread's public question instead (its stored reference).
        ref = None if container.get("is_ephemeral") else message.get("ts")
        incoming = Incoming(key, user, choice=action.get("value", ""), message_ref=ref)
        await converse(deps, incoming, responder)

    app.action(re.compile(rf"^{CHOICE_ACTION}_\d+$"))(on_choice)
