"""What a stop or a crash leaves behind: told before dead-lettered, retries known, no dead consumers."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio

from bot.conversation.messages import GAVE_UP
from bot.work import JournalState, RedisWorkQueue, Worker, WorkItem, WorkQueue
from tests.bot.work.chat import Diagnoser, Slackish, until
from tests.bot.work.items import item

pytestmark = pytest.mark.e2e


class _SlowToTell(Diagnoser):
    """Fails every attempt; telling the asker it gave up waits for `release`."""

    def __init__(self) -> None:
        super().__init__(Slackish(), fail=True)
        self.telling = asyncio.Event()

    async def give_up(self, work: WorkItem, state: JournalState, text: str) -> None:
        self.telling.set()
        await self.release.wait()
        await super().give_up(work, state, text)


async def test_an_item_stopped_while_its_asker_is_told_is_not_dead_lettered_untold(
    queue: WorkQueue,
):
    handler = _SlowToTell()
    await queue.enqueue(item(), dedupe="msg:1", dedupe_ttl_s=60)
    worker = Worker(
        queue, {"test": handler}, concurrency=1, claim_idle_s=0.1, max_deliveries=1, recancel_s=0.05
    )
    worker.start()
    await handler.telling.wait()  # delivered twice: giving up, and SIGTERM now
    assert await worker.stop(0.05) == 1  # still there, handed back: its asker is told later
    assert handler.gave_up == []
    assert await queue.depth() == 1
    last = Diagnoser(Slackish(), fail=True)
    retry = Worker(queue, {"test": last}, concurrency=1, claim_idle_s=0.1, max_deliveries=1)
    retry.start()
    await until(lambda: last.gave_up)
    await retry.stop(1)
    assert [text for _, text, _ in last.gave_up] == [GAVE_UP]
    assert await queue.depth() == 0


async def test_an_item_handed_back_on_sigterm_is_retried_as_a_retry(queue: WorkQueue):
    """Its next attempt looks for what the first one showed but did not record."""
    chat = Slackish()
    first = Diagnoser(chat)
    await queue.enqueue(item(), dedupe="msg:1", dedupe_ttl_s=60)
    worker = Worker(queue, {"test": first}, concurrency=1, claim_idle_s=0.3, max_deliveries=3)
    worker.start()
    await first.started.wait()
    assert await worker.stop(0.05) == 1
    second = Diagnoser(chat)
    second.release.set()
    resumed = Worker(queue, {"test": second}, concurrency=1, claim_idle_s=0.3, max_deliveries=3)
    resumed.start()
    await until(lambda: second.ran and resumed.inflight == 0)
    await resumed.stop(1)
    [state] = second.states
    assert state.retried
    [(_, shown)] = chat.messages.items()
    assert shown == ["Diagnosing…", "OOM_KILLED"]


async def test_an_item_handed_back_before_any_attempt_began_is_a_first_attempt(
    queue: WorkQueue,
):
    """Taken as its worker stopped, put back untouched (however often): nothing was shown.

    Its attempt does not look for posts of an earlier one, nor count the hand-backs as tries.
    """
    await queue.enqueue(item(), dedupe="msg:1", dedupe_ttl_s=60)
    for _ in range(3):
        await queue.take("stopping", 1, 0)
        assert await queue.retire("stopping") == 1
    handler = Diagnoser(Slackish())
    handler.release.set()
    worker = Worker(queue, {"test": handler}, concurrency=1, claim_idle_s=0.3, max_deliveries=1)
    worker.start()
    await until(lambda: handler.ran and worker.inflight == 0)
    await worker.stop(1)
    [state] = handler.states
    assert not state.retried
    assert handler.gave_up == []
    assert await queue.depth() == 0


async def test_attempts_handed_back_on_every_stop_count_towards_the_delivery_limit(
    queue: WorkQueue,
):
    """An item whose attempt outlasts every stop is not tried again and again: it is given up."""
    chat = Slackish()
    await queue.enqueue(item(), dedupe="msg:1", dedupe_ttl_s=60)
    for _ in range(2):
        handler = Diagnoser(chat)
        worker = Worker(queue, {"test": handler}, concurrency=1, claim_idle_s=0.3, max_deliveries=2)
        worker.start()
        await handler.started.wait()
        assert await worker.stop(0.05) == 1
    last = Diagnoser(chat)
    worker = Worker(queue, {"test": last}, concurrency=1, claim_idle_s=0.3, max_deliveries=2)
    worker.start()
    await until(lambda: last.gave_up or last.ran)
    await worker.stop(1)
    assert last.ran == []
    assert [text for _, text, _ in last.gave_up] == [GAVE_UP]
    assert await queue.depth() == 0


async def test_a_worker_forgets_consumers_that_died_holding_nothing(
    redis_client: redis.asyncio.Redis,
):
    queue = RedisWorkQueue(redis_client, max_items=3, journal_ttl_s=60)
    await queue.enqueue(item(), dedupe="msg:1", dedupe_ttl_s=60)
    await queue.take("killed", 1, 0)  # kill -9: no hand-back, no DELCONSUMER
    handler = Diagnoser(Slackish())
    worker = Worker(
        queue,
        {"test": handler},
        concurrency=2,
        claim_idle_s=0.2,
        max_deliveries=3,
        forget_idle_s=0.5,
        consumer="survivor",
    )
    worker.start()
    await handler.started.wait()  # its item taken over, and under way

    async def consumers() -> list[str]:
        return [c["name"] for c in await redis_client.xinfo_consumers(queue.stream, "workers")]

    async with asyncio.timeout(10):
        while "killed" in await consumers():  # noqa: ASYNC110 - nothing to wait on but Redis
            await asyncio.sleep(0.05)
    assert await consumers() == ["survivor"]  # it holds an item: never dropped
    handler.release.set()
    await until(lambda: worker.inflight == 0)
    await worker.stop(1)
    assert await consumers() == []
