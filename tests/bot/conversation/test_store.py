"""Both state stores keep the same promises: state with a TTL, one lock per thread, claims once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import redis.exceptions
import structlog.testing
from redis.asyncio.lock import Lock

from bot.conversation import (
    Choice,
    ConversationState,
    MemoryStore,
    RedisStore,
    Slots,
    StoreUnavailable,
    ThreadKey,
)
from bot.conversation.parse import Expecting
from bot.conversation.store import ThreadBusy
from diagnosis import Category, EvidenceLine, Outcome, Report

KEY = ThreadKey("slack", "T1", "C1", "1700.1")


@pytest.fixture(params=["memory", "redis"])
async def store(request, redis_client) -> AsyncIterator[MemoryStore | RedisStore]:
    if request.param == "memory":
        yield MemoryStore(ttl_s=60)
    else:
        yield RedisStore(redis_client, ttl_s=60, lock_timeout_s=5)


async def test_state_round_trip(store):
    assert await store.load(KEY) is None
    state = ConversationState(slots=Slots(cluster_id="c", workload_name="w"), started_by="U1")
    await store.save(KEY, state)
    assert await store.load(KEY) == state
    assert await store.load(ThreadKey("slack", "T1", "C1", "other")) is None


async def test_claim_is_true_exactly_once(store):
    results = await asyncio.gather(*(store.claim("evt:Ev1", 60) for _ in range(10)))
    assert results.count(True) == 1


async def test_lock_serialises_one_thread(store):
    order: list[str] = []

    async def turn(name: str) -> None:
        async with store.lock(KEY):
            order.append(f"{name}-in")
            await asyncio.sleep(0.05)
            order.append(f"{name}-out")

    await asyncio.gather(turn("a"), turn("b"))
    assert order in (["a-in", "a-out", "b-in", "b-out"], ["b-in", "b-out", "a-in", "a-out"])


async def test_a_bounded_wait_for_a_held_lock_is_busy_and_leaves_it_to_its_holder(store):
    """`wait_s` cuts the wait short: nothing is taken, and the next turn gets the lock."""
    async with store.lock(KEY):
        with pytest.raises(ThreadBusy):
            async with store.lock(KEY, wait_s=0.1):
                pytest.fail("a held lock was taken twice")
    async with asyncio.timeout(2), store.lock(KEY, wait_s=0.1):  # free again at once
        pass


async def test_redis_state_expires(redis_client):
    store = RedisStore(redis_client, ttl_s=60)
    await store.save(KEY, ConversationState())
    assert 0 < await redis_client.ttl(KEY.redis_key("conv")) <= 60


async def test_redis_down_is_a_clear_error_and_ping_false():
    import redis.asyncio as redis  # noqa: PLC0415 - only this test needs the raw client

    client = redis.Redis.from_url("redis://127.0.0.1:1/0", socket_connect_timeout=0.5)
    store = RedisStore(client)
    with pytest.raises(StoreUnavailable, match="Redis is unavailable"):
        await store.load(KEY)
    with pytest.raises(StoreUnavailable):
        await store.claim("x", 10)
    assert await store.ping() is False
    await client.aclose()


async def test_a_turn_that_outlives_its_redis_lock_is_logged_not_reported_as_redis_down(
    redis_client,
):
    store = RedisStore(redis_client, lock_timeout_s=0.2)
    with structlog.testing.capture_logs() as logs:
        async with store.lock(KEY):
            await asyncio.sleep(0.4)  # the lock expires while the diagnosis is still running
    assert [e["event"] for e in logs] == ["thread_lock_expired"]


async def test_a_thread_held_elsewhere_is_busy_not_redis_down(redis_client):
    holder = RedisStore(redis_client, lock_timeout_s=5)
    waiter = RedisStore(redis_client, lock_timeout_s=0.2)
    async with holder.lock(KEY):
        with pytest.raises(ThreadBusy):
            async with waiter.lock(KEY):
                pass


async def test_a_thread_with_a_pending_question_and_an_answer_round_trips(store):
    """The asker, the question's buttons and the last report survive the store as they were."""
    report = Report(
        outcome=Outcome.DIAGNOSED,
        category=Category.OOM_KILLED,
        headline="Killed for memory.",
        evidence=(EvidenceLine(text="exit code 137", source="get_workload_pods"),),
    )
    state = ConversationState(
        slots=Slots(cluster_label="prod-a", workload_name="w", project="p"),
        asker="U1",
        expecting=Expecting.CLUSTER,
        question="Which Run:ai cluster is it on?",
        choices=(Choice(label="prod-a", value="cluster:c1"),),
        question_ref="1700.2",
        last_report=report,
        last_lookback="7d",
    )
    await store.save(KEY, state)
    assert await store.load(KEY) == state


async def test_a_lock_whose_renewal_failed_once_is_renewed_again(redis_client, monkeypatch):
    """A Redis blip does not end the renewing: the turn keeps its thread."""
    reacquire = Lock.reacquire
    failed: list[bool] = []

    async def once_unreachable(self: Lock) -> bool:
        if not failed:
            failed.append(True)
            raise redis.exceptions.ConnectionError("Connection reset by peer")
        return await reacquire(self)

    monkeypatch.setattr(Lock, "reacquire", once_unreachable)
    renewing = RedisStore(redis_client, lock_timeout_s=5, lock_ttl_s=0.3)
    waiter = RedisStore(redis_client, lock_timeout_s=0.1)
    async with renewing.lock(KEY):
        await asyncio.sleep(0.9)  # three times its TTL
        assert failed
        with pytest.raises(ThreadBusy):
            async with waiter.lock(KEY):
                pass


async def test_a_renewed_lock_outlives_its_ttl_and_a_dead_holders_expires(redis_client):
    renewing = RedisStore(redis_client, lock_timeout_s=5, lock_ttl_s=0.3)
    waiter = RedisStore(redis_client, lock_timeout_s=0.1)
    with structlog.testing.capture_logs() as logs:
        async with renewing.lock(KEY):
            await asyncio.sleep(0.6)  # twice its TTL: renewed, so still held
            with pytest.raises(ThreadBusy):
                async with waiter.lock(KEY):
                    pass
    assert logs == []
    dead = redis_client.lock(KEY.redis_key("lock"), timeout=0.3)  # a holder that died
    assert await dead.acquire()
    async with RedisStore(redis_client, lock_timeout_s=5).lock(KEY):
        pass  # taken once the dead holder's TTL ran out
