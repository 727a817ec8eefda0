"""Shows engine replies in Slack: one message posted, then updated in place, in a thread.

A slash command has no thread yet, so its first reply becomes the thread's root; a mention
replies in the mention's thread. Content that does not fit one message goes into thread
replies. When the bot is not in the channel, the reply goes through the command's
`response_url` with a note on how to invite the bot.
"""

from __future__ import annotations

from collections.abc import Sequence

import structlog
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.async_client import AsyncWebhookClient

from bot.conversation import EvidenceReply, Notice, Question, Reply, ReportReply
from bot.render import blocks
from bot.render.blocks import SlackMessage

__all__ = ["SlackResponder", "to_slack"]

CHOICE_ACTION = "runai_why_choice"
_EVIDENCE_CHUNK = 2_500  # characters of evidence per message, under a section's 3,000
_NOT_MEMBER = frozenset({"not_in_channel", "channel_not_found"})
INVITE_HINT = (
    "I am not a member of this channel, so I cannot answer in a thread here. "
    "Invite me with `/invite @runai-why`, then ask again."
)


def to_slack(reply: Reply) -> list[SlackMessage]:
    """Render an engine reply as one or more Slack messages (the first is the main one)."""
    match reply:
        case ReportReply():
            return blocks.render_report(reply.report, notes=reply.notes)
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
        response_url: str | None = None,
    ) -> None:
        self._client = client
        self._channel = channel
        self._thread_ts = thread_ts
        self._response_url = response_url
        self._hinted = False
        self._log = structlog.get_logger(__name__)

    def thread(self) -> str | None:
        """The thread the conversation lives in (a slash command's root once posted)."""
        return self._thread_ts

    async def post(self, reply: Reply) -> str:
        """Post `reply` (in the thread, or as a new root); returns the main message's ts."""
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
        if self._thread_ts is None:
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
        await self._post_overflow(overflow)

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
