"""One attempt at a time: claims renewed through a stop's grace, given up once lost or stale."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis.asyncio

from bot.work import (
    Delivery,
    Journal,
    JournalState,
    QueueUnavailable,
    RedisWorkQueue,
    Worker,
    WorkItem,
    WorkQueue,
)
from tests.bot.work.chat import Diagnoser, Slackish, until
from tests.bot.work.items import item

pytestmark = pytest.mark.e2e


class _Through:
    """A queue that passes every call through to `queue`; subclasses change a few."""

    def __init__(self, queue: WorkQueue) -> None:
        self._queue = queue

    def __getattr__(self, name: str) -> Any:
        return getattr(self._queue, name)


class _Unrenewable(_Through):
    """A queue whose heartbeats fail (Redis out of this consumer's reach) while `down`."""

    def __init__(self, queue: WorkQueue) -> None:
        super().__init__(queue)
        self.down = True

    async def heartbeat(self, consumer: str, held: list[Delivery]) -> list[str]:
        if self.down:
            raise QueueUnavailable("Redis is unavailable (heartbeat: ConnectionError)")
        return await self._queue.heartbeat(consumer, held)


class _Looks(_Through):
    """A queue that counts the reclaims asked of it (each a look for idle items)."""

    def __init__(self, queue: WorkQueue) -> None:
        super().__init__(queue)
        self.looks = 0

    async def reclaim(self, consumer: str, min_idle_s: float, count: int) -> list[Delivery]:
        self.looks += 1
        return await self._queue.reclaim(consumer, min_idle_s, count)


def _worker(queue: Any, handler: Diagnoser, consumer: str, **kwargs: Any) -> Worker:
    options = {"concurrency": 1, "claim_idle_s": 0.3, "max_deliveries": 5} | kwargs
    return Worker(queue, {"test": handler}, consumer=consumer, **options)


@pytest.mark.parametrize("others", [0, 1], ids=["alone", "beside another"])
async def test_an_unrenewed_item_is_never_run_twice_at_once(queue: WorkQueue, others: int):
    """Its claim not renewed (an outage), an attempt stops before another can take its item.

    The next attempt (its own worker's reclaim, or another's) answers in the placeholder.
    """
    chat = Slackish()
    handler = Diagnoser(chat)
    await queue.enqueue(item(), dedupe="msg:1", dedupe_ttl_s=60)
    cut_off = _Unrenewable(queue)
    workers = [_worker(cut_off, handler, "cut-off", claim_idle_s=0.5)]
    if others:
        workers.append(_worker(queue, handler, "other", claim_idle_s=0.5))
    for worker in workers:
        worker.start()
    await until(lambda: len(handler.ran) == 2)  # a second attempt started...
    handler.release.set()  # ...and answers
    await until(lambda: chat.messages and len(next(iter(chat.messages.values()))) == 2)
    await until(lambda: sum(w.inflight for w in workers) == 0)
    assert await queue.depth() == 0
    for worker in workers:
        await worker.stop(1)
    assert handler.most == 1  # never two attempts at once
    [(_, shown)] = chat.messages.items()
    assert shown == ["Diagnosing…", "OOM_KILLED"]  # answered once, in the first placeholder


async def test_a_stopping_worker_keeps_what_it_finishes_in_its_grace(queue: WorkQueue):
    """A grace period longer than the claim idle time: nobody takes the item meanwhile."""
    chat = Slackish()
    first, second = Diagnoser(chat), Diagnoser(chat)
    await queue.enqueue(item(), dedupe="msg:1", dedupe_ttl_s=60)
    stopping_worker = _worker(queue, first, "stopping")
    stopping_worker.start()
    await first.started.wait()
    looks = _Looks(queue)
    other = _worker(looks, second, "other")
    other.start()
    stopping = asyncio.create_task(stopping_worker.stop(60))
    await until(lambda: looks.looks >= 6)  # three claim idle times of looking
    first.release.set()
    assert await stopping == 0  # finished within its grace: nothing to hand back
    await other.stop(1)
    assert second.ran == []
    [(_, shown)] = chat.messages.items()
    assert shown == ["Diagnosing…", "OOM_KILLED"]
    assert await queue.depth() == 0


async def test_stop_starts_the_grace_at_once_when_every_slot_is_busy(queue: WorkQueue):
    """At full concurrency the loop waits on what runs; `stop` wakes it."""
    handler = Diagnoser(Slackish())
    await queue.enqueue(item(), dedupe="msg:1", dedupe_ttl_s=60)
    worker = _worker(queue, handler, "busy", claim_idle_s=60)  # it would wait 20 s
    worker.start()
    await handler.started.wait()
    await asyncio.sleep(0)  # the loop is waiting for a free slot
    stopping = asyncio.create_task(worker.stop(0.05))
    try:  # a hang guard, half that wait (not a timeout: `stop` would swallow it)
        done, _ = await asyncio.wait({stopping}, timeout=10)
        assert done, "stop waited for the loop to wake by itself"
    finally:
        assert await stopping == 1


class _Flaky(_Through):
    """A queue that cannot `finish`, nor its journals mark an answer, while `down`."""

    def __init__(self, queue: WorkQueue) -> None:
        super().__init__(queue)
        self.down = False
        self.refused = 0

    def _check(self) -> None:
        if self.down:
            self.refused += 1
            raise QueueUnavailable("Redis is unavailable (finish: ConnectionError)")

    def journal(self, item_id: str) -> Any:
        return _FlakyJournal(self, self._queue.journal(item_id))

    async def finish(self, delivery: Delivery, *, release: bool = False) -> None:
        self._check()
        await self._queue.finish(delivery, release=release)


class _FlakyJournal:
    def __init__(self, queue: _Flaky, journal: Any) -> None:
        self._queue, self._journal = queue, journal

    def __getattr__(self, name: str) -> Any:
        return getattr(self._journal, name)

    async def mark_answered(self) -> None:
        self._queue._check()
        await self._journal.mark_answered()


async def test_an_answer_whose_finish_fails_is_finished_later_not_answered_again(
    queue: WorkQueue,
):
    chat = Slackish()
    handler = Diagnoser(chat)
    flaky = _Flaky(queue)
    await queue.enqueue(item(), dedupe="msg:1", dedupe_ttl_s=60)
    worker = _worker(flaky, handler, "w", claim_idle_s=0.3)
    worker.start()
    await handler.started.wait()
    flaky.down = True  # Redis goes as the answer goes out
    handler.release.set()
    await until(lambda: flaky.refused >= 4)  # the journal and finish, then finish again
    await asyncio.sleep(0.6)  # twice the claim idle time: the item is still this attempt's
    flaky.down = False
    await until(lambda: worker.inflight == 0)
    assert await queue.depth() == 0
    await worker.stop(1)
    assert len(handler.ran) == 1
    [(_, shown)] = chat.messages.items()
    assert shown == ["Diagnosing…", "OOM_KILLED"]


class _BlipAfterReclaim(_Through):
    """A queue whose first housekeeping call after a reclaim that took something fails."""

    def __init__(self, queue: WorkQueue) -> None:
        super().__init__(queue)
        self._took = False
        self.failed = False

    async def reclaim(self, consumer: str, min_idle_s: float, count: int) -> list[Delivery]:
        taken = await self._queue.reclaim(consumer, min_idle_s, count)
        self._took = self._took or bool(taken)
        return taken

    async def forget(self, idle_s: float) -> int:
        if self._took and not self.failed:
            self.failed = True
            raise QueueUnavailable("Redis is unavailable (forget: TimeoutError)")
        return await self._queue.forget(idle_s)


async def test_a_reclaimed_item_runs_though_the_housekeeping_after_it_failed(queue: WorkQueue):
    """Left pending without an attempt, it would be reclaimed again and given up as retried."""
    await queue.enqueue(item(), dedupe="msg:1", dedupe_ttl_s=60)
    await queue.take("killed", 1, 0)  # kill -9: left pending, delivered once
    handler = Diagnoser(Slackish())
    handler.release.set()
    blip = _BlipAfterReclaim(queue)
    worker = _worker(blip, handler, "w", max_deliveries=2, claim_idle_s=0.2)
    worker.start()
    await until(lambda: handler.ran or handler.gave_up, timeout_s=10)
    await worker.stop(1)
    assert blip.failed
    assert (len(handler.ran), handler.gave_up) == (1, [])


class _Beats(_Through):
    """A queue that counts the heartbeats sent through it."""

    def __init__(self, queue: WorkQueue) -> None:
        super().__init__(queue)
        self.beats = 0

    async def heartbeat(self, consumer: str, held: list[Delivery]) -> list[str]:
        stale = await self._queue.heartbeat(consumer, held)
        self.beats += 1
        return stale


@pytest.mark.parametrize("lost", ["FLUSHDB", "the entry only"])
async def test_an_attempt_whose_entry_redis_lost_still_answers(
    redis_client: redis.asyncio.Redis, lost: str
):
    """Redis back without the entry (restarted empty, a failover that lost the last writes).

    No other attempt can exist, so this one is not stale: it answers, and its `finish` has
    nothing left to acknowledge. Stopped, its asker would watch "Diagnosing…" for ever.
    """
    queue = RedisWorkQueue(redis_client, max_items=3, journal_ttl_s=60)
    beating = _Beats(queue)
    chat = Slackish()
    handler = Diagnoser(chat)
    await queue.enqueue(item(), dedupe="msg:1", dedupe_ttl_s=60)
    worker = _worker(beating, handler, "w", max_deliveries=3)
    worker.start()
    await handler.started.wait()  # "Diagnosing…" is up, the diagnosis under way
    if lost == "FLUSHDB":
        await redis_client.flushdb()
    else:
        entries = await redis_client.xrange(queue.stream) or []
        ids = [str(entry_id) for entry_id, _ in entries]  # decoded: the fixture's client
        await redis_client.xack(queue.stream, "workers", *ids)
        await redis_client.xdel(queue.stream, *ids)
    seen = beating.beats
    await until(lambda: beating.beats >= seen + 4)  # more than a claim idle time of them
    handler.release.set()
    await until(lambda: worker.inflight == 0)
    await worker.stop(1)
    [(_, shown)] = chat.messages.items()
    assert shown == ["Diagnosing…", "OOM_KILLED"]


class _SavesAfterAnswering(Diagnoser):
    """A handler that, its answer out, still saves the thread (until `saving` is released)."""

    def __init__(self, chat: Slackish) -> None:
        super().__init__(chat)
        self.answered = asyncio.Event()
        self.saving = asyncio.Event()
        self.saved = False

    async def run(self, work: WorkItem, journal: Journal, state: JournalState) -> bool:
        await super().run(work, journal, state)
        self.answered.set()
        await self.saving.wait()
        self.saved = True
        return True


async def test_an_attempt_whose_answer_is_out_is_not_stopped_while_it_saves(
    redis_client: redis.asyncio.Redis,
):
    """Its entry lost after the answer went out: stopped now, nothing would save the thread."""
    queue = RedisWorkQueue(redis_client, max_items=3, journal_ttl_s=60)
    beating = _Beats(queue)
    handler = _SavesAfterAnswering(Slackish())
    await queue.enqueue(item(), dedupe="msg:1", dedupe_ttl_s=60)
    worker = _worker(beating, handler, "w", max_deliveries=3)
    worker.start()
    await handler.started.wait()
    handler.release.set()
    await handler.answered.wait()  # the journal says answered
    entries = await redis_client.xrange(queue.stream) or []
    await redis_client.xdel(queue.stream, *(str(entry_id) for entry_id, _ in entries))
    seen = beating.beats
    await until(lambda: beating.beats >= seen + 4)
    handler.saving.set()
    await until(lambda: worker.inflight == 0)
    await worker.stop(1)
    assert handler.saved


async def test_a_holder_whose_item_was_handed_back_and_runs_from_a_copy_is_stale(
    queue: WorkQueue,
):
    """The copy's attempt recorded its own entry: the old holder's gone entry is stale."""
    await queue.enqueue(item(), dedupe="msg:1", dedupe_ttl_s=60)
    [first] = await queue.take("a", 1, 0)
    assert first.item is not None
    await queue.journal(first.item.id).begin(first.entry_id)
    assert await queue.retire("a") == 1  # handed back: a copy at the tail
    [copy] = await queue.take("c", 1, 0)
    assert await queue.heartbeat("a", [first]) == []  # ...not yet run: nothing else runs it
    await queue.journal(first.item.id).begin(copy.entry_id)
    assert await queue.heartbeat("a", [first]) == [first.entry_id]
