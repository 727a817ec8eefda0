"""Button clicks (a cluster or a workload to pick) continue the conversation in its thread.

Only the person who asked can pick: anyone else is told so privately. A click that is taken
replaces the buttons with the choice, so the question cannot be answered twice.
"""

from __future__ import annotations

import re
from typing import Any

import structlog
from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.errors import SlackApiError
from slack_sdk.models.blocks import ContextBlock, MarkdownTextObject, PlainTextObject
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.async_client import AsyncWebhookClient

from bot.conversation import Incoming, StoreUnavailable, ThreadKey
from bot.slack.deps import SlackDeps
from bot.slack.listeners.events import DM_THREAD
from bot.slack.responder import CHOICE_ACTION, SlackResponder
from bot.slack.turns import LOST_CONTEXT, converse, tell_store_error

__all__ = ["only_asker", "picked_blocks", "register"]

_USER_ID = re.compile(r"^[UW][A-Z0-9]{1,20}$")
_LABEL_MAX = 150


def only_asker(asker: str) -> str:
    """The private answer to a click from someone other than the asker."""
    who = f"<@{asker}>" if _USER_ID.match(asker) else "the person who asked"
    return f"Only {who} can pick here. To ask your own question, mention me."


def picked_blocks(blocks: list[dict[str, Any]], user: str, label: str) -> list[dict[str, Any]]:
    """The question's blocks with its buttons replaced by who picked what."""
    who = f"<@{user}> picked" if _USER_ID.match(user) else "Picked"
    picked = ContextBlock(
        elements=[
            MarkdownTextObject(text=who),
            PlainTextObject(text=(label or "?")[:_LABEL_MAX], emoji=False),
        ]
    ).to_dict()
    kept: list[dict[str, Any]] = []
    placed = False
    for block in blocks:
        if block.get("type") != "actions":
            kept.append(block)
        elif not placed:
            kept.append(picked)
            placed = True
    return kept if placed else [*kept, picked]


async def _show_choice(
    client: AsyncWebClient, body: dict[str, Any], action: dict[str, Any], user: str
) -> None:
    message = body.get("message") or {}
    label = str((action.get("text") or {}).get("text") or action.get("value") or "")
    blocks = picked_blocks(list(message.get("blocks") or []), user, label)
    text = str(message.get("text") or label)
    try:
        if (body.get("container") or {}).get("is_ephemeral") or not message.get("ts"):
            if body.get("response_url"):
                await AsyncWebhookClient(body["response_url"]).send(
                    text=text, blocks=blocks, replace_original=True
                )
            return
        channel = (body.get("channel") or {}).get("id") or ""
        await client.chat_update(channel=channel, ts=message["ts"], text=text, blocks=blocks)
    except SlackApiError as error:
        structlog.get_logger(__name__).warning(
            "slack_choice_not_shown", error=error.response.get("error")
        )


def register(app: AsyncApp, deps: SlackDeps) -> None:
    """Register the choice-button listener."""

    async def on_choice(
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient
    ) -> None:
        await ack()
        message = body.get("message") or {}
        container = body.get("container") or {}
        channel = (body.get("channel") or {}).get("id") or container.get("channel_id")
        top = message.get("thread_ts") is None and str(channel).startswith("D")
        thread = DM_THREAD if top else message.get("thread_ts") or message.get("ts")
        user = (body.get("user") or {}).get("id", "")
        if not channel or not thread or not user:
            return
        key = ThreadKey("slack", (body.get("team") or {}).get("id", ""), channel, thread)
        responder = SlackResponder(
            client,
            channel=channel,
            thread_ts=None if top else thread,
            user=user,
            response_url=body.get("response_url"),
            threaded=not top,
        )
        try:
            state = await deps.store.load(key)
            if state is None:
                await responder.tell(LOST_CONTEXT)
                return
            asker = getattr(state, "asker", "") or state.started_by
            if asker and asker != user:
                await responder.tell(only_asker(asker), ours=True)
                return
            click = f"act:{channel}:{message.get('ts')}:{action.get('value')}"
            if not await deps.store.claim(click, deps.dedupe_ttl_s):
                return  # a double click, or the same click delivered twice
        except StoreUnavailable as error:
            await tell_store_error(responder, error)
            return
        await _show_choice(client, body, action, user)
        await converse(deps, Incoming(key, user, choice=action.get("value", "")), responder)

    app.action(re.compile(rf"^{CHOICE_ACTION}_\d+$"))(on_choice)
