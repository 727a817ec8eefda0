"""The work queue under test: on a real Redis (flushed per test), and in memory."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio

from bot.work import MemoryWorkQueue, RedisWorkQueue, WorkQueue


@pytest.fixture(params=["redis", "memory"])
async def queue(request: pytest.FixtureRequest, redis_url: str) -> AsyncIterator[WorkQueue]:
    """A queue of at most 3 items, in Redis or in memory."""
    if request.param == "memory":
        yield MemoryWorkQueue(max_items=3)
        return
    client = redis.asyncio.Redis.from_url(redis_url, decode_responses=True)
    await client.flushdb()
    try:
        yield RedisWorkQueue(client, max_items=3, journal_ttl_s=60)
    finally:
        await client.flushdb()
        await client.aclose()
