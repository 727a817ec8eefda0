"""The work queue under test: on a real Redis (flushed per test), and in memory."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import pytest
import redis.asyncio

from bot.conversation import Incoming, ThreadKey
from bot.work import MemoryWorkQueue, RedisWorkQueue, WorkItem, WorkQueue


def item(user: str = "U1", *, deadline_s: float = 60.0, text: str = "why") -> WorkItem:
    now = time.time()
    return WorkItem(
        id=f"item-{user}-{text}-{now}",
        platform="test",
        kind="turn",
        incoming=Incoming(ThreadKey("test", "T1", "C1", "1.1"), user, text=text),
        responder={"channel": "C1"},
        request_id="req-1",
        enqueued_at=now,
        deadline_at=now + deadline_s,
    )


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
