"""What the Slack front end listens to: one table of routes, read by Bolt and by the fast lane.

A route names one kind of request (a slash command, an event type, a button's `action_id`,
a message shortcut's `callback_id`) and the listener that takes it. Each listener is a plain
function of the request (`SlackRequest`) that returns what its acknowledgement says. Bolt
gets every route registered as a listener (`register`); the gate's fast lane finds the
same route for a verified body (`find`), matching it the way Bolt's matchers do, and calls
the same function. So neither way has rules of its own about what a request means.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltContext
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.request.payload_utils import (
    is_block_actions,
    is_event,
    is_message_shortcut,
    is_slash_command,
)
from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.deps import SlackDeps
from bot.slack.payloads import member

__all__ = ["Ack", "Listener", "Route", "SlackRequest", "find", "register", "retry_num"]


@dataclass(frozen=True)
class SlackRequest:
    """One verified request as a listener needs it, however it arrived."""

    body: dict[str, Any]
    client: AsyncWebClient
    """The Web API client with the bot token."""
    bot_user_id: str | None
    retry: str | None = None
    """Slack's `X-Slack-Retry-Num`, on a delivery Slack is repeating."""

    @property
    def first_delivery(self) -> bool:
        """Not one of Slack's retries."""
        return self.retry is None


@dataclass(frozen=True)
class Ack:
    """What an acknowledgement says: nothing, or a private text (a slash command's)."""

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


Listener = Callable[[SlackDeps, SlackRequest], Awaitable[Ack]]
Kind = Literal["command", "event", "action", "shortcut"]


@dataclass(frozen=True)
class Route:
    """One kind of request and its listener."""

    kind: Kind
    name: str | re.Pattern[str]
    """The command, event type, `action_id` or `callback_id`: exact, or a pattern searched."""
    listener: Listener

    def _named(self, value: object) -> bool:
        if not isinstance(value, str):
            return False
        if isinstance(self.name, str):
            return value == self.name
        return self.name.search(value) is not None

    def matches(self, body: dict[str, Any]) -> bool:
        """Whether `body` is this route's: Bolt's own test of its kind, then its name."""
        if self.kind == "command":  # Bolt: any body with a `command` is a slash command
            return is_slash_command(body) and self._named(body["command"])
        if self.kind == "event":
            return is_event(body) and self._named(member(body["event"]).get("type"))
        if self.kind == "action":  # Bolt matches a click by its first action
            actions = body.get("actions")
            first = member(actions[0]) if isinstance(actions, list) and actions else {}
            return is_block_actions(body) and self._named(first.get("action_id"))
        return is_message_shortcut(body) and self._named(body["callback_id"])

    def register(self, app: AsyncApp, deps: SlackDeps) -> None:
        """Register the listener with Bolt, which then acknowledges with what it returns."""

        async def listener(
            ack: AsyncAck,
            body: dict[str, Any],
            client: AsyncWebClient,
            context: AsyncBoltContext,
            request: AsyncBoltRequest,
        ) -> None:
            asked = SlackRequest(body, client, context.bot_user_id, retry_num(request))
            await (await self.listener(deps, asked)).send(ack)

        on = {
            "command": app.command,
            "event": app.event,
            "action": app.action,
            "shortcut": app.message_shortcut,
        }[self.kind]
        on(self.name)(listener)


def retry_num(request: AsyncBoltRequest) -> str | None:
    """Slack's `X-Slack-Retry-Num` (Bolt keeps header values as lists)."""
    return next(iter(request.headers.get("x-slack-retry-num") or []), None)


def find(routes: Sequence[Route], body: dict[str, Any]) -> Route | None:
    """The first route `body` matches, as Bolt tries its listeners in order; None if none."""
    return next((r for r in routes if r.matches(body)), None)


def register(routes: Sequence[Route], app: AsyncApp, deps: SlackDeps) -> None:
    """Register every route with Bolt, in order."""
    for route in routes:
        route.register(app, deps)
