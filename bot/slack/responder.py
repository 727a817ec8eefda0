"""Shows engine replies in Slack: one message posted, then updated in place, in a thread.

A slash command has no thread yet, so its first reply becomes the thread's root; a mention
replies in the mention's thread; a direct message is answered in the conversation itself.
Content that does not fit one message goes into thread replies. Private replies (help,
hints, errors about the asker's input) are shown only to the asker: through the request's
`response_url` as an ephemeral message when there is one, else `chat.postEphemeral`. When
the bot is not in the channel, the reply goes through `response_url` with a note on how to
invite the bot. Slack takes five posts to a `response_url` (`bot.slack.webhook`): a reply
sent there is rendered into the posts left, the note joined onto its last message when it
fits, and a post Slack refuses is logged and raised, never taken as shown.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any

import structlog
from slack_sdk.errors import SlackApiError
from slack_sdk.models.blocks import MarkdownTextObject, SectionBlock
from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation import Notice, Reply, ReportReply
from bot.ops.observe import ReplyClock
from bot.slack.charts import upload_chart
from bot.slack.messages import CHOICE_ACTION, picked_blocks, to_slack
from bot.slack.orphans import tag
from bot.slack.render import blocks
from bot.slack.render.blocks import SlackMessage
from bot.slack.render.progress import CLEAR, ThreadStatus, thread_status
from bot.slack.webhook import ResponseUrl, ResponseUrlRefused, Spend, fold

__all__ = ["CHOICE_ACTION", "SlackResponder", "picked_blocks", "to_slack"]

_NOT_MEMBER = frozenset({"not_in_channel", "channel_not_found"})
INVITE_HINT = (
    "I am not a member of this channel, so I cannot answer in a thread here. "
    "Invite me with `/invite @runai-why`, then ask again."
)


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
        runai_url: str | None = None,
        response_url_spent: int = 0,
        invite_shown: bool = False,
    ) -> None:
        """Answer in `channel`/`thread_ts`; private replies go to `user` only.

        `threaded=False` keeps a direct message's answers in the conversation itself
        instead of starting a thread. `runai_url` is the configured control plane, for the
        report's "Open in Run:ai" link (never a URL from upstream). `response_url_spent`:
        posts to `response_url` made before this responder (`bot.slack.webhook`);
        `invite_shown`: a reply sent there before it carried the note on inviting the bot.
        """
        self._client = client
        self._channel = channel
        self._thread_ts = thread_ts
        self._user = user
        self._response_url = (
            ResponseUrl(response_url, client, spent=response_url_spent, on_spend=self._spend)
            if response_url
            else None
        )
        self._threaded = threaded
        self._runai_url = runai_url
        self._status: asyncio.Future[bool] | None = None
        self._hinted = invite_shown
        self._log = structlog.get_logger(__name__)
        self.public = False
        """Whether anything was shown in the channel for this request (posted or updated)."""
        self.on_posted: Callable[[str], Awaitable[None]] | None = None
        """Called with a public post's ts as soon as Slack has it (the work item's journal)."""
        self.on_spent: Spend | None = None
        """Told of posts to `response_url` before they are made (the work item's journal),
        and whether they are the public post under way, made there instead."""
        self.item_id: str | None = None
        """The queued item answered: its public posts carry it (`bot.slack.orphans`)."""

    async def _spend(self, uses: int, *, posting: bool) -> None:
        if self.on_spent is not None:
            await self.on_spent(uses, posting=posting)

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
        A report's render and post times are recorded (`bot.ops.observe.ReplyClock`). A report
        posted as it is (a pushed answer, with no "Diagnosing …" to replace) gets its chart
        uploaded into its thread afterwards, as `update` does for an asked one.
        """
        with self._clocked(reply) as clock:
            ts = await self._post(reply, clock)
        if ts and isinstance(reply, ReportReply):
            thread = self._thread_ts or ts
            await upload_chart(self._client, reply.report, channel=self._channel, thread_ts=thread)
        return ts

    @contextmanager
    def _clocked(self, reply: Reply) -> Iterator[ReplyClock | None]:
        clock = ReplyClock() if isinstance(reply, ReportReply) else None
        try:
            yield clock
        finally:
            if clock is not None:
                clock.done()

    @staticmethod
    def _rendering(clock: ReplyClock | None) -> AbstractContextManager[None]:
        return clock.rendering() if clock is not None else nullcontext()

    async def _post(self, reply: Reply, clock: ReplyClock | None) -> str:
        if reply.private:
            with self._rendering(clock):
                messages = to_slack(reply, max_messages=self._private_room())
            await self._private(*messages)
            return ""
        with self._rendering(clock):
            main, *overflow = to_slack(reply, runai_url=self._runai_url)
        try:
            response = await self._client.chat_postMessage(
                channel=self._channel,
                thread_ts=self._thread_ts,
                text=main.text,
                blocks=main.blocks,
                unfurl_links=False,
                unfurl_media=False,
                metadata=self._tag(reply),
            )
        except SlackApiError as error:
            if error.response.get("error") in _NOT_MEMBER and self._response_url:
                await self._via_response_url(reply, clock, posting=True)
                return ""
            raise
        ts = str(response["ts"])
        self.public = True
        if self._thread_ts is None and self._threaded:
            self._thread_ts = ts
        if self.on_posted is not None:
            await self.on_posted(ts)
        await self._post_overflow(overflow)
        if isinstance(reply, Notice) and reply.progress:  # not waited for: nothing needs it
            self._status = asyncio.ensure_future(self._set_status(thread_status(reply.text)))
        return ts

    def _tag(self, reply: Reply) -> dict[str, Any] | None:
        if self.item_id is None:
            return None
        return tag(self.item_id, progress=isinstance(reply, Notice) and reply.progress)

    async def update(self, ref: str, reply: Reply) -> None:
        """Replace message `ref` with `reply`; overflow goes into the thread.

        The answer goes out first: its chat.update is the one call it waits on (the
        progress status is cleared alongside), and it shows the memory sparkline. A report
        with a memory series then gets its chart uploaded into the thread, below the
        answer; when that fails, it is logged and the answer stands as it is.
        """
        with self._clocked(reply) as clock:
            await self._update(ref, reply, clock)
        if ref and isinstance(reply, ReportReply):
            await upload_chart(
                self._client, reply.report, channel=self._channel, thread_ts=self._thread_ts
            )

    async def _update(self, ref: str, reply: Reply, clock: ReplyClock | None) -> None:
        if not ref:  # posted through response_url: nothing to update, post the result there
            await self._via_response_url(reply, clock)
            return
        with self._rendering(clock):
            main, *overflow = to_slack(reply, runai_url=self._runai_url)
        update = self._client.chat_update(
            channel=self._channel, ts=ref, text=main.text, blocks=main.blocks
        )
        await asyncio.gather(update, self._clear_status())
        self.public = True
        await self._post_overflow(overflow)

    async def _clear_status(self) -> None:
        """Clear the progress status set with the placeholder, if it was set; never raises."""
        status, self._status = self._status, None
        try:
            if status is not None and await status:
                await self._set_status(CLEAR)
        except Exception:  # noqa: BLE001 - a status is cosmetic: the answer must not fail on it
            self._log.warning("slack_status_not_cleared", exc_info=True)

    async def _set_status(self, status: ThreadStatus) -> bool:
        """`assistant.threads.setStatus` in the thread; False where the workspace refuses it."""
        if self._thread_ts is None:
            return False
        try:
            await self._client.assistant_threads_setStatus(
                channel_id=self._channel,
                thread_ts=self._thread_ts,
                status=status.status,
                loading_messages=list(status.loading_messages) or None,
            )
        except SlackApiError as error:  # e.g. missing_scope: the placeholder shows progress.
            self._log.info("slack_status_unavailable", error=error.response.get("error"))
            return False
        return True

    def _private_room(self) -> int | None:
        """How many messages a private reply may take: the posts `response_url` has left.

        None (no limit) when it has none left, or there is none: chat.postEphemeral then.
        """
        url = self._response_url
        return url.left if url is not None and url.left > 0 else None

    async def _private(self, *messages: SlackMessage) -> None:
        """Ephemeral to the asker: through `response_url` while it takes them, else postEphemeral.

        A `response_url` Slack refused, or whose posts are used up, is not tried again.
        """
        url = self._response_url
        if url is not None and 0 < len(messages) <= url.left:
            try:
                await url.send(messages)
            except ResponseUrlRefused:
                pass  # logged; chat.postEphemeral may still reach the asker
            else:
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

    async def _via_response_url(
        self, reply: Reply, clock: ReplyClock | None, *, posting: bool = False
    ) -> None:
        """`reply` to the asker through `response_url`, in the posts it has left.

        The first time, with the note on how to invite the bot: joined onto the last
        message when it fits there, else a message of its own. `posting`: it is a public
        post's, made there instead (`on_spent` is told so).

        Raises:
            ResponseUrlRefused: no post is left, or Slack refused one (logged).
        """
        url = self._response_url
        if url is None:
            return
        room = max(url.left, 1)  # none left: `send` logs and raises
        hinted = self._hinted
        with self._rendering(clock):
            messages = to_slack(reply, runai_url=self._runai_url, max_messages=room)
            if not hinted:
                hint = blocks.render_notice(INVITE_HINT)
                joined = fold(messages, hint)
                if joined is not None:
                    messages, hinted = joined, True
                elif room > 1:
                    shorter = to_slack(reply, runai_url=self._runai_url, max_messages=room - 1)
                    messages, hinted = [*shorter, hint], True
        await url.send(messages, posting=posting)
        self._hinted = hinted
        self._log.info("slack_replied_via_response_url", channel=self._channel, posts=len(messages))
