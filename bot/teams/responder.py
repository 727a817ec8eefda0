"""Shows engine replies in Teams: posted in the mention's thread, then updated in place.

A reply goes to the conversation of the inbound activity at its `serviceUrl` (a channel's
conversation ID carries `;messageid=<root>`), with `replyToId`; the "Diagnosing…" card is
replaced by the answer with a PUT on its activity. Private replies (help, hints, denials,
errors about the asker's input) go only to the asker: in a 1:1 chat that is the chat itself;
from a channel or group chat the bot opens (or reuses) its 1:1 chat with the asker, because
Teams has no generally available ephemeral message.

`TeamsResponder` is built from a `ReplyTarget`, plain serializable data, so a queued work
item can carry it and a worker rebuild the responder (`TeamsResponder.from_target`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import structlog
from pydantic import BaseModel, ConfigDict

from bot.conversation import Notice, Reply, ReportReply
from bot.teams.activity import CHAT_THREAD, Inbound
from bot.teams.connector import TeamsConnector
from bot.teams.messages import to_teams
from bot.teams.private_cards import Origin, PrivateCards
from diagnosis import Report

__all__ = ["ChartUrl", "ReplyTarget", "TeamsResponder"]

ChartUrl = Callable[[Report], Awaitable[str | None]]
"""Stores a report's memory chart and gives its signed, expiring URL (None: no chart)."""


class ReplyTarget(BaseModel):
    """Where and to whom one request's replies go; JSON-serializable (the work item's spec)."""

    model_config = ConfigDict(frozen=True)

    service_url: str
    conversation_id: str
    reply_to: str | None
    user_id: str
    aad_object_id: str | None = None
    tenant_id: str
    bot_id: str
    personal: bool = False

    @classmethod
    def of(cls, inbound: Inbound) -> ReplyTarget:
        """The target of replies to `inbound` (in its thread, to its sender)."""
        # A channel thread's replies answer its root; a chat's answer the message (or card).
        channel = inbound.conversation_type == "channel"
        reply_to = inbound.thread if channel else inbound.card_id or inbound.activity_id
        return cls(
            service_url=inbound.service_url,
            conversation_id=inbound.conversation_id,
            reply_to=reply_to,
            user_id=inbound.user_id,
            aad_object_id=inbound.aad_object_id,
            tenant_id=inbound.tenant_id,
            bot_id=inbound.bot_id,
            personal=inbound.personal,
        )


class TeamsResponder:
    """Implements the engine's `Responder` with Bot Connector sends and updates."""

    def __init__(
        self,
        connector: TeamsConnector,
        target: ReplyTarget,
        *,
        runai_url: str | None,
        chart_url: ChartUrl | None = None,
        private_cards: PrivateCards | None = None,
    ) -> None:
        self._connector = connector
        self.target = target
        self._runai_url = runai_url
        self._chart_url = chart_url
        self._private_cards = private_cards
        self._private_chat: str | None = target.conversation_id if target.personal else None
        self._log = structlog.get_logger(__name__)
        self.public = False
        """Whether anything was shown in the conversation for this request."""
        self.on_posted: Callable[[str], Awaitable[None]] | None = None
        """Called with a public post's activity ID as soon as it exists (the work journal)."""

    @classmethod
    def from_target(
        cls,
        connector: TeamsConnector,
        spec: dict[str, Any],
        *,
        runai_url: str | None,
        chart_url: ChartUrl | None = None,
    ) -> TeamsResponder:
        """Rebuild a responder from `ReplyTarget.model_dump()` (a queued work item)."""
        target = ReplyTarget.model_validate(spec)
        return cls(connector, target, runai_url=runai_url, chart_url=chart_url)

    def thread(self) -> str | None:
        """Teams threads exist before the bot replies: the incoming message's own thread."""
        return None

    async def post(self, reply: Reply) -> str:
        """Post `reply` in the thread (or privately); returns the main activity's id."""
        activities = await self._render(reply)
        if reply.private and not self.target.personal:
            await self._private(activities)
            return ""
        t = self.target
        main, *overflow = activities
        ref = await self._connector.send(
            t.service_url, t.conversation_id, main, reply_to=t.reply_to
        )
        self.public = True
        if self.on_posted is not None:  # recorded before the overflow: a crash cannot lose it
            await self.on_posted(ref)
        await self._overflow(overflow)
        return ref

    async def update(self, ref: str, reply: Reply) -> None:
        """Replace the activity `ref` with `reply`; what does not fit follows as replies."""
        main, *overflow = await self._render(reply)
        t = self.target
        await self._connector.update(t.service_url, t.conversation_id, ref, main)
        self.public = True
        await self._overflow(overflow)

    async def _render(self, reply: Reply) -> list[dict[str, Any]]:
        """`reply` as activities; an answer with a memory series shows the bot-hosted chart.

        In place of "Diagnosing…" or posted privately (a 1:1 chat shows images too).
        """
        chart = None
        if self._chart_url is not None and isinstance(reply, ReportReply):
            chart = await self._chart_url(reply.report)
        return to_teams(reply, runai_url=self._runai_url, chart_url=chart)

    async def tell(self, text: str) -> None:
        """Show `text` to the asker only (errors, hints); never raises."""
        try:
            await self.post(Notice(text, private=True))
        except Exception:  # noqa: BLE001 - a failed private notice must not hide the first error
            self._log.warning("teams_private_reply_failed", exc_info=True)

    async def _overflow(self, activities: list[dict[str, Any]]) -> None:
        t = self.target
        for activity in activities:
            await self._connector.send(
                t.service_url, t.conversation_id, activity, reply_to=t.reply_to
            )

    async def _private(self, activities: list[dict[str, Any]]) -> None:
        """To the asker's 1:1 chat with the bot (opened once per request)."""
        t = self.target
        if self._private_chat is None:
            self._private_chat = await self._connector.personal_chat(
                t.service_url, bot_id=t.bot_id, user_id=t.user_id, tenant_id=t.tenant_id
            )
        for activity in activities:
            ref = await self._connector.send(t.service_url, self._private_chat, activity)
            if self._private_cards is not None and ref and _has_buttons(activity):
                # A click on it arrives from the 1:1 chat: remember which thread it is about.
                await self._private_cards.remember(self._private_chat, ref, self._origin())

    def _origin(self) -> Origin:
        t = self.target
        channel, _, root = t.conversation_id.partition(";messageid=")
        return Origin(
            service_url=t.service_url,
            conversation_id=t.conversation_id,
            channel=channel,
            thread=root or CHAT_THREAD,
            conversation_type="channel" if root else "groupChat",
            user_id=t.user_id,
        )


def _has_buttons(activity: dict[str, Any]) -> bool:
    """Whether the activity's card has buttons: its actions, or an `ActionSet` in its body."""
    for attachment in activity.get("attachments") or ():
        card = attachment.get("content") if isinstance(attachment, dict) else None
        if not isinstance(card, dict):
            continue
        body = card.get("body") or ()
        if card.get("actions") or any(
            isinstance(part, dict) and part.get("type") == "ActionSet" for part in body
        ):
            return True
    return False
