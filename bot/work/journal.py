"""A responder that records what it shows, so another attempt of the same item shows it once.

Each public post of an item is numbered. The first attempt records the message each number
became (and the thread a slash command's first post created); a later attempt (a reclaim
after a crash) that reaches the same number updates that message instead of posting a new
one, and leaves a progress placeholder standing as it is. Private replies are not recorded:
only the asker sees them, and a second attempt may repeat one. Posts to the request's
`response_url` (Slack takes five) are counted before they are made, a public reply posted
there instead (the bot is not in the channel) with them, so a later attempt fits what is
left and does not post that reply's placeholder again.
"""

from __future__ import annotations

import structlog

from bot.conversation import Notice, Reply, Responder
from bot.conversation.store import StoreUnavailable
from bot.work.queue import Journal, JournalState, ShownPost

__all__ = ["JournaledResponder"]


def _progress(reply: Reply) -> bool:
    return isinstance(reply, Notice) and reply.progress


class JournaledResponder:
    """Wraps a platform responder with the item's journal (`state`: what was shown before)."""

    def __init__(self, inner: Responder, journal: Journal, state: JournalState) -> None:
        self._inner = inner
        self._journal = journal
        self._shown = list(state.posts)
        self._next = 0
        self._placeholders = {p.ref for p in state.posts if p.progress}
        self._posting: tuple[int, bool] | None = None
        self._sent_for_good = False  # an earlier attempt's reply went where nothing is replaced
        self._log = structlog.get_logger(__name__)

    async def posted(self, ref: str) -> None:
        """Record the post under way as soon as the platform has it, before anything else.

        A front end calls this right after its main message exists (Slack: before the
        thread status and overflow replies), so a crash in between cannot lose the ref.
        """
        if self._posting is None or not ref:
            return
        (index, progress), self._posting = self._posting, None
        post = ShownPost(ref, progress=progress)
        if progress:
            self._placeholders.add(ref)
        try:
            await self._journal.record_post(index, post, self._inner.thread())
        except StoreUnavailable as error:
            self._log.warning("work_journal_failed", step="post", error=str(error))

    async def spent(self, uses: int, *, posting: bool) -> None:
        """Record `uses` posts to the request's `response_url`, before the front end makes them.

        `posting`: they are the public post under way, made there instead: it is journaled
        with them, with no ref (nothing to update), so a later attempt neither posts it
        again (its placeholder) nor counts it as unspent.
        """
        post = None
        if posting and self._posting is not None:
            (index, progress), self._posting = self._posting, None
            post = (index, ShownPost("", progress=progress))
            if progress:
                self._placeholders.add("")
        try:
            await self._journal.record_spent(uses, post)
        except StoreUnavailable as error:
            self._log.warning("work_journal_failed", step="spent", error=str(error))

    def thread(self) -> str | None:
        """See `Responder.thread`."""
        return self._inner.thread()

    async def post(self, reply: Reply) -> str:
        """Post `reply`, or, when an earlier attempt posted this one, update that message."""
        if reply.private:
            return await self._inner.post(reply)
        index, self._next = self._next, self._next + 1
        if index < len(self._shown):
            earlier = self._shown[index]
            if not earlier.ref and not earlier.progress:
                # Out through a `response_url` (no ref): it cannot be replaced, and is shown.
                self._sent_for_good = True
            elif not _progress(reply):
                await self.update(earlier.ref, reply)
            self._log.info("work_post_replayed", index=index, progress=_progress(reply))
            return earlier.ref
        self._posting = (index, _progress(reply))
        ref = await self._inner.post(reply)
        await self.posted(ref)  # unless the front end already did; "" = nothing to update
        self._posting = None
        return ref

    async def update(self, ref: str, reply: Reply) -> None:
        """Update `ref`; replacing the placeholder with the answer marks the item answered.

        No ref and no placeholder, after an earlier attempt's reply went out through a
        `response_url`: that reply stands (updating "" would post the answer a second time).
        """
        if not ref and self._sent_for_good and ref not in self._placeholders:
            self._log.info("work_update_skipped", reason="shown_through_response_url")
            return
        await self._inner.update(ref, reply)
        if ref in self._placeholders and not _progress(reply):
            try:
                await self._journal.mark_answered()
            except StoreUnavailable as error:
                self._log.warning("work_journal_failed", step="answered", error=str(error))
