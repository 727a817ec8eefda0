"""The queue's contract, the same for Redis Streams and memory: dedupe, bound, reclaim, hand back."""

from __future__ import annotations

import asyncio
import socket

import pytest
import redis.asyncio

from bot.durable.connect import connect_redis
from bot.work import Intake, QueueUnavailable, RedisWorkQueue, ShownPost, WorkQueue
from tests.bot.work.items import item

pytestmark = pytest.mark.e2e


async def test_a_duplicate_is_refused_while_the_first_is_unfinished_and_never_lost(
    queue: WorkQueue,
):
    first = await queue.enqueue(item(), dedupe="msg:1", dedupe_ttl_s=60)
    assert first.intake is Intake.ACCEPTED
    [taken] = await queue.take("a", 5, 0)  # consumer a takes it, then dies without acking
    again = await queue.enqueue(item(), dedupe="msg:1", dedupe_ttl_s=60)
    assert again.intake is Intake.DUPLICATE
    assert await queue.reclaim("b", 0, 5) == []  # seen idle: taken if still idle next time
    [reclaimed] = await queue.reclaim("b", 0, 5)  # the claimed item is still there for b
    assert (reclaimed.entry_id, reclaimed.times, reclaimed.reclaimed) == (taken.entry_id, 2, True)
    await queue.finish(reclaimed)
    assert await queue.depth() == 0
    late = await queue.enqueue(item(), dedupe="msg:1", dedupe_ttl_s=60)
    assert late.intake is Intake.DUPLICATE  # answered: Slack's late retry is still one


async def test_a_full_queue_refuses_without_claiming(queue: WorkQueue):
    results = [
        await queue.enqueue(item(f"U{i}"), dedupe=f"msg:{i}", dedupe_ttl_s=60) for i in range(4)
    ]
    assert [r.intake for r in results] == [Intake.ACCEPTED] * 3 + [Intake.FULL]
    assert [r.ahead for r in results[:3]] == [0, 1, 2]
    assert results[3].depth == 3
    [done] = await queue.take("a", 1, 0)
    await queue.finish(done)
    retried = await queue.enqueue(item("U3"), dedupe="msg:3", dedupe_ttl_s=60)
    assert retried.intake is Intake.ACCEPTED  # the refusal claimed nothing


async def test_ahead_counts_only_what_waits(queue: WorkQueue):
    for i in range(2):
        await queue.enqueue(item(f"U{i}"), dedupe=f"msg:{i}", dedupe_ttl_s=60)
    await queue.take("a", 1, 0)  # one in flight, one waiting
    third = await queue.enqueue(item("U9"), dedupe="msg:9", dedupe_ttl_s=60)
    assert (third.ahead, third.depth) == (1, 2)


async def test_take_never_hands_out_more_than_asked(queue: WorkQueue):
    for i in range(3):
        await queue.enqueue(item(f"U{i}"), dedupe=f"msg:{i}", dedupe_ttl_s=60)
    assert len(await queue.take("a", 2, 0)) == 2
    assert len(await queue.take("b", 5, 0)) == 1
    assert await queue.take("c", 5, 0.05) == []


async def test_retire_puts_unfinished_work_at_the_tail_with_its_journal(queue: WorkQueue):
    work = item()
    await queue.enqueue(work, dedupe="msg:1", dedupe_ttl_s=60)
    [taken] = await queue.take("a", 1, 0)
    assert taken.item == work
    await queue.journal(work.id).record_post(0, ShownPost("171.1", progress=True), "171.1")
    assert await queue.retire("b") == 0  # not b's to hand back
    assert await queue.retire("a") == 1
    [again] = await queue.take("b", 1, 0)
    assert again.item == work
    assert (again.times, again.earlier) == (1, 1)  # counted afresh, known to be a retry
    shown = await queue.journal(work.id).load()
    assert shown.posts == (ShownPost("171.1", progress=True),)
    assert shown.thread == "171.1"


async def test_the_journal_adds_up_the_response_url_posts_of_every_attempt(queue: WorkQueue):
    """Each attempt adds what it spends; a reply made there is journaled with no ref."""
    work = item()
    first = queue.journal(work.id)
    await first.record_spent(1, (0, ShownPost("", progress=True)))  # "Diagnosing …"
    await first.record_spent(1)  # a private notice
    await queue.journal(work.id).record_spent(3)  # another attempt's answer
    shown = await queue.journal(work.id).load()
    assert (shown.spent, shown.posts) == (5, (ShownPost("", progress=True),))


async def test_a_hand_back_carries_every_earlier_delivery(queue: WorkQueue):
    await queue.enqueue(item(), dedupe="msg:1", dedupe_ttl_s=60)
    await queue.take("a", 1, 0)
    await queue.reclaim("b", 0, 1)
    await queue.reclaim("b", 0, 1)  # delivered twice, then handed back
    assert await queue.retire("b") == 1
    [again] = await queue.take("c", 1, 0)
    assert await queue.retire("c") == 1  # and once more
    [last] = await queue.take("d", 1, 0)
    assert (again.times, again.earlier, last.times, last.earlier) == (1, 2, 1, 3)


async def test_reclaim_takes_only_what_stayed_idle_since_it_was_seen(queue: WorkQueue):
    """A holder that renews first after an outage keeps its item; a silent one loses it."""
    await queue.enqueue(item(), dedupe="msg:1", dedupe_ttl_s=60)
    [taken] = await queue.take("a", 1, 0)
    await asyncio.sleep(0.15)  # idle past 0.1 s (an outage: a could not renew)
    assert await queue.reclaim("b", 0.1, 1) == []  # seen idle...
    await asyncio.sleep(0.06)
    assert await queue.heartbeat("a", [taken]) == []  # ...a renews first...
    assert await queue.reclaim("b", 0.1, 1) == []  # ...and keeps it
    await asyncio.sleep(0.15)  # silent since
    assert await queue.reclaim("b", 0.1, 1) == []
    await asyncio.sleep(0.06)
    [reclaimed] = await queue.reclaim("b", 0.1, 1)
    assert (reclaimed.entry_id, reclaimed.times, reclaimed.reclaimed) == (taken.entry_id, 2, True)
    assert await queue.heartbeat("a", [taken]) == [taken.entry_id]


async def test_forget_drops_only_consumers_idle_that_hold_nothing(
    redis_client: redis.asyncio.Redis,
):
    queue = RedisWorkQueue(redis_client, max_items=30, journal_ttl_s=60)
    for n in range(3):  # three consumers killed (-9) after their items were taken over
        await queue.enqueue(item(f"U{n}"), dedupe=f"msg:{n}", dedupe_ttl_s=60)
        await queue.take(f"killed-{n}", 1, 0)
    await queue.reclaim("taker", 0, 5)
    for back in await queue.reclaim("taker", 0, 5):
        await queue.finish(back)
    await queue.enqueue(item("U9"), dedupe="msg:9", dedupe_ttl_s=60)
    await queue.take("holder", 1, 0)  # silent too, but holds an item
    await asyncio.sleep(0.3)
    await queue.enqueue(item("U8"), dedupe="msg:8", dedupe_ttl_s=60)
    [done] = await queue.take("alive", 1, 0)  # alive: it has just taken and answered one
    await queue.finish(done)
    assert await queue.forget(0.2) == 4  # the killed ones, and the taker (silent since)
    consumers = await redis_client.xinfo_consumers(queue.stream, "workers")
    assert sorted(c["name"] for c in consumers) == ["alive", "holder"]
    assert await queue.retire("holder") == 1  # what it holds is still there


async def test_heartbeat_keeps_only_what_the_consumer_still_owns(queue: WorkQueue):
    await queue.enqueue(item(), dedupe="msg:1", dedupe_ttl_s=60)
    [taken] = await queue.take("a", 1, 0)
    await queue.reclaim("b", 0, 1)
    [stolen] = await queue.reclaim("b", 0, 1)
    # a woke up: it must not take it back, and learns it lost it
    assert await queue.heartbeat("a", [taken]) == [taken.entry_id]
    assert stolen.entry_id == taken.entry_id
    assert await queue.retire("a") == 0
    assert await queue.retire("b") == 1


async def test_finish_marks_the_journal_answered_and_dead_letter_removes(queue: WorkQueue):
    first, second = item("U1"), item("U2")
    await queue.enqueue(first, dedupe="msg:1", dedupe_ttl_s=60)
    await queue.enqueue(second, dedupe="msg:2", dedupe_ttl_s=60)
    one, two = await queue.take("a", 2, 0)
    await queue.journal(first.id).mark_answered()
    assert (await queue.journal(first.id).load()).answered
    await queue.finish(one)
    await queue.dead_letter(two, "delivered 4 times")
    assert await queue.depth() == 0
    assert await queue.reclaim("b", 0, 5) == []
    assert await queue.retire("a") == 0


async def test_dead_letters_land_in_their_own_stream(redis_client: redis.asyncio.Redis):
    queue = RedisWorkQueue(redis_client, max_items=3, journal_ttl_s=60)
    await queue.enqueue(item(), dedupe="msg:1", dedupe_ttl_s=60)
    [taken] = await queue.take("a", 1, 0)
    await queue.dead_letter(taken, "delivered 4 times")
    [(_, fields)] = list(await redis_client.xrange(queue.dead) or [])
    assert dict(fields or {}) == {"item": taken.raw, "reason": "delivered 4 times"}


async def test_an_unreadable_entry_is_delivered_as_no_item(redis_client: redis.asyncio.Redis):
    queue = RedisWorkQueue(redis_client, max_items=3, journal_ttl_s=60)
    await queue.ensure_group()
    await redis_client.xadd(queue.stream, {"item": "{not json"})
    [taken] = await queue.take("a", 1, 0)
    assert taken.item is None
    await queue.finish(taken)
    assert await queue.depth() == 0


async def test_redis_lost_the_group_it_is_made_again(redis_client: redis.asyncio.Redis):
    queue = RedisWorkQueue(redis_client, max_items=3, journal_ttl_s=60)
    await queue.enqueue(item(), dedupe="msg:1", dedupe_ttl_s=60)
    assert len(await queue.take("a", 1, 0)) == 1
    await redis_client.flushdb()  # a restart without persistence
    assert await queue.reclaim("a", 0, 1) == []
    assert await queue.take("a", 1, 0) == []
    await queue.enqueue(item("U2"), dedupe="msg:2", dedupe_ttl_s=60)
    assert len(await queue.take("a", 1, 0)) == 1


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda q: q.enqueue(item(), dedupe="m", dedupe_ttl_s=60), id="enqueue"),
        pytest.param(lambda q: q.take("a", 1, 0), id="take"),
        pytest.param(lambda q: q.reclaim("a", 0, 1), id="reclaim"),
        pytest.param(lambda q: q.depth(), id="depth"),
        pytest.param(lambda q: q.journal("x").load(), id="journal"),
    ],
)
async def test_redis_down_raises_queue_unavailable(call):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = f"redis://127.0.0.1:{sock.getsockname()[1]}/0"
    client = connect_redis(dead)  # as the bot connects
    try:
        with pytest.raises(QueueUnavailable, match="Redis is unavailable"):
            await call(RedisWorkQueue(client, max_items=3, journal_ttl_s=60))
    finally:
        await client.aclose()


@pytest.mark.parametrize(
    ("ending", "stale"),
    [
        pytest.param("finished", True, id="finished by another attempt"),
        pytest.param("dead-lettered", True, id="dead-lettered, its asker told"),
        pytest.param("lost", False, id="lost with Redis's data: the only attempt left"),
    ],
)
async def test_an_entry_gone_is_stale_only_if_its_journal_says_answered(
    redis_client: redis.asyncio.Redis, ending: str, *, stale: bool
):
    queue = RedisWorkQueue(redis_client, max_items=3, journal_ttl_s=60)
    await queue.enqueue(item(), dedupe="msg:1", dedupe_ttl_s=60)
    [taken] = await queue.take("a", 1, 0)
    if ending == "finished":
        await queue.finish(taken)
    elif ending == "dead-lettered":
        await queue.dead_letter(taken, "delivered 4 times")
    else:
        await redis_client.delete(queue.stream)  # the group with it
    assert await queue.heartbeat("a", [taken]) == ([taken.entry_id] if stale else [])
    await queue.finish(taken)  # nothing left to acknowledge: no error
