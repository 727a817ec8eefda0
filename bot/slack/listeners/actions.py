"""Button clicks (a cluster or a workload to pick) continue the conversation in its thread."""

from __future__ import annotations

import re
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation import Incoming, ThreadKey
from bot.slack.deps import SlackDeps
from bot.slack.responder import CHOICE_ACTION, SlackResponder

__all__ = ["register"]


def register(app: AsyncApp, deps: SlackDeps) -> None:
    """Register the choice-button listener."""

    async def on_choice(
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient
    ) -> None:
        await ack()
        message = body.get("message") or {}
        channel = (body.get("channel") or {}).get("id") or (body.get("container") or {}).get(
            "channel_id"
        )
        thread = message.get("thread_ts") or message.get("ts")
        if not channel or not thread:
            return
        click = f"act:{channel}:{message.get('ts')}:{action.get('value')}"
        if not await deps.store.claim(click, deps.dedupe_ttl_s):
            return  # a double click, or the same click delivered twice
        team = (body.get("team") or {}).get("id", "")
        key = ThreadKey("slack", team, channel, thread)
        responder = SlackResponder(
            client, channel=channel, thread_ts=thread, response_url=body.get("response_url")
        )
        user = (body.get("user") or {}).get("id", "")
        await deps.engine.handle(Incoming(key, user, choice=action.get("value", "")), responder)

    app.action(re.compile(rf"^{CHOICE_ACTION}_\d+$"))(on_choice)
