"""The work queue in one process's memory, for one-process mode (no `REDIS_URL`).

Same interface and rules as the Redis queue (dedupe + cap + bound + append in one step:
people's requests and pushed items bounded apart, each asker capped; journals, reclaim of idle
items), so the Slack front end and the worker do not know which one they have. Nothing survives
a restart: that is what REDIS_URL is for.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.work.item import Delivery, Enqueued, Intake, WorkItem
from bot.work.queue import JournalState, ShownPost

__all__ = ["MemoryJournal", "MemoryWorkQueue"]


@dataclass
class _Entry:
    raw: str
    asker: str | None = None
    pushed: bool = False
    owner: str | None = None
    delivered_at: float = 0.0
    times: int = 0
    earlier: int = 0


@dataclass
class MemoryJournal:
    """An item's journal, in memory."""

    posts: dict[int, ShownPost] = field(default_factory=dict)
    thread: str | None = None
    answered: bool = False
    entry: str | None = None
    attempts: int = 0
    spent: int = 0

    async def load(self) -> JournalState:
        """See `Journal.load`."""
        ordered = tuple(itertools.takewhile(bool, (self.posts.get(i) for i in itertools.count())))
        return JournalState(
            ordered,  # type: ignore[arg-type]
            self.thread,
            self.answered,
            self.attempts,
            spent=self.spent,
        )

    async def begin(self, entry_id: str) -> JournalState:
        """See `Journal.begin` (in memory nothing is lost: a gone entry is always stale)."""
        self.entry, self.attempts = entry_id, self.attempts + 1
        return await self.load()

    def runs_from(self, entry_id: str) -> bool:
        """Not answered, and no attempt of the item began from another entry than `entry_id`."""
        return not self.answered and self.entry in {None, entry_id}

    async def record_post(self, index: int, post: ShownPost, thread: str | None) -> None:
        """See `Journal.record_post`."""
        self.posts[index] = post
        self.thread = thread or self.thread

    async def record_spent(self, uses: int, post: tuple[int, ShownPost] | None = None) -> None:
        """See `Journal.record_spent`."""
        self.spent += uses
        if post is not None:
            self.posts[post[0]] = post[1]

    async def mark_answered(self) -> None:
        """See `Journal.mark_answered`."""
        self.answered = True


class MemoryWorkQueue:
    """`WorkQueue` in memory: bounded as the Redis one, deduplicated for `dedupe_ttl_s`.

    The counts behind the bounds are the entries themselves: an item stops counting when its
    entry goes (finished or dead-lettered), and a hand-back's copy counts as it did.
    """

    def __init__(
        self, *, max_items: int, max_pushed: int | None = None, max_per_asker: int | None = None
    ) -> None:
        """See `RedisWorkQueue` for the bounds."""
        self._max_items = max_items
        self._max_pushed = max_items if max_pushed is None else max_pushed
        self._max_per_asker = max_per_asker
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._seen: dict[str, float] = {}
        self._journals: dict[str, MemoryJournal] = {}
        self._ids = itertools.count(1)
        self._arrived = asyncio.Event()
        #: Entries `reclaim` saw idle: when it saw them, and their delivery time then.
        self._idle: dict[str, tuple[float, float]] = {}
        self.dead: list[tuple[str, str]] = []

    def journal(self, item_id: str) -> MemoryJournal:
        """See `WorkQueue.journal`."""
        return self._journals.setdefault(item_id, MemoryJournal())

    async def enqueue(self, item: WorkItem, *, dedupe: str, dedupe_ttl_s: int) -> Enqueued:
        """See `WorkQueue.enqueue`."""
        now = time.monotonic()
        self._seen = {k: v for k, v in self._seen.items() if v > now}
        if dedupe in self._seen:
            return Enqueued(Intake.DUPLICATE)
        depth = len(self._entries)
        asker = item.asker if self._max_per_asker is not None else None
        if asker is not None and self._max_per_asker is not None:
            held = sum(1 for e in self._entries.values() if e.asker == asker)
            if held >= self._max_per_asker:
                return Enqueued(Intake.CAPPED, depth=depth, held=held)
        lane = sum(1 for e in self._entries.values() if e.pushed == item.pushed)
        if lane >= (self._max_pushed if item.pushed else self._max_items):
            return Enqueued(Intake.FULL, depth=depth)
        self._seen[dedupe] = now + dedupe_ttl_s
        ahead = sum(1 for e in self._entries.values() if e.owner is None)
        self._entries[f"{next(self._ids)}-0"] = _Entry(
            item.model_dump_json(), asker=asker, pushed=item.pushed
        )
        self._arrived.set()
        return Enqueued(Intake.ACCEPTED, ahead=ahead, depth=depth)

    async def take(self, consumer: str, count: int, block_s: float) -> list[Delivery]:
        """See `WorkQueue.take`."""
        taken = self._deliver(consumer, count)
        if not taken and block_s > 0:
            self._arrived.clear()
            try:
                async with asyncio.timeout(block_s):
                    await self._arrived.wait()
            except TimeoutError:
                return []
            taken = self._deliver(consumer, count)
        return taken

    def _deliver(self, consumer: str, count: int) -> list[Delivery]:
        taken: list[Delivery] = []
        for entry_id, entry in self._entries.items():
            if len(taken) >= count:
                break
            if entry.owner is None:
                self._own(entry, consumer)
                taken.append(self._delivery(entry_id, entry, reclaimed=False))
        return taken

    @staticmethod
    def _own(entry: _Entry, consumer: str) -> None:
        entry.owner, entry.delivered_at, entry.times = consumer, time.monotonic(), entry.times + 1

    @staticmethod
    def _delivery(entry_id: str, entry: _Entry, *, reclaimed: bool) -> Delivery:
        item = _item(entry.raw)
        return Delivery(
            entry_id,
            item,
            entry.times,
            reclaimed=reclaimed,
            raw=entry.raw,
            earlier=entry.earlier,
            asker=entry.asker,
            pushed=entry.pushed,
        )

    async def reclaim(self, consumer: str, min_idle_s: float, count: int) -> list[Delivery]:
        """See `WorkQueue.reclaim`: what an earlier call saw idle, if still untouched."""
        now = time.monotonic()
        taken: list[Delivery] = []
        for entry_id, (seen, delivered_at) in list(self._idle.items()):
            entry = self._entries.get(entry_id)
            if len(taken) < count and now - seen >= min_idle_s / 2 and entry is not None:
                if entry.owner is not None and entry.delivered_at == delivered_at:
                    self._own(entry, consumer)
                    taken.append(self._delivery(entry_id, entry, reclaimed=True))
                del self._idle[entry_id]
        cutoff = now - min_idle_s
        earlier, self._idle = self._idle, {}
        for entry_id, entry in self._entries.items():
            if len(self._idle) < count and entry.owner is not None and entry.delivered_at <= cutoff:
                sighting = earlier.get(entry_id)  # if still untouched, an earlier one proves more
                if sighting is None or sighting[1] != entry.delivered_at:
                    sighting = (now, entry.delivered_at)
                self._idle[entry_id] = sighting
        return taken

    async def heartbeat(self, consumer: str, held: Sequence[Delivery]) -> list[str]:
        """See `WorkQueue.heartbeat` (finishing drops the journal here: a gone one is stale)."""
        stale = []
        for delivery in held:
            entry = self._entries.get(delivery.entry_id)
            if entry is not None and entry.owner == consumer:
                entry.delivered_at = time.monotonic()
                continue
            journal = self._journals.get(delivery.item.id) if delivery.item else None
            if entry is not None or journal is None or not journal.runs_from(delivery.entry_id):
                stale.append(delivery.entry_id)
        return stale

    async def finish(self, delivery: Delivery, *, release: bool = False) -> None:
        """See `WorkQueue.finish` (the journal is dropped: nothing can deliver it again)."""
        self._entries.pop(delivery.entry_id, None)
        if delivery.item is not None:
            self._journals.pop(delivery.item.id, None)
            if release and delivery.item.dedupe is not None:
                self._seen.pop(delivery.item.dedupe, None)

    async def dead_letter(self, delivery: Delivery, reason: str) -> None:
        """See `WorkQueue.dead_letter` (kept in `dead`, newest 1,000)."""
        self._entries.pop(delivery.entry_id, None)
        self.dead = [*self.dead[-999:], (delivery.raw, reason)]
        if delivery.item is not None:
            self._journals.pop(delivery.item.id, None)

    async def aclose(self) -> None:
        """See `WorkQueue.aclose`: in memory, nothing runs in the background."""

    async def retire(self, consumer: str) -> int:
        """See `WorkQueue.retire`."""
        held = [entry_id for entry_id, entry in self._entries.items() if entry.owner == consumer]
        for entry_id in held:
            entry = self._entries.pop(entry_id)
            self._entries[f"{next(self._ids)}-0"] = _Entry(
                entry.raw, entry.asker, entry.pushed, earlier=entry.earlier + entry.times
            )
        if held:
            self._arrived.set()
        return len(held)

    async def forget(self, idle_s: float) -> int:
        """See `WorkQueue.forget`: in memory, a consumer is only a name on its entries."""
        del idle_s
        return 0

    async def depth(self) -> int:
        """See `WorkQueue.depth`."""
        return len(self._entries)


def _item(raw: str) -> WorkItem:
    return WorkItem.model_validate_json(raw)
