"""A responder that locks the thread its first post creates (a slash command's new thread)."""

from __future__ import annotations

from contextlib import AsyncExitStack
from dataclasses import replace

import structlog

from bot.conversation.model import Reply, ThreadKey
from bot.conversation.replying import Responder
from bot.conversation.store import StateStore, StoreUnavailable

__all__ = ["LockingResponder"]


class LockingResponder:
    """A responder that also locks the thread its first post creates (a slash command's root).

    The state is saved under that thread at the end of the turn; a click on a question the
    turn showed waits for the lock instead of finding no state ("lost context").
    """

    def __init__(
        self, inner: Responder, key: ThreadKey, store: StateStore, locks: AsyncExitStack
    ) -> None:
        self._inner, self._key, self._store, self._locks = inner, key, store, locks
        self._locked = False

    def thread(self) -> str | None:
        """The inner responder's thread."""
        return self._inner.thread()

    async def post(self, reply: Reply) -> str:
        """Post, and lock the thread the first post created."""
        ref = await self._inner.post(reply)
        thread = self._inner.thread()
        if not self._locked and thread not in {None, self._key.thread}:
            self._locked = True
            lock = self._store.lock(replace(self._key, thread=thread))
            try:
                await self._locks.enter_async_context(lock)
            except StoreUnavailable as error:  # shown already: answer on, unlocked
                structlog.get_logger(__name__).warning("thread_lock_failed", error=str(error))
        return ref

    async def update(self, ref: str, reply: Reply) -> None:
        """Update through the inner responder."""
        await self._inner.update(ref, reply)
