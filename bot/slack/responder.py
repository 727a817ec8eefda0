"""Shows engine replies in Slack: one message posted, then updated in place, in a thread.

A slash command has no thread yet, so its first reply becomes the thread's root; a mention
replies in the mention's thread; a direct message is answered in the conversation itself.
Content that does not fit one message goes into thread replies. Private replies (help,
hints, errors about the asker's input) are shown only to the asker: through the request's
`response_url` as an ephemeral message when there is one, else `chat.postEphemeral`. When
the bot is not in the channel, the reply goes through `response_url` with a note on how to
invite the bot.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import structlog
from slack_sdk.errors import SlackApiError
from slack_sdk.models.blocks import (
    ContextBlock,
    MarkdownTextObject,
    PlainTextObject,
    SectionBlock,
)
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.async_client import AsyncWebhookClient

from bot.conversation import Choice, EvidenceReply, Notice, Question, Reply, ReportReply
from bot.render import blocks
from bot.render.blocks import SlackMessage
from bot.render.slack_text import safe

__all__ = ["SlackResponder", "picked_blocks", "to_slack"]

CHOICE_ACTION = "runai_why_choice"
_EVIDENCE_CHUNK = 2_500  # characters of evidence per message, under a section's 3,000
_NOT_MEMBER = frozenset({"not_in_channel", "channel_not_found"})
INVITE_HINT = (
    "I am not a member of this channel, so I cannot answer in a thread here. "
    "Invite me with `/invite @runai-why`, then ask again."
)


_USER_ID = re.compile(r"^[UW][A-Z0-9]{1,20}$")
_LABEL_MAX = 150


def picked_blocks(blocks: list[dict[str, Any]], user: str, label: str) -> list[dict[str, Any]]:
    """A question's blocks with its buttons replaced by who picked what.

    Only a real Slack user ID becomes a mention, and the label is plain text, so nothing in
    it can format or mention.
    """
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


def to_slack(reply: Reply) -> list[SlackMessage]:
    """Render an engine reply as one or more Slack messages (the first is the main one)."""
    match reply:
        case ReportReply():
            return blocks.render_report(reply.report, notes=reply.notes)
        case Question(picked=Choice() as picked):
            question = blocks.render_question(reply.text, [], block_id_prefix=CHOICE_ACTION)
            shown = picked_blocks(question.blocks, reply.asker or "", picked.label)
            label = safe(picked.label, _LABEL_MAX, single_line=True)
            return [SlackMessage(text=f"{question.text}\n→ {label}", blocks=shown)]
        case Question():
            choices = [
                blocks.Choice(c.label, c.value, f"{CHOICE_ACTION}_{i}")
                for i, c in enumerate(reply.choices)
            ]
            return [blocks.render_question(reply.text, choices, block_id_prefix=CHOICE_ACTION)]
        case Notice():
            return [blocks.render_notice(reply.text)]
        case EvidenceReply():  # plain until bot/render has its own evidence layout
            lines = [f"• {e.text} ({e.source})" for e in reply.report.evidence]
            lines += [f"• not available: {m}" for m in reply.report.missing]
            chunks: list[list[str]] = [[]]
            for line in lines or ["• no evidence"]:
                if sum(len(x) + 1 for x in chunks[-1]) + len(line) > _EVIDENCE_CHUNK:
                    chunks.append([])
                chunks[-1].append(line)
            return [blocks.render_notice("\n".join(chunk)) for chunk in chunks if chunk]


class SlackResponder:
    """Implements the engine's `Responder` with `chat.postMessage` and `chat.update`."""

    def __init__(
        self,
        client: AsyncWebClient,
        *,
        channel: str,
        thread_ts: str | None,
        user: str,
        response_url: str | None = None,
        threaded: bool = True,
    ) -> None:
        """Answer in `channel`/`thread_ts`; private replies go to `user` only.

        `threaded=False` keeps a direct message's answers in the conversation itself
        instead of starting a thread.
        """
        self._client = client
        self._channel = channel
        self._thread_ts = thread_ts
        self._user = user
        self._response_url = response_url or None
        self._threaded = threaded
        self._hinted = False
        self._log = structlog.get_logger(__name__)
        self.public = False
        """Whether anything was shown in the channel for this request (posted or updated)."""

    def thread(self) -> str | None:
        """The thread the conversation lives in (a slash command's root once posted)."""
        return self._thread_ts if self._threaded else None

    async def tell(self, text: str, *, ours: bool = False) -> None:
        """Show `text` to the asker only (errors, hints and denials); never raises.

        Text is escaped like any notice unless `ours`: written by the bot with nothing from
        upstream in it, so that a `<@U…>` mention in it shows as a name.
        """
        message = (
            SlackMessage(
                text=text, blocks=[SectionBlock(text=MarkdownTextObject(text=text)).to_dict()]
            )
            if ours
            else blocks.render_notice(text)
        )
        try:
            await self._private(message)
        except Exception:  # noqa: BLE001 - a failed private notice must not hide the first error
            self._log.warning("slack_private_reply_failed", exc_info=True)

    async def post(self, reply: Reply) -> str:
        """Post `reply` (in the thread, or as a new root); returns the main message's ts.

        A private reply goes to the asker only and returns "" (it is never updated).
        """
        if reply.private:
            await self._private(*to_slack(reply))
            return ""
        main, *overflow = to_slack(reply)
        try:
            response = await self._client.chat_postMessage(
                channel=self._channel,
                thread_ts=self._thread_ts,
                text=main.text,
                blocks=main.blocks,
                unfurl_links=False,
                unfurl_media=False,
            )
        except SlackApiError as error:
            if error.response.get("error") in _NOT_MEMBER and self._response_url:
                await self._via_response_url([main, *overflow])
                return ""
            raise
        ts = str(response["ts"])
        self.public = True
        if self._thread_ts is None and self._threaded:
            self._thread_ts = ts
        await self._post_overflow(overflow)
        return ts

    async def update(self, ref: str, reply: Reply) -> None:
        """Replace message `ref` with `reply`; overflow goes into the thread."""
        main, *overflow = to_slack(reply)
        if not ref:  # posted through response_url: nothing to update, post the result there
            await self._via_response_url([main, *overflow])
            return
        await self._client.chat_update(
            channel=self._channel, ts=ref, text=main.text, blocks=main.blocks
        )
        self.public = True
        await self._post_overflow(overflow)

    async def _private(self, *messages: SlackMessage) -> None:
        """Ephemeral to the asker: through `response_url` if there is one, else postEphemeral."""
        if self._response_url is not None:
            webhook = AsyncWebhookClient(self._response_url)
            for message in messages:
                await webhook.send(
                    text=message.text, blocks=message.blocks, response_type="ephemeral"
                )
            return
        for message in messages:
            await self._client.chat_postEphemeral(
                channel=self._channel,
                user=self._user,
                thread_ts=self._thread_ts,
                text=message.text,
                blocks=message.blocks,
            )

    async def _post_overflow(self, messages: Sequence[SlackMessage]) -> None:
        for message in messages:
            await self._client.chat_postMessage(
                channel=self._channel,
                thread_ts=self._thread_ts,
                text=message.text,
                blocks=message.blocks,
                unfurl_links=False,
                unfurl_media=False,
            )

    async def _via_response_url(self, messages: Sequence[SlackMessage]) -> None:
        if self._response_url is None:
            return
        webhook = AsyncWebhookClient(self._response_url)
        if not self._hinted:
            messages = [*messages, blocks.render_notice(INVITE_HINT)]
            self._hinted = True
        for message in messages:
            await webhook.send(text=message.text, blocks=message.blocks, response_type="ephemeral")
        self._log.info("slack_replied_via_response_url", channel=self._channel)
