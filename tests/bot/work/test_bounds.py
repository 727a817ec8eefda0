"""The queue's bounds: each asker capped alone, pushed items and requests bounded apart.

A count is taken with the item and released once, by whichever step removes its entry:
answered, dead-lettered, after a reclaim or a hand-back, however often that step is retried.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
import redis.asyncio

from bot.work import Delivery, Intake, MemoryWorkQueue, RedisWorkQueue, WorkItem, WorkQueue
from bot.work.redis_scripts import RECOUNT_AFTER_S
from tests.bot.work.items import item, pushed

pytestmark = pytest.mark.e2e

CAP = 2


@pytest.fixture(params=["redis", "memory"])
async def bounded(request: pytest.FixtureRequest, redis_url: str) -> AsyncIterator[WorkQueue]:
    """3 requests, 2 pushed items, 2 per asker; in Redis or in memory."""
    if request.param == "memory":
        yield MemoryWorkQueue(max_items=3, max_pushed=2, max_per_asker=CAP)
        return
    client = redis.asyncio.Redis.from_url(redis_url, decode_responses=True)
    await client.flushdb()
    try:
        yield RedisWorkQueue(client, max_items=3, max_pushed=2, max_per_asker=CAP, journal_ttl_s=60)
    finally:
        await client.flushdb()
        await client.aclose()


async def _ask(queue: WorkQueue, user: str, key: str) -> Intake:
    return (await queue.enqueue(item(user), dedupe=key, dedupe_ttl_s=60)).intake


async def test_an_asker_past_their_cap_is_refused_alone_and_loses_nothing(bounded: WorkQueue):
    assert [await _ask(bounded, "U1", f"u1:{i}") for i in range(CAP)] == [Intake.ACCEPTED] * 2
    refused = await bounded.enqueue(item("U1"), dedupe="u1:late", dedupe_ttl_s=60)
    assert (refused.intake, refused.held, refused.depth) == (Intake.CAPPED, CAP, 2)
    assert await _ask(bounded, "U2", "u2:0") is Intake.ACCEPTED  # nobody else is refused
    [first, *_] = await bounded.take("a", 3, 0)
    await bounded.finish(first)
    assert await _ask(bounded, "U1", "u1:late") is Intake.ACCEPTED  # the refusal claimed nothing


async def _finish_twice(queue: WorkQueue, taken: Delivery) -> None:
    await queue.finish(taken)
    await queue.finish(taken)  # the first reply was lost: tried again, removes nothing


async def _reclaimed_then_finished(queue: WorkQueue, taken: Delivery) -> None:
    await queue.reclaim("b", 0, 5)  # its worker died: seen idle, then taken over
    [again] = await queue.reclaim("b", 0, 5)
    await queue.finish(again)
    await queue.finish(taken)  # the dead worker's attempt, finishing late: nothing more


async def _handed_back_then_dead_lettered(queue: WorkQueue, taken: Delivery) -> None:
    assert await queue.retire("a") == 1  # SIGTERM: a copy at the tail, counted as before
    *_, copy = await queue.take("c", 5, 0)  # behind the one that waited
    assert (copy.asker, copy.pushed) == (taken.asker, False)
    await queue.dead_letter(copy, "delivered 4 times")
    await queue.dead_letter(copy, "delivered 4 times")


async def _released_to_ask_again(queue: WorkQueue, taken: Delivery) -> None:
    await queue.finish(taken, release=True)  # told to ask again: its key is forgotten too


@pytest.mark.parametrize(
    "ending",
    [
        pytest.param(lambda q, d: q.finish(d), id="answered"),
        pytest.param(_finish_twice, id="answered, the finish retried"),
        pytest.param(lambda q, d: q.dead_letter(d, "unreadable"), id="dead-lettered"),
        pytest.param(_reclaimed_then_finished, id="reclaimed from a dead worker"),
        pytest.param(_handed_back_then_dead_lettered, id="handed back on SIGTERM"),
        pytest.param(_released_to_ask_again, id="its asker told to ask again"),
    ],
)
async def test_an_item_s_count_is_released_once_however_it_ends(
    bounded: WorkQueue, ending: Callable[[WorkQueue, Delivery], Awaitable[None]]
):
    for i in range(CAP):
        await _ask(bounded, "U1", f"u1:{i}")
    [taken] = await bounded.take("a", 1, 0)
    assert (taken.asker, taken.pushed) == ("test:U1", False)
    await ending(bounded, taken)
    assert await _ask(bounded, "U1", "u1:next") is Intake.ACCEPTED  # one place freed...
    assert await _ask(bounded, "U1", "u1:more") is Intake.CAPPED  # ...and only one


async def test_pushed_items_and_requests_never_refuse_each_other(bounded: WorkQueue):
    storm = [
        await bounded.enqueue(pushed(f"f{i}"), dedupe=f"alert:{i}", dedupe_ttl_s=60)
        for i in range(3)
    ]
    assert [s.intake for s in storm] == [Intake.ACCEPTED, Intake.ACCEPTED, Intake.FULL]
    asks = [await _ask(bounded, f"U{i}", f"msg:{i}") for i in range(4)]
    assert asks == [Intake.ACCEPTED] * 3 + [Intake.FULL]  # an alert storm took none of theirs
    assert storm[1].ahead == 1  # one queue: its place counts what waits in front, of either
    taken = await bounded.take("a", 5, 0)
    alert = next(d for d in taken if d.pushed)
    assert alert.asker is None  # nobody asked: no one's cap
    await bounded.finish(alert)
    assert await _ask(bounded, "U9", "msg:9") is Intake.FULL  # its place is a pushed item's
    again = await bounded.enqueue(pushed("f2"), dedupe="alert:2", dedupe_ttl_s=60)
    assert again.intake is Intake.ACCEPTED


async def test_without_a_cap_an_asker_is_bounded_only_by_the_queue(redis_url: str):
    client = redis.asyncio.Redis.from_url(redis_url, decode_responses=True)
    await client.flushdb()
    try:
        for queue in (
            MemoryWorkQueue(max_items=3),
            RedisWorkQueue(client, max_items=3, journal_ttl_s=60),
        ):
            intakes = [await _ask(queue, "U1", f"m:{i}") for i in range(4)]
            assert intakes == [Intake.ACCEPTED] * 3 + [Intake.FULL]
    finally:
        await client.flushdb()
        await client.aclose()


async def test_a_count_no_release_reached_is_cleared_by_an_empty_queue_or_expires(
    redis_client: redis.asyncio.Redis,
):
    """A worker of an older version finished the entry without lowering its asker's count."""
    queue = RedisWorkQueue(redis_client, max_items=3, max_per_asker=CAP, journal_ttl_s=60)
    await redis_client.set("{runai-why-work}:asker:test:U1", CAP)
    await redis_client.set(queue.pushed, 3)
    assert await _ask(queue, "U1", "m:1") is Intake.ACCEPTED  # nothing queued: nothing owed
    assert await redis_client.get("{runai-why-work}:asker:test:U1") == "1"
    assert 0 < await redis_client.ttl("{runai-why-work}:asker:test:U1") <= 60
    assert await redis_client.get(queue.pushed) is None


_ASKER = "{runai-why-work}:asker:test:U1"
_PUSHED = "{runai-why-work}:pushed"


@pytest.mark.parametrize(
    ("before", "leaked", "ask", "counts"),
    [
        pytest.param(
            [item("U2")], {_ASKER: CAP}, item("U1"), {_ASKER: "1"}, id="an asker's count, high"
        ),
        pytest.param(
            [item("U2"), item("U3")], {_PUSHED: 2}, pushed("f1"), {_PUSHED: "1"}, id="pushed, high"
        ),
        pytest.param(
            [pushed("f0"), pushed("f1"), item("U2")],
            {_PUSHED: None},
            item("U1"),
            {_PUSHED: "2", _ASKER: "1"},
            id="pushed, lost: people's lane looked full",
        ),
    ],
)
async def test_a_count_gone_wrong_is_recounted_before_it_refuses(
    redis_client: redis.asyncio.Redis,
    before: list[WorkItem],
    leaked: dict[str, int | None],
    ask: WorkItem,
    counts: dict[str, str],
):
    """A worker of an older version finished entries without lowering their counts."""
    queue = RedisWorkQueue(
        redis_client, max_items=3, max_pushed=2, max_per_asker=CAP, journal_ttl_s=60
    )
    for i, earlier in enumerate(before):  # the queue is not empty: no clearing by emptiness
        assert (
            await queue.enqueue(earlier, dedupe=f"e{i}", dedupe_ttl_s=60)
        ).intake is Intake.ACCEPTED
    for key, value in leaked.items():
        await (redis_client.delete(key) if value is None else redis_client.set(key, value))
    assert (await queue.enqueue(ask, dedupe="late", dedupe_ttl_s=60)).intake is Intake.ACCEPTED
    for key, count in counts.items():
        assert await redis_client.get(key) == count
        assert 0 < await redis_client.ttl(key) <= 60  # and it expires, as a net


async def test_a_flood_of_refusals_recounts_once_a_minute_not_once_each(
    redis_client: redis.asyncio.Redis,
):
    """A count raised or recounted within `RECOUNT_AFTER_S` refuses without a scan."""
    queue = RedisWorkQueue(redis_client, max_items=9, max_per_asker=CAP, journal_ttl_s=600)
    await _ask(queue, "U2", "u2:0")  # the queue is not empty: no clearing by emptiness
    await redis_client.set(_ASKER, CAP, ex=600)  # just touched, as if U1 were at the cap
    assert await _ask(queue, "U1", "u1:0") is Intake.CAPPED
    assert await redis_client.get(_ASKER) == str(CAP), "not scanned again within the minute"
    await redis_client.expire(_ASKER, 600 - RECOUNT_AFTER_S)  # untouched for a minute
    assert await _ask(queue, "U1", "u1:1") is Intake.ACCEPTED  # recounted: U1 holds none
    assert await redis_client.get(_ASKER) == "1"


async def test_a_recount_still_refuses_what_the_stream_holds(redis_client: redis.asyncio.Redis):
    queue = RedisWorkQueue(
        redis_client, max_items=9, max_pushed=1, max_per_asker=CAP, journal_ttl_s=60
    )
    for i in range(CAP):
        await _ask(queue, "U1", f"u1:{i}")
    await queue.enqueue(pushed("f0"), dedupe="alert:0", dedupe_ttl_s=60)
    await redis_client.set(_ASKER, CAP + 5)
    await redis_client.set(_PUSHED, 7)
    assert await _ask(queue, "U1", "u1:late") is Intake.CAPPED
    assert await redis_client.get(_ASKER) == str(CAP)  # recounted from the stream
    refused = await queue.enqueue(pushed("f1"), dedupe="alert:1", dedupe_ttl_s=60)
    assert refused.intake is Intake.FULL
    assert await redis_client.get(_PUSHED) == "1"
