"""`Flights` on a real Redis: one computation per key, takeover from a dead leader, fail open."""

from __future__ import annotations

import asyncio
import socket

import pytest
import redis.asyncio
import structlog.testing

from bot.durable.connect import connect_redis
from bot.durable.flight import Flights
from bot.ops.metrics import REGISTRY
from diagnosis import Payload
from tests.bot.durable.renewers import renewer_stopped

KEY = "report", "cluster|workload|Failed|2026-01-01"


class Counting:
    """A computation that counts its runs and can be held until released."""

    def __init__(self, text: str = "the report", *, keep: bool = True) -> None:
        self.runs = 0
        self.text, self.keep = text, keep
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.release.set()

    async def __call__(self) -> Payload:
        self.runs += 1
        self.started.set()
        await self.release.wait()
        return Payload(self.text, self.keep)


def _flights(client: redis.asyncio.Redis | None, *, lock_ttl_s: float = 3.0) -> Flights:
    return Flights(client, report_ttl_s=30.0, lock_ttl_s=lock_ttl_s, poll_s=0.05)


def _fail_open() -> float:
    return REGISTRY.get_sample_value("runai_why_fail_open_total", {"what": "flight"}) or 0.0


async def test_concurrent_callers_on_two_replicas_share_one_computation(redis_url, redis_client):
    second = redis.asyncio.Redis.from_url(redis_url, decode_responses=True)
    a, b = _flights(redis_client), _flights(second)
    compute = Counting()
    compute.release.clear()
    try:
        calls = [asyncio.create_task((a if i % 2 else b)(*KEY, compute)) for i in range(50)]
        await compute.started.wait()
        compute.release.set()
        texts = await asyncio.gather(*calls)
    finally:
        await second.aclose()
    assert compute.runs == 1
    assert set(texts) == {"the report"}


async def test_a_kept_result_is_reused_and_one_not_to_be_kept_is_not(redis_url, redis_client):
    flights = _flights(redis_client)
    kept, unkept = Counting("kept"), Counting("an error", keep=False)
    assert await flights.run("lookup", "a", kept, keep_s=30) == ("kept", "computed")
    assert await flights.run("lookup", "a", kept, keep_s=30) == ("kept", "cache")
    assert kept.runs == 1
    await flights.run("lookup", "b", unkept, keep_s=30)
    await flights.run("lookup", "b", unkept, keep_s=30)
    assert unkept.runs == 2, "a result marked not to be kept is handed over, never reused"


async def test_a_kept_result_expires(redis_url, redis_client):
    flights = _flights(redis_client)
    compute = Counting()
    await flights.run("lookup", "a", compute, keep_s=0.05)
    async with asyncio.timeout(10):
        while await redis_client.keys("runai-why:flight:*:result"):  # noqa: ASYNC110 - Redis expiry
            await asyncio.sleep(0.01)
    assert await flights.run("lookup", "a", compute, keep_s=0.05) == ("the report", "computed")
    assert compute.runs == 2


async def test_a_dead_leaders_waiters_take_over_when_its_lock_expires(redis_url, redis_client):
    """A replica killed mid-flight leaves its lock; it expires (no renewal), a waiter leads."""
    flights = _flights(redis_client)
    compute = Counting()
    name = await _lock_of(flights, redis_client)
    await redis_client.set(name, "a-dead-replica", px=300)  # its lock, never renewed
    assert await flights(*KEY, compute) == "the report"
    assert compute.runs == 1
    assert not await redis_client.exists(name), "the new leader released its lock"


async def _lock_of(flights: Flights, client: redis.asyncio.Redis) -> str:
    """The lock key `flights` uses for `KEY` (found by running it once, then forgotten)."""
    await flights.run(*KEY, Counting(keep=False), keep_s=0)
    [done] = await client.keys("runai-why:flight:*:done:*")
    await client.flushdb()
    return str(done).split(":done:")[0] + ":lock"


async def test_a_leader_that_fails_lets_a_waiter_compute_instead(redis_url, redis_client):
    second = redis.asyncio.Redis.from_url(redis_url, decode_responses=True)
    a, b = _flights(redis_client), _flights(second)
    started, release = asyncio.Event(), asyncio.Event()

    async def broken() -> Payload:
        started.set()
        await release.wait()
        raise RuntimeError("a bug in the leader")

    try:
        leader = asyncio.create_task(a(*KEY, broken))
        await started.wait()
        compute = Counting()
        waiter = asyncio.create_task(b(*KEY, compute))
        release.set()
        with pytest.raises(RuntimeError):
            await leader
        assert await waiter == "the report"
    finally:
        await second.aclose()
    assert compute.runs == 1


async def test_a_long_leader_keeps_its_lock(redis_url, redis_client):
    """The lock outlives its TTL while the leader works: nobody else computes meanwhile."""
    second = redis.asyncio.Redis.from_url(redis_url, decode_responses=True)
    a, b = _flights(redis_client, lock_ttl_s=1.5), _flights(second, lock_ttl_s=1.5)
    compute = Counting()
    compute.release.clear()
    try:
        leader = asyncio.create_task(a(*KEY, compute))
        await compute.started.wait()
        waiter = asyncio.create_task(b(*KEY, compute))
        lock = next(k for k in await redis_client.keys("runai-why:flight:*") if k.endswith("lock"))
        for _ in range(3):  # three renewals' worth: the lock is still there
            await _renewed(redis_client, lock)
        compute.release.set()
        assert list(await asyncio.gather(leader, waiter)) == ["the report"] * 2
    finally:
        await second.aclose()
    assert compute.runs == 1


async def test_a_leader_whose_lock_is_anothers_stops_renewing_it(redis_client):
    """Its lock expired (a long pause) and another replica took it: renewing it is pointless."""
    compute = Counting()
    compute.release.clear()
    leader = asyncio.create_task(_flights(redis_client, lock_ttl_s=0.3)(*KEY, compute))
    await compute.started.wait()
    lock = next(k for k in await redis_client.keys("runai-why:flight:*") if k.endswith("lock"))
    await redis_client.set(lock, "another-replicas-token", px=60_000)
    await renewer_stopped(f"renew {lock}")
    assert await redis_client.pttl(lock) > 50_000  # never pushed back to the leader's TTL
    assert not leader.done()  # still computing: only the renewing stopped
    compute.release.set()
    assert await leader == "the report"


async def _renewed(client: redis.asyncio.Redis, lock: str) -> None:
    """Wait until `lock`'s TTL was pushed back up (a renewal), failing if it ever vanished."""
    async with asyncio.timeout(10):
        low = await client.pttl(lock)
        while (ttl := await client.pttl(lock)) <= low:
            assert ttl > 0, "the leader's lock expired while it was still working"
            low = min(low, ttl)
            await asyncio.sleep(0.005)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_redis_down_fails_open_the_work_is_done_anyway():
    down = connect_redis(f"redis://127.0.0.1:{_closed_port()}/0")  # as the bot connects
    before = _fail_open()
    compute = Counting()
    try:
        assert await _flights(down)(*KEY, compute) == "the report"
    finally:
        await down.aclose()
    assert compute.runs == 1
    assert _fail_open() - before == 1


async def test_a_redis_failure_after_the_work_still_answers(redis_url, redis_client):
    """Redis refusing the hand-off (here: the lock key turned into a list) costs no answer."""
    flights = _flights(redis_client, lock_ttl_s=0.3)
    compute = Counting()
    compute.release.clear()
    task = asyncio.create_task(flights(*KEY, compute))
    await compute.started.wait()
    lock = next(k for k in await redis_client.keys("runai-why:flight:*") if k.endswith("lock"))
    await redis_client.delete(lock)
    await redis_client.rpush(lock, "not a lock")  # every script reading it now fails
    before = _fail_open()
    with structlog.testing.capture_logs() as logs:
        async with asyncio.timeout(10):
            while not any(e["event"] == "flight_renew_failed" for e in logs):  # noqa: ASYNC110
                await asyncio.sleep(0.01)
        compute.release.set()
        assert await task == "the report"
    assert _fail_open() - before == 1
    assert "flight_finish_failed" in [e["event"] for e in logs]


async def test_in_one_process_without_redis_concurrent_callers_share_and_reuse():
    now = [0.0]
    flights = Flights(None, report_ttl_s=30, clock=lambda: now[0])
    compute = Counting()
    compute.release.clear()
    calls = [asyncio.create_task(flights(*KEY, compute)) for _ in range(20)]
    await compute.started.wait()
    compute.release.set()
    assert set(await asyncio.gather(*calls)) == {"the report"}
    assert await flights.run(*KEY, compute, keep_s=30) == ("the report", "cache")
    now[0] = 31.0
    assert await flights.run(*KEY, compute, keep_s=30) == ("the report", "computed")
    assert compute.runs == 2
