"""`/runai-why`: acknowledge at once, then converse; the first reply anchors a thread."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation import Incoming, ThreadKey
from bot.slack.deps import SlackDeps
from bot.slack.responder import SlackResponder
from bot.slack.turns import converse

__all__ = ["register"]


def register(app: AsyncApp, deps: SlackDeps) -> None:
    """Register the slash command listener."""

    async def runai_why(ack: AsyncAck, command: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        channel = command["channel_id"]
        # A slash command has no thread yet: its key is the invocation; the responder's
        # first post becomes the thread root, and the engine stores the state under it.
        key = ThreadKey("slack", command["team_id"], channel, f"cmd-{command['trigger_id']}")
        responder = SlackResponder(
            client,
            channel=channel,
            thread_ts=None,
            user=command["user_id"],
            response_url=command.get("response_url"),
            runai_url=deps.runai_url,
        )
        text = command.get("text", "").strip() or "help"
        await converse(deps, Incoming(key, command["user_id"], text=text), responder)

    app.command("/runai-why")(runai_why)
