"""A chat that records what it was shown, and handlers that answer in it, for worker tests."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable

from bot.conversation import Notice, Reply
from bot.work import Journal, JournaledResponder, JournalState, WorkItem

__all__ = ["Diagnoser", "Slackish", "until"]


def _text(reply: Reply) -> str:
    assert isinstance(reply, Notice)
    return reply.text


class Slackish:
    """A responder that records every message shown, as a chat platform would hold them."""

    def __init__(self) -> None:
        self.messages: dict[str, list[str]] = {}
        self._ts = itertools.count(1)

    def thread(self) -> str | None:
        return None

    async def post(self, reply: Reply) -> str:
        ref = f"17.{next(self._ts)}"
        self.messages[ref] = [_text(reply)]
        return ref

    async def update(self, ref: str, reply: Reply) -> None:
        self.messages[ref].append(_text(reply))


class Diagnoser:
    """A handler that posts a placeholder, waits for `release`, then answers in place.

    `running` counts its attempts under way; `most` is the most there ever were at once.
    """

    def __init__(self, chat: Slackish, *, fail: bool = False) -> None:
        self.chat = chat
        self.fail = fail
        self.release = asyncio.Event()
        self.started = asyncio.Event()
        self.ran: list[str] = []
        self.states: list[JournalState] = []
        self.gave_up: list[tuple[str, str, JournalState]] = []
        self.running = self.most = 0

    async def run(self, work: WorkItem, journal: Journal, state: JournalState) -> bool:
        self.ran.append(work.id)
        self.states.append(state)
        if self.fail:
            raise RuntimeError("boom")
        self.running += 1
        self.most = max(self.most, self.running)
        try:
            shown = JournaledResponder(self.chat, journal, state)
            ref = await shown.post(Notice("Diagnosing…", progress=True))
            self.started.set()
            await self.release.wait()
            await shown.update(ref, Notice("OOM_KILLED"))
        finally:
            self.running -= 1
        return True

    async def give_up(self, work: WorkItem, state: JournalState, text: str) -> None:
        self.gave_up.append((work.id, text, state))


async def until(condition: Callable[[], object], timeout_s: float = 10) -> None:
    """Wait for `condition`, failing after `timeout_s` (a hang guard, not a speed check)."""
    async with asyncio.timeout(timeout_s):
        while not condition():  # noqa: ASYNC110 - the queue has no event to wait on
            await asyncio.sleep(0.01)
