"""A turn's lock and its state arrive in one Redis round trip; counted, never timed."""

from __future__ import annotations

import asyncio

from bot.conversation import ConversationState, RedisStore, Slots, ThreadKey
from tests.redis_trips import counted_round_trips

KEY = ThreadKey("slack", "T1", "C1", "1700.2")
STATE = ConversationState(slots=Slots(cluster_id="c", workload_name="w"), started_by="U1")


async def test_the_lock_and_the_state_are_read_together(redis_client):
    store = RedisStore(redis_client, ttl_s=60, lock_timeout_s=5)
    await store.save(KEY, STATE)
    with counted_round_trips() as trips:
        async with store.lock(KEY):
            assert await store.load(KEY) == STATE
    reads = [t for t in trips.trips if "GET" in t or "SET" in t]
    assert reads == [("SET", "GET")], trips.by_command()  # then only the release's script
    assert await redis_client.exists(KEY.redis_key("lock")) == 0, "released"


async def test_a_state_saved_under_the_lock_is_the_one_loaded_next(redis_client):
    store = RedisStore(redis_client, ttl_s=60, lock_timeout_s=5)
    async with store.lock(KEY):
        assert await store.load(KEY) is None
        await store.save(KEY, STATE)
        assert await store.load(KEY) == STATE
    async with store.lock(KEY):
        assert await store.load(KEY) == STATE


async def test_a_held_lock_is_waited_for_and_the_state_read_after_it(redis_client):
    first = RedisStore(redis_client, ttl_s=60, lock_timeout_s=5)
    second = RedisStore(redis_client, ttl_s=60, lock_timeout_s=5)
    entered = asyncio.Event()

    async def later() -> ConversationState | None:
        async with second.lock(KEY):
            entered.set()
            return await second.load(KEY)

    async with first.lock(KEY):
        waiting = asyncio.create_task(later())
        await asyncio.sleep(0.05)
        assert not entered.is_set(), "the other replica waits for the lock"
        await first.save(KEY, STATE)
    async with asyncio.timeout(10):
        assert await waiting == STATE, "it reads the state saved before the lock was freed"
