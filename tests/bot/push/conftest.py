"""Fixtures of the push tests: the push side's `Kv` in Redis (flushed) and in memory, a chat."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio

from bot.app.backends import simulated
from bot.push import Kv, MemoryKv, RedisKv
from bot.watch.subscriptions import Declared, Subscriptions
from tests.bot.push.chat import Chat
from tests.bot.push.scenes import DEMO


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


@pytest.fixture
async def chat() -> AsyncIterator[Chat]:
    """The console's chat on its own copy of the demo, which also declares a `WATCHES` entry."""
    async with simulated(DEMO.model_copy(deep=True), transport="asgi") as up:
        declared = [
            Declared(channel="console", platform="console", project="vision", cluster="prod-a")
        ]
        yield Chat(up.runai, Subscriptions(MemoryKv(), declared), [], up.simulator)
