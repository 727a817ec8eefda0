"""A global limit on concurrent calls to Run:ai, shared by every replica: a Redis semaphore.

The holders are one sorted set, member = owner token, score = when its lease ends (Redis
server time, so replicas' clocks never matter). One script drops expired holders and takes
a slot if fewer than `limit` are held; a holder that crashed stops counting when its lease
ends, so nothing waits on it for ever. Releasing removes the token.

Redis failing never fails a diagnosis: the call goes ahead without a global slot (fail
open), logged as `runai_slot_fail_open` and counted in `FAIL_OPEN`. Why open, not a gap:
when Redis is down no new request can be queued or remembered either, so the load on Run:ai
is already falling; turning calls that are under way into gaps would hurt the people
waiting for answers to protect nothing. Each process still never exceeds `limit` on its own.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import redis.asyncio as redis
import structlog

from bot.metrics import FAIL_OPEN

__all__ = ["SEMAPHORE_KEY", "LocalLimit", "RedisSemaphore"]

SEMAPHORE_KEY = "runai-why:runai-calls"

_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
"""


class RedisSemaphore:
    """A `diagnosis.CallLimiter`: at most `limit` slots held at once across every replica.

    Args:
        client: the shared Redis.
        limit: slots in all.
        lease_s: a slot not released within this long is taken to belong to a dead holder.
        key: the sorted set's key.
        backoff_s: (first, longest) pause between attempts while every slot is held.
        sleep: the pause (tests count them).
    """

    def __init__(
        self,
        client: redis.Redis,
        *,
        limit: int,
        lease_s: float,
        key: str = SEMAPHORE_KEY,
        backoff_s: tuple[float, float] = (0.005, 0.1),
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if limit < 1:
            raise ValueError("a semaphore needs at least one slot")
        self._redis = client
        self._limit = limit
        self._lease_ms = max(int(lease_s * 1000), 1)
        self._key = key
        self._backoff_s = backoff_s
        self._sleep = sleep
        self._local = asyncio.Semaphore(limit)
        self._acquire = client.register_script(_ACQUIRE)
        self._log = structlog.get_logger(__name__)

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one slot for the block (waiting, with backoff, while all are taken)."""
        async with self._local:
            token = await self._take()
            try:
                yield
            finally:
                if token is not None:
                    await self._give_back(token)

    async def _take(self) -> str | None:
        token = uuid.uuid4().hex
        pause, longest = self._backoff_s
        while True:
            try:
                args: list[int | str] = [self._limit, self._lease_ms, token]
                if await self._acquire(keys=[self._key], args=args):
                    return token
            except (redis.RedisError, OSError) as error:
                self._log.warning("runai_slot_fail_open", error=type(error).__name__)
                FAIL_OPEN.labels(what="runai_semaphore").inc()
                return None
            await self._sleep(random.uniform(pause / 2, pause))  # noqa: S311 - jitter, not crypto
            pause = min(pause * 2, longest)

    async def _give_back(self, token: str) -> None:
        try:
            await self._redis.zrem(self._key, token)
        except (redis.RedisError, OSError) as error:  # the lease ends it anyway
            self._log.warning("runai_slot_release_failed", error=type(error).__name__)


class LocalLimit:
    """A `diagnosis.CallLimiter` for one process (no Redis): an `asyncio.Semaphore`."""

    def __init__(self, limit: int) -> None:
        self._slots = asyncio.Semaphore(limit)

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one of this process's slots for the block."""
        async with self._slots:
            yield
