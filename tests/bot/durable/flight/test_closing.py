"""Closing a limiter or a flight stops its background tasks: none outlives it to talk to Redis.

A task left running after its owner closed goes on using the Redis client after shutdown; if
the event loop closes first, the connection it opened is left to the garbage collector.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from bot.durable.flight import SEMAPHORE_KEY, Flights, RedisSemaphore
from diagnosis import Payload

T = TypeVar("T")


async def _started_by(start: Callable[[], Awaitable[T]]) -> tuple[T, set[asyncio.Task[object]]]:
    """What `start` returns, and the tasks it left running (its own background tasks)."""
    before = asyncio.all_tasks()
    value = await start()
    return value, asyncio.all_tasks() - before


async def test_a_closed_limiter_leaves_no_give_back_pending(redis_client):
    limiter = RedisSemaphore(redis_client, limit=2, lease_s=30, linger_s=60)

    async def use_a_slot() -> None:
        async with limiter.slot():
            pass

    _, background = await _started_by(use_a_slot)
    assert background, "the slot is kept a moment, to be given back later"
    await limiter.aclose()
    assert not background & asyncio.all_tasks(), "the give-back was stopped and awaited"
    assert await redis_client.zcard(SEMAPHORE_KEY) == 0, "and the slot given back now"


async def test_a_closed_limiter_stops_taking_and_lets_its_waiter_go_ahead(redis_client):
    """Every slot is held elsewhere: closing stops the retries; the waiter goes without one."""
    retrying, never = asyncio.Event(), asyncio.Event()

    async def sleep(_: float) -> None:
        retrying.set()
        await never.wait()

    limiter = RedisSemaphore(redis_client, limit=1, lease_s=30, sleep=sleep)
    await redis_client.zadd(SEMAPHORE_KEY, {"another-replica": 2**50})
    entered = asyncio.Event()

    async def call() -> None:
        async with limiter.slot():
            entered.set()

    async def start() -> asyncio.Task[None]:
        task = asyncio.create_task(call())
        await retrying.wait()
        return task

    caller, background = await _started_by(start)
    await limiter.aclose()
    async with asyncio.timeout(10):
        await caller
    assert entered.is_set()
    assert not (background - {caller}) & asyncio.all_tasks(), "the taking was stopped"
    assert await redis_client.zrange(SEMAPHORE_KEY, 0, -1) == ["another-replica"]


async def test_closed_flights_stop_a_flight_its_caller_left(redis_client):
    """A read started ahead is cancelled; its flight goes on until the flights are closed."""
    flights = Flights(redis_client, report_ttl_s=30.0, poll_s=0.05)
    computing, release = asyncio.Event(), asyncio.Event()

    async def compute() -> Payload:
        computing.set()
        await release.wait()
        return Payload("the report", keep=True)

    async def start() -> asyncio.Task[str]:
        caller = asyncio.create_task(flights("report", "a key", compute))
        await computing.wait()
        return caller

    caller, background = await _started_by(start)
    caller.cancel()
    await asyncio.gather(caller, return_exceptions=True)
    assert background & asyncio.all_tasks(), "the flight outlives its caller"
    await flights.aclose()
    assert not background & asyncio.all_tasks(), "closing stopped it and waited for it"
    assert not await redis_client.keys("runai-why:flight:*lock"), "its lock was given up"
    assert await flights("report", "a key", compute_now) == "computed here"
    assert not await redis_client.keys("runai-why:flight:*"), "closed flights use no Redis"


async def compute_now() -> Payload:
    """A computation that answers at once."""
    return Payload("computed here", keep=True)
