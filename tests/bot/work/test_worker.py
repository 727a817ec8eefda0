"""The worker over a real queue: reclaim answers once, dead letters, deadlines, SIGTERM hand-back."""

from __future__ import annotations

import asyncio

import pytest

from bot.conversation.messages import GAVE_UP
from bot.work import Journal, JournalState, RedisWorkQueue, Worker, WorkItem, WorkQueue, admit
from tests.bot.work.chat import Diagnoser, Slackish, until
from tests.bot.work.items import item

pytestmark = pytest.mark.e2e


def _worker(queue: WorkQueue, handler: Diagnoser, **kwargs) -> Worker:
    options = {"concurrency": 2, "claim_idle_s": 0.3, "max_deliveries": 3} | kwargs
    return Worker(queue, {"test": handler}, **options)


async def test_a_dead_consumers_item_is_answered_once_in_its_placeholder(queue: WorkQueue):
    chat = Slackish()
    await queue.enqueue(item(), dedupe="msg:1", dedupe_ttl_s=60)
    dying = Diagnoser(chat)
    first = _worker(queue, dying, consumer="dying")
    loop = first.start()
    await dying.started.wait()  # placeholder posted, diagnosis under way...
    loop.cancel()  # ...and the process dies: no ack, no hand-back
    for task in first._claims.tasks:
        task.cancel()
    survivor = Diagnoser(chat)
    survivor.release.set()
    second = _worker(queue, survivor, consumer="survivor")
    second.start()
    await until(lambda: survivor.ran)
    await until(lambda: second.inflight == 0)
    await until(lambda: len(next(iter(chat.messages.values()))) == 2)
    assert await second.stop(1) == 0
    [(_ref, shown)] = chat.messages.items()  # one message: the placeholder, updated
    assert shown == ["Diagnosing…", "OOM_KILLED"]
    assert await queue.depth() == 0


async def test_an_answered_item_is_not_answered_again(queue: WorkQueue):
    work = item()
    await queue.enqueue(work, dedupe="msg:1", dedupe_ttl_s=60)
    await queue.take("dead", 1, 0)  # answered, then died before the ack
    await queue.journal(work.id).mark_answered()
    handler = Diagnoser(Slackish())
    worker = _worker(queue, handler)
    worker.start()
    async with asyncio.timeout(10):
        while await queue.depth():  # noqa: ASYNC110
            await asyncio.sleep(0.01)
    await worker.stop(1)
    assert handler.ran == []


async def test_an_item_failing_every_time_is_dead_lettered_and_its_asker_told(queue: WorkQueue):
    work = item()
    await queue.enqueue(work, dedupe="msg:1", dedupe_ttl_s=60)
    handler = Diagnoser(Slackish(), fail=True)
    worker = _worker(queue, handler, claim_idle_s=0.05, max_deliveries=2)
    worker.start()
    await until(lambda: handler.gave_up)
    await worker.stop(1)
    assert handler.ran == [work.id, work.id]  # two attempts, then no more
    assert [(i, t) for i, t, _ in handler.gave_up] == [(work.id, GAVE_UP)]
    assert await queue.depth() == 0


async def test_an_item_past_its_deadline_is_not_started_and_its_asker_told(queue: WorkQueue):
    late = item(deadline_s=-1)
    await queue.enqueue(late, dedupe="msg:1", dedupe_ttl_s=60)
    handler = Diagnoser(Slackish())
    worker = _worker(queue, handler)
    worker.start()
    await until(lambda: handler.gave_up)
    await worker.stop(1)
    assert handler.ran == []
    assert "too busy to start" in handler.gave_up[0][1]
    assert await queue.depth() == 0


async def test_a_worker_takes_only_as_many_items_as_it_can_run(queue: WorkQueue):
    for i in range(3):
        await queue.enqueue(item(f"U{i}"), dedupe=f"msg:{i}", dedupe_ttl_s=60)
    handler = Diagnoser(Slackish())
    worker = _worker(queue, handler, concurrency=2)
    worker.start()
    await until(lambda: len(handler.ran) == 2)
    other = await queue.take("other", 5, 0)
    assert len(other) == 1  # the third was never taken by the busy worker
    await queue.finish(other[0])
    handler.release.set()
    await until(lambda: worker.inflight == 0)
    assert await worker.stop(1) == 0


async def _started(
    queue: WorkQueue, handler: Diagnoser, work: WorkItem | None = None, **kwargs
) -> Worker:
    """A worker running `handler` on one queued item (`work`), once the handler has started."""
    await queue.enqueue(work or item(), dedupe="msg:1", dedupe_ttl_s=60)
    worker = _worker(queue, handler, **kwargs)
    worker.start()
    await handler.started.wait()
    return worker


async def test_sigterm_hands_back_what_does_not_finish_within_the_grace(queue: WorkQueue):
    work = item()
    chat = Slackish()
    worker = await _started(queue, Diagnoser(chat), work)
    assert await worker.stop(0.05) == 1  # never released: handed back
    [back] = await queue.take("next", 1, 0)
    assert (back.item, back.times) == (work, 1)
    resumed = Diagnoser(chat)
    resumed.release.set()
    await resumed.run(work, queue.journal(work.id), await queue.journal(work.id).load())
    [(_, shown)] = chat.messages.items()
    assert shown == ["Diagnosing…", "OOM_KILLED"]


class _LosingACancellation(Diagnoser):
    """Its first cancellation is dropped mid-call (as redis-py can on Python 3.11)."""

    async def run(self, work: WorkItem, journal: Journal, state: JournalState) -> bool:  # noqa: ARG002 - the Handler's signature
        self.started.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.ran.append("dropped a cancellation")
        await self.release.wait()  # and it would go on for as long as its diagnosis takes
        return True


async def test_sigterm_stops_work_that_dropped_its_cancellation(queue: WorkQueue):
    handler = _LosingACancellation(Slackish())
    worker = await _started(queue, handler, recancel_s=0.05)
    async with asyncio.timeout(10):
        assert await worker.stop(0.05) == 1
    assert handler.ran == ["dropped a cancellation"]


async def test_sigterm_lets_running_work_finish_within_the_grace(queue: WorkQueue):
    handler = Diagnoser(Slackish())
    worker = await _started(queue, handler)
    stopping = asyncio.create_task(worker.stop(10))
    handler.release.set()
    assert await stopping == 0
    assert await queue.depth() == 0


async def test_an_unreadable_item_is_dead_lettered_without_a_handler(redis_client):
    queue = RedisWorkQueue(redis_client, max_items=3, journal_ttl_s=60)
    await queue.ensure_group()
    await redis_client.xadd(queue.stream, {"item": "{not json"})
    handler = Diagnoser(Slackish())
    worker = _worker(queue, handler)
    worker.start()
    async with asyncio.timeout(10):
        while not await redis_client.xlen(queue.dead):  # noqa: ASYNC110
            await asyncio.sleep(0.01)
    await worker.stop(1)
    assert handler.ran == []
    assert handler.gave_up == []  # nobody to tell: the item names no asker
    assert await queue.depth() == 0


async def test_an_item_of_an_unknown_platform_is_dead_lettered(queue: WorkQueue):
    stray = item().model_copy(update={"platform": "irc"})
    await queue.enqueue(stray, dedupe="msg:1", dedupe_ttl_s=60)
    handler = Diagnoser(Slackish())
    worker = _worker(queue, handler)
    worker.start()
    async with asyncio.timeout(10):
        while await queue.depth():  # noqa: ASYNC110
            await asyncio.sleep(0.01)
    await worker.stop(1)
    assert handler.ran == []


class _Waiting:
    """A queue whose takes wait until cancelled, as an idle `XREADGROUP ... BLOCK` does."""

    def __init__(self, queue: WorkQueue) -> None:
        self._queue = queue
        self.waiting = asyncio.Event()
        self.abandoned = 0

    def __getattr__(self, name: str):
        return getattr(self._queue, name)

    async def take(self, *_: object):
        self.waiting.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.abandoned += 1
            raise
        raise AssertionError("unreachable")


async def test_stop_abandons_a_waiting_take_instead_of_waiting_it_out(queue: WorkQueue):
    waiting = _Waiting(queue)
    worker = _worker(waiting, Diagnoser(Slackish()))
    worker.start()
    await waiting.waiting.wait()
    async with asyncio.timeout(10):  # a hang guard: this take would never return by itself
        assert await worker.stop(1) == 0
    assert waiting.abandoned == 1


async def test_stop_hands_back_what_the_consumer_holds_without_running_it(queue: WorkQueue):
    """An item served to a take as it was abandoned, or left by a failed attempt, is not lost."""
    served, failed = item("U1"), item("U2")
    await queue.enqueue(served, dedupe="msg:1", dedupe_ttl_s=60)
    [_] = await queue.take("w", 1, 0)  # given to "w", whose take was abandoned: never run
    await queue.enqueue(failed, dedupe="msg:2", dedupe_ttl_s=60)
    handler = Diagnoser(Slackish(), fail=True)
    worker = _worker(queue, handler, consumer="w", claim_idle_s=60)
    worker.start()
    await until(lambda: handler.ran)  # failed once: left pending under "w" for a retry
    await until(lambda: worker.inflight == 0)
    assert await worker.stop(1) == 2
    assert handler.ran == [failed.id]
    back = await queue.take("next", 5, 0)
    assert sorted(d.item.id for d in back if d.item) == sorted([served.id, failed.id])


class _AsksAgain(Diagnoser):
    """Does nothing and tells its asker to ask again (their thread busy), or answers."""

    def __init__(self, *, done: bool) -> None:
        super().__init__(Slackish())
        self.done = done

    async def run(self, work: WorkItem, journal: Journal, state: JournalState) -> bool:  # noqa: ARG002 - the Handler's signature
        self.ran.append(work.id)
        return self.done


@pytest.mark.parametrize(
    ("done", "repeatable", "again"),
    [(False, True, "accepted"), (True, True, "duplicate"), (False, False, "duplicate")],
    ids=["a click, told to ask again", "a click, answered", "a message, told to ask again"],
)
async def test_a_click_told_to_ask_again_is_taken_again(
    queue: WorkQueue,
    done: bool,  # noqa: FBT001 - a table column
    repeatable: bool,  # noqa: FBT001 - a table column
    again: str,
):
    """Told "ask again", the asker repeats the same click: it is not a duplicate.

    A message's key is kept: the platform's own redelivery of it would otherwise run again.
    """
    handler = _AsksAgain(done=done)
    key, ttl = "click:C1:1.1:prod-a:U1", 60
    admitted = await admit(queue, item(), dedupe=key, dedupe_ttl_s=ttl, repeatable=repeatable)
    assert admitted.intake == "accepted"
    worker = _worker(queue, handler)
    worker.start()
    await until(lambda: handler.ran)
    await until(lambda: worker.inflight == 0)
    assert await queue.depth() == 0
    repeated = await admit(queue, item(), dedupe=key, dedupe_ttl_s=ttl, repeatable=repeatable)
    assert repeated.intake == again
    await worker.stop(1)
