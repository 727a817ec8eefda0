"""Fixtures of the push tests: the push side's `Kv` in Redis (flushed) and in memory."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio

from bot.push import Kv, MemoryKv, RedisKv


@pytest.fixture(params=["redis", "memory"])
async def kv(request: pytest.FixtureRequest, redis_url: str) -> AsyncIterator[Kv]:
    if request.param == "memory":
        yield MemoryKv()
        return
    client = redis.asyncio.Redis.from_url(redis_url, decode_responses=True)
    await client.flushdb()
    try:
        yield RedisKv(client)
    finally:
        await client.flushdb()
        await client.aclose()
