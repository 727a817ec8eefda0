"""The durable work queue on Redis Streams: one stream, one consumer group, Lua for each step.

Every step that must not be split is one script (EVALSHA, Redis 7.0 commands only): enqueue =
dedupe claim (`SET NX EX`) + the asker's cap and the lane's bound + `XADD` + the counts
(`INCR`); reclaim = `XCLAIM` with a minimum idle time of what an earlier call saw idle
(`XPENDING ... IDLE`), then a new look; heartbeat = `XCLAIM JUSTID` of what the consumer still
owns, and the rest reported lost; finish = journal "answered" + `XACK` + `XDEL` (+ `DECR` of
its counts if that `XDEL` removed it); dead letter = `XADD` to the dead stream + the same;
retire = for each entry the consumer holds, `XADD` a copy (counting its deliveries in
`earlier`) + `XACK` + `XDEL`, then `XGROUP DELCONSUMER`; forget = `XGROUP DELCONSUMER` of each
consumer `XINFO CONSUMERS` shows idle and holding nothing. All keys share one hash tag, so the
scripts also run on a Redis Cluster. Entries are deleted once acknowledged, so `XLEN` is the
queue's depth and `XLEN - pending` what is still waiting. How the counts behind the bounds stay
exact: `bot.work.redis_scripts`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, cast

import redis.asyncio as redis
import structlog
from pydantic import ValidationError
from redis.exceptions import ResponseError

from bot.durable.coalesce import Coalesced
from bot.work import redis_scripts as scripts
from bot.work.item import Delivery, Enqueued, Intake, WorkItem
from bot.work.redis_journal import RedisJournal, text, translated

__all__ = ["PREFIX", "RedisWorkQueue"]

#: The hash tag keeps every key of the queue in one Cluster slot.
PREFIX = "{runai-why-work}"
GROUP = "workers"
_DEAD_MAXLEN = 10_000
#: Slack in the idle time a reclaim requires: Redis counts idle time in whole milliseconds.
_SLACK_MS = 5


def _parse(
    entry_id: str,
    raw: str,
    times: int,
    fields: dict[str, str],
    *,
    reclaimed: bool,
) -> Delivery:
    """A delivered entry; `fields` are its other fields (`earlier`, `asker`, `pushed`)."""
    try:
        item: WorkItem | None = WorkItem.model_validate_json(raw)
    except ValidationError:
        structlog.get_logger(__name__).warning("work_item_unreadable", entry_id=entry_id)
        item = None
    return Delivery(
        entry_id,
        item,
        times,
        reclaimed=reclaimed,
        raw=raw,
        earlier=int(fields.get("earlier") or 0),
        asker=fields.get("asker") or None,
        pushed=fields.get("pushed") == "1",
    )


class RedisWorkQueue:
    """`WorkQueue` on a Redis stream shared by every replica and worker."""

    def __init__(
        self,
        client: redis.Redis,
        *,
        max_items: int,
        journal_ttl_s: int,
        max_pushed: int | None = None,
        max_per_asker: int | None = None,
        prefix: str = PREFIX,
    ) -> None:
        """At most `max_items` people's requests and `max_pushed` pushed items (None: as many).

        `max_per_asker`: of one asker's (None: no cap of their own).
        """
        self._redis = client
        self._max_items = max_items
        self._max_pushed = max_items if max_pushed is None else max_pushed
        self._max_per_asker = max_per_asker
        self._journal_ttl_s = journal_ttl_s
        self._prefix = prefix
        self.stream = f"{prefix}:stream"
        self.dead = f"{prefix}:dead"
        self.pushed = f"{prefix}:pushed"
        self._group_ready = False
        # Every acknowledgement enqueues: a burst's calls share a pipeline (`Coalesced`).
        self._enqueue = Coalesced(client, client.register_script(scripts.ENQUEUE))
        self._reclaim = client.register_script(scripts.RECLAIM)
        self._heartbeat = client.register_script(scripts.HEARTBEAT)
        self._finish = client.register_script(scripts.FINISH)
        self._dead_letter = client.register_script(scripts.DEAD_LETTER)
        self._retire = client.register_script(scripts.RETIRE)
        self._forget = client.register_script(scripts.FORGET)
        #: Entries seen idle by `reclaim`: their idle time then, and when (monotonic).
        self._idle: dict[str, tuple[int, float]] = {}

    async def aclose(self) -> None:
        """See `WorkQueue.aclose`: stop the enqueue pipelines under way."""
        await self._enqueue.aclose()

    def journal(self, item_id: str) -> RedisJournal:
        """See `WorkQueue.journal`."""
        return RedisJournal(self._redis, self._journal_key(item_id), self._journal_ttl_s)

    def _journal_key(self, item_id: str) -> str:
        return f"{self._prefix}:job:{item_id}"

    async def ensure_group(self) -> None:
        """Create the stream and its group (from the stream's start: nothing is skipped)."""
        try:
            await self._redis.xgroup_create(self.stream, GROUP, id="0", mkstream=True)
        except ResponseError as error:
            if "BUSYGROUP" not in str(error):
                raise
        self._group_ready = True

    async def enqueue(self, item: WorkItem, *, dedupe: str, dedupe_ttl_s: int) -> Enqueued:
        """See `WorkQueue.enqueue` (one script: claim, cap, bound, XADD, counts)."""
        keys = [self.stream, self._seen_key(dedupe), self.pushed]
        asker = item.asker if self._max_per_asker is not None else None
        if asker is not None:
            keys.append(self._asker_key(asker))
        args: list[str | int] = [
            GROUP,
            self._max_pushed if item.pushed else self._max_items,
            dedupe_ttl_s,
            item.model_dump_json(),
            int(item.pushed),
            self._max_per_asker or 0,
            asker or "",
            self._journal_ttl_s,
            self._max_items + self._max_pushed,
            scripts.RECOUNT_AFTER_S,
        ]
        async with translated("enqueue"):
            intake, count, depth = cast("list[Any]", await self._enqueue(keys=keys, args=args))
        taken = Intake(text(intake))
        if taken is Intake.CAPPED:
            return Enqueued(taken, depth=int(depth), held=int(count))
        return Enqueued(taken, int(count), int(depth))

    def _asker_key(self, asker: str) -> str:
        """An asker's count: their items waiting or being answered (it expires, as a net)."""
        return f"{self._prefix}:asker:{asker}"

    def _counts(self, delivery: Delivery) -> list[str]:
        """The keys of the counts `delivery`'s entry is in (the stream's key for none)."""
        pushed = self.pushed if delivery.pushed else self.stream
        asker = self._asker_key(delivery.asker) if delivery.asker else self.stream
        return [pushed, asker]

    async def take(self, consumer: str, count: int, block_s: float) -> list[Delivery]:
        """See `WorkQueue.take` (`XREADGROUP ... >`; BLOCK 0 would wait forever: none)."""
        async with translated("take"):
            if not self._group_ready:
                await self.ensure_group()
            try:
                answer: Any = await self._redis.xreadgroup(
                    GROUP,
                    consumer,
                    {self.stream: ">"},
                    count=count,
                    block=max(1, int(block_s * 1000)) if block_s > 0 else None,
                )
            except ResponseError as error:
                if "NOGROUP" not in str(error):
                    raise
                self._group_ready = False  # Redis lost the group (a restart): make it again
                return []
        deliveries = []
        for _, entries in answer or []:
            for entry_id, raw_fields in entries:
                fields = {text(k): text(v) for k, v in (raw_fields or {}).items()}
                deliveries.append(
                    _parse(text(entry_id), fields.get("item", ""), 1, fields, reclaimed=False)
                )
        return deliveries

    async def reclaim(self, consumer: str, min_idle_s: float, count: int) -> list[Delivery]:
        """See `WorkQueue.reclaim`.

        What an earlier call saw idle at least `min_idle_s / 2` ago is claimed (`XCLAIM`) only
        if it is still idle: its minimum idle time is the idle time seen then plus the time
        since. Then it looks again (`XPENDING ... IDLE`) for the next call.
        """
        sent = time.monotonic()
        due = [
            (entry_id, max(0, idle_ms + int((sent - seen) * 1000) - _SLACK_MS))
            for entry_id, (idle_ms, seen) in self._idle.items()
            if sent - seen >= min_idle_s / 2
        ][:count]
        args: list[str | int] = [GROUP, consumer, int(min_idle_s * 1000), count]
        args += [arg for pair in due for arg in pair]
        async with translated("reclaim"):
            try:
                claimed, idle = cast(
                    "list[Any]", await self._reclaim(keys=[self.stream], args=args)
                )
            except ResponseError as error:
                if "NOGROUP" not in str(error):
                    raise
                self._group_ready, self._idle = False, {}
                return []
        seen, tried = time.monotonic(), {entry_id for entry_id, _ in due}
        self._idle = {  # an earlier sighting of an entry still idle is kept: it proves more
            entry_id: self._idle[entry_id]
            if entry_id in self._idle and entry_id not in tried
            else (int(idle_ms), seen)
            for entry_id, idle_ms in ((text(e), i) for e, i in idle)
        }
        return [
            _parse(
                text(entry_id),
                text(raw),
                int(times),
                {"earlier": text(earlier), "asker": text(asker), "pushed": text(pushed)},
                reclaimed=True,
            )
            for entry_id, raw, times, earlier, asker, pushed in claimed
        ]

    async def heartbeat(self, consumer: str, held: Sequence[Delivery]) -> list[str]:
        """See `WorkQueue.heartbeat` (`XCLAIM ... JUSTID` of what it still owns)."""
        if not held:
            return []
        journals = [self._journal_key(d.item.id) if d.item else self.stream for d in held]
        args = [GROUP, consumer, *(d.entry_id for d in held)]
        async with translated("heartbeat"):
            stale = await self._heartbeat(keys=[self.stream, *journals], args=args)
        return [text(entry_id) for entry_id in cast("list[Any]", stale)]

    async def finish(self, delivery: Delivery, *, release: bool = False) -> None:
        """See `WorkQueue.finish` (one script; with `release`, the dedupe key goes too)."""
        item = delivery.item
        keys = [self.stream, self._journal_key(item.id) if item else self.stream]
        keys += self._counts(delivery)
        if release and item is not None and item.dedupe is not None:
            keys.append(self._seen_key(item.dedupe))
        args: list[str | int] = [GROUP, delivery.entry_id, self._journal_ttl_s]
        async with translated("finish"):
            await self._finish(keys=keys, args=args)

    def _seen_key(self, dedupe: str) -> str:
        return f"{self._prefix}:seen:{dedupe}"

    async def dead_letter(self, delivery: Delivery, reason: str) -> None:
        """See `WorkQueue.dead_letter`."""
        journal = self._journal_key(delivery.item.id) if delivery.item else self.stream
        args: list[str | int] = [
            GROUP,
            delivery.entry_id,
            delivery.raw,
            reason,
            _DEAD_MAXLEN,
            self._journal_ttl_s,
        ]
        keys = [self.stream, self.dead, journal, *self._counts(delivery)]
        async with translated("dead_letter"):
            await self._dead_letter(keys=keys, args=args)

    async def retire(self, consumer: str) -> int:
        """See `WorkQueue.retire` (one script: a copy of each at the tail, then DELCONSUMER)."""
        async with translated("retire"):
            return int(await self._retire(keys=[self.stream], args=[GROUP, consumer]))

    async def forget(self, idle_s: float) -> int:
        """See `WorkQueue.forget` (one script: `XINFO CONSUMERS`, `XGROUP DELCONSUMER`)."""
        async with translated("forget"):
            try:
                args: list[str | int] = [GROUP, int(idle_s * 1000)]
                return int(await self._forget(keys=[self.stream], args=args))
            except ResponseError as error:
                if "no such key" not in str(error).lower() and "NOGROUP" not in str(error):
                    raise
                return 0

    async def depth(self) -> int:
        """See `WorkQueue.depth` (`XLEN`)."""
        async with translated("depth"):
            return int(await self._redis.xlen(self.stream))
