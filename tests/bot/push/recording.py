"""A poster that records what a pushed item shows, message by message, thread by thread."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from bot.conversation import Reply, Responder
from bot.push import Target

__all__ = ["Posted", "RecordingPoster"]


@dataclass
class Posted:
    """One message: its ref, the thread it is in (None: a root), and what it says now."""

    ref: str
    thread: str | None
    reply: Reply
    updates: int = 0


@dataclass
class RecordingPoster:
    """`Poster` for tests; `fail_after` posts, the next post raises (a crash mid-item)."""

    messages: list[Posted] = field(default_factory=list)
    fail_after: int | None = None
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def responder(
        self, target: Target, thread: str | None, on_posted: Callable[[str], Awaitable[None]]
    ) -> Responder:
        del target
        return _Recorder(self, thread, on_posted)

    def click_thread(self, target: Target, thread: str | None) -> str | None:
        """As Slack: a DM's top level (a channel `D…`) is its one conversation, `im`."""
        return "im" if thread is None and target.channel.startswith("D") else thread

    def roots(self) -> list[Posted]:
        return [m for m in self.messages if m.thread is None]

    def in_thread(self, thread: str) -> list[Posted]:
        return [m for m in self.messages if m.thread == thread]


class CrashedError(RuntimeError):
    """The poster's process "died" before this post."""


class _Recorder:
    def __init__(
        self,
        poster: RecordingPoster,
        thread: str | None,
        on_posted: Callable[[str], Awaitable[None]],
    ) -> None:
        self._poster, self._thread, self._on_posted = poster, thread, on_posted
        self._root: str | None = None

    def thread(self) -> str | None:
        return self._thread or self._root

    async def post(self, reply: Reply) -> str:
        poster = self._poster
        if poster.fail_after is not None and len(poster.messages) >= poster.fail_after:
            raise CrashedError
        ref = f"m{next(poster._ids)}"
        poster.messages.append(Posted(ref, self._thread, reply))
        if self._thread is None:
            self._root = ref
        await self._on_posted(ref)
        return ref

    async def update(self, ref: str, reply: Reply) -> None:
        for message in self._poster.messages:
            if message.ref == ref:
                message.reply = reply
                message.updates += 1
