"""A pushed item's posts, numbered in its journal, so another attempt shows each one once.

An item may post in several threads (a storm's summary, then each answer in its thread), so
the numbering spans responders: the n-th post of a later attempt (a reclaim after a crash)
updates the message the n-th post of the first attempt became, instead of posting again.
"""

from __future__ import annotations

import structlog

from bot.conversation import Reply, Responder
from bot.conversation.store import StoreUnavailable
from bot.push.item import Target
from bot.push.posters import Poster
from bot.work import Journal, JournalState, ShownPost

__all__ = ["JournaledPosts"]


class JournaledPosts:
    """Posts through a platform's poster, recording each one in the item's journal."""

    def __init__(
        self, poster: Poster, target: Target, journal: Journal, state: JournalState
    ) -> None:
        self._poster = poster
        self._target = target
        self._journal = journal
        self._shown = list(state.posts)
        self._next = 0
        self.replayed = 0
        """How many posts an earlier attempt had already made (updated, not posted again)."""
        self._log = structlog.get_logger(__name__)

    @property
    def untouched(self) -> bool:
        """Nothing was posted for this item yet, by this attempt or an earlier one."""
        return self._next == 0 and not self._shown

    def click_thread(self, thread: str | None) -> str | None:
        """See `Poster.click_thread`, in this item's channel."""
        return self._poster.click_thread(self._target, thread)

    async def post(self, reply: Reply, *, thread: str | None) -> tuple[str, str]:
        """Post `reply` in `thread` (None: a new root); returns (its ref, its thread)."""
        index, self._next = self._next, self._next + 1
        recorded = False

        async def record(ref: str) -> None:
            nonlocal recorded
            if recorded or not ref:
                return
            recorded = True
            try:
                await self._journal.record_post(index, ShownPost(ref, progress=False), thread)
            except StoreUnavailable as error:
                self._log.warning("push_journal_failed", error=str(error))

        responder: Responder = self._poster.responder(self._target, thread, record)
        if index < len(self._shown):
            earlier = self._shown[index].ref
            await responder.update(earlier, reply)
            self.replayed += 1
            self._log.info("push_post_replayed", index=index)
            return earlier, thread or earlier
        ref = await responder.post(reply)
        await record(ref)
        return ref, thread or responder.thread() or ref
