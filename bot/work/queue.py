"""The durable work queue's interface, shared by the Redis and the in-memory implementation.

A front end `enqueue`s an item, deduplicated and bounded in one atomic step (people's requests
and pushed items each to their own bound, and each asker to a cap of their own); workers `take` new
items (never more than they can run), `reclaim` those another consumer left idle, keep their own
alive with `heartbeat`, then `finish` (answered) or `dead_letter` each one; a stopping worker
`retire`s, which puts back whatever it still holds, and `forget` drops the consumers that died
without retiring. A `Journal` per item remembers what was already shown, so a second attempt
updates the messages of the first instead of posting new ones, and how many posts its
attempts spent on the request's `response_url` (Slack takes five).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from bot.conversation.store import StoreUnavailable
from bot.work.item import Delivery, Enqueued, WorkItem

__all__ = ["Journal", "JournalState", "QueueUnavailable", "ShownPost", "WorkQueue"]


class QueueUnavailable(StoreUnavailable):
    """The queue (Redis) could not be reached: nothing was taken or changed."""


@dataclass(frozen=True)
class ShownPost:
    """One public message an attempt posted, and whether it is the progress placeholder."""

    ref: str
    progress: bool


@dataclass(frozen=True)
class JournalState:
    """What earlier attempts of an item showed: public posts in order, the thread they made."""

    posts: tuple[ShownPost, ...] = ()
    thread: str | None = None
    answered: bool = False
    attempts: int = 0
    """Attempts at the item that began (`Journal.begin`), on any of its entries; a hand-back
    of one that never began adds none."""
    retried: bool = False
    """An attempt before this one may have shown more than it recorded (it was cut short)."""
    spent: int = 0
    """Posts the attempts made (or began) to the request's `response_url`, which takes five."""


class Journal(Protocol):
    """The durable record of one item's side effects (a Redis hash, or memory)."""

    async def load(self) -> JournalState:
        """Everything recorded so far."""
        ...

    async def begin(self, entry_id: str) -> JournalState:
        """An attempt starts from queue entry `entry_id`: record and count it, and load everything.

        A handed-back item runs from a copy with a new entry ID; an earlier attempt that
        finds its own entry gone and another one recorded here knows it is stale.
        """
        ...

    async def record_post(self, index: int, post: ShownPost, thread: str | None) -> None:
        """The `index`-th public post of this item is `post`, in `thread`."""
        ...

    async def record_spent(self, uses: int, post: tuple[int, ShownPost] | None = None) -> None:
        """`uses` more posts to the request's `response_url`, recorded before they are made.

        `post`: the index-th public post is among them (the bot is not in the channel),
        with no ref to update: a later attempt does not post it again.
        """
        ...

    async def mark_answered(self) -> None:
        """The answer is out: no later attempt may answer again."""
        ...


class WorkQueue(Protocol):
    """A bounded, deduplicating, durable queue with a consumer group."""

    async def enqueue(self, item: WorkItem, *, dedupe: str, dedupe_ttl_s: int) -> Enqueued:
        """Claim `dedupe`, check the bounds and append `item`, atomically.

        Refused, nothing is claimed: `CAPPED` when its asker (`WorkItem.asker`) already has as
        many items waiting or being answered as one may have, `FULL` when its lane (people's
        requests, or pushed items: `WorkItem.pushed`) holds as many as it may. An item counts
        against both from this call until the `finish` or `dead_letter` that removes it.

        Raises:
            QueueUnavailable: nothing was claimed or added.
        """
        ...

    async def take(self, consumer: str, count: int, block_s: float) -> list[Delivery]:
        """Up to `count` new items for `consumer`, waiting up to `block_s` for the first.

        It may be cancelled while it waits: anything it was given by then stays with
        `consumer` (`retire` puts it back, or another consumer reclaims it).
        """
        ...

    async def reclaim(self, consumer: str, min_idle_s: float, count: int) -> list[Delivery]:
        """Up to `count` items a silent consumer (dead, or `consumer` itself) left idle.

        An item is taken only once it was seen idle for `min_idle_s` by an earlier call, at
        least `min_idle_s / 2` before, and has stayed idle since: a holder that could not
        renew during an outage gets that long, once Redis is back, to renew first.
        """
        ...

    async def heartbeat(self, consumer: str, held: Sequence[Delivery]) -> list[str]:
        """Reset the idle time of the entries `consumer` still holds (it is alive).

        Returns the entry IDs of those in `held` whose attempts are stale: another consumer
        took them over, or they are gone and their journal says answered (a dead-lettered
        item's asker has been told too) or names another entry (the item was handed back and
        runs from a copy). An entry gone with a journal that says neither was lost with
        Redis's data (a restart without persistence, a failover that lost the last writes):
        no other attempt runs it, so it is not stale, and its attempt answers.
        """
        ...

    async def finish(self, delivery: Delivery, *, release: bool = False) -> None:
        """Answered: mark its journal answered, acknowledge and delete the entry, at once.

        The call that deletes the entry, and only that one, releases what it counted in
        (its asker's cap, its lane's bound).

        Whoever holds the entry now: the answer is out, so no attempt may give it again.
        `release`: its asker was told to ask again, nothing done, so the item's dedupe key is
        forgotten in the same step and the same request (the same click) is taken again.
        """
        ...

    async def dead_letter(self, delivery: Delivery, reason: str) -> None:
        """Move it to the dead-letter stream and acknowledge it, at once (released as `finish`)."""
        ...

    async def retire(self, consumer: str) -> int:
        """Put everything `consumer` still holds back at the tail, then forget `consumer`.

        Returns how many items it put back. For a consumer that stops; a put-back item is
        delivered afresh (its deliveries so far are carried in `Delivery.earlier`, not in
        `times`; the attempts that began are counted in its journal).
        """
        ...

    async def forget(self, idle_s: float) -> int:
        """Drop the consumers that hold nothing and did nothing for `idle_s` (they died).

        Returns how many it dropped. A consumer that holds an entry is never dropped; a
        living one that is dropped (silent that long) is made again by its next take.
        """
        ...

    async def aclose(self) -> None:
        """Stop what the queue sends in the background, before its Redis client closes."""
        ...

    def journal(self, item_id: str) -> Journal:
        """The journal of item `item_id`."""
        ...

    async def depth(self) -> int:
        """Items waiting or in flight."""
        ...
