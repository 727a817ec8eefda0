"""`/runai-why`: taken into the work queue, then acknowledged; the first reply anchors a thread.

The ack itself tells the asker, privately, what happened when it was not simply taken:
their place in the queue, a full queue, or Redis down (Slack does not retry commands). The
same invocation sent again (a replay of its signed body) is taken once, by its `trigger_id`.

`take_command` is the whole listener; Bolt calls it through `register`, and the gate calls it
directly for a warm process (`bot.slack.fastlane`), so both answer alike.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp

from bot.conversation import Incoming, Markup, ThreadKey
from bot.conversation.edges import not_taken_notice, taken_notice
from bot.slack.deps import SlackDeps
from bot.slack.intake import ResponderSpec, submit, trigger_key
from bot.work import QueueUnavailable

__all__ = ["COMMAND", "CommandAck", "register", "take_command"]

#: The one slash command the app declares (deploy/slack-app-manifest.yaml).
COMMAND = "/runai-why"


@dataclass(frozen=True)
class CommandAck:
    """What a slash command's acknowledgement says: nothing, or a private text."""

    text: str | None = None

    async def send(self, ack: AsyncAck) -> None:
        """Acknowledge through Bolt: `ack()`, or `ack(text=..., response_type="ephemeral")`."""
        if self.text is None:
            await ack()
        else:
            await ack(text=self.text, response_type="ephemeral")

    def body(self) -> str:
        """The HTTP body Bolt sends for that acknowledgement: empty, or the same JSON."""
        if self.text is None:
            return ""
        return json.dumps({"text": self.text, "response_type": "ephemeral"})


async def take_command(deps: SlackDeps, command: dict[str, Any]) -> CommandAck:
    """Take one verified `/runai-why` invocation into the queue; what its ack says."""
    channel = command["channel_id"]
    # A slash command has no thread yet: its key is the invocation; the responder's
    # first post becomes the thread root, and the engine stores the state under it.
    key = ThreadKey("slack", command["team_id"], channel, f"cmd-{command['trigger_id']}")
    spec = ResponderSpec(
        channel=channel,
        thread_ts=None,
        user=command["user_id"],
        response_url=command.get("response_url"),
    )
    text = command.get("text", "").strip() or "help"
    try:
        taken = await submit(
            deps.queue,
            kind="turn",
            incoming=Incoming(key, command["user_id"], text=text, markup=Markup.SLACK),
            spec=spec,
            dedupe=trigger_key(command["team_id"], command["trigger_id"]),
            dedupe_ttl_s=deps.dedupe_ttl_s,
            deadline_s=deps.queue_deadline_s,
        )
    except QueueUnavailable as error:
        return CommandAck(not_taken_notice(error))
    # None: taken, or a replay of one taken already: nothing to say
    return CommandAck(taken_notice(taken))


def register(app: AsyncApp, deps: SlackDeps) -> None:
    """Register the slash command listener."""

    async def runai_why(ack: AsyncAck, command: dict[str, Any]) -> None:
        await (await take_command(deps, command)).send(ack)

    app.command(COMMAND)(runai_why)
