"""A global limit on concurrent calls to Run:ai, shared by every replica: a Redis semaphore.

The holders are one sorted set, member = owner token, score = when its lease ends (Redis
server time, so replicas' clocks never matter). One script drops expired holders and takes
as many of the free slots as are asked for; a holder that crashed stops counting when its
lease ends, so nothing waits on it for ever.

Round trips are few: this is a local limiter in front of a coarse shared one. Calls that
want a slot at the same moment (a diagnosis's reads of one chain level) take their global
slots in one script call; a call that ends hands its slot to the next call of this process
(the next level's reads) instead of giving it back, and the slots left unused for
`linger_s` are given back together, in one `ZREM`. A slot this process holds unused still
counts, so the calls in flight across every replica never exceed `limit`.

Leases are short and renewed: while a process holds any slot, it extends all of them every
third of `lease_s` in one script call. A call may take far longer than the lease (httpx's
timeouts add up to 40 s), yet a process that dies (kill -9, a lost node) stops counting
within `lease_s`; with leases sized to the longest call instead, a replica killed while
holding every slot stopped every other replica's Run:ai calls for most of a minute.

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

from bot.durable.renewal import renew_until
from bot.durable.tasks import stopped
from bot.ops.metrics import FAIL_OPEN

__all__ = ["SEMAPHORE_KEY", "SLOT_LEASE_S", "LocalLimit", "RedisSemaphore"]

SEMAPHORE_KEY = "runai-why:runai-calls"
#: How long the slots of a process that stopped renewing them (it died) still count.
SLOT_LEASE_S = 10.0

#: KEYS[1] the holders; ARGV limit, lease (ms), then one new token per slot wanted.
#: Returns how many slots were taken: the first N tokens now hold one each.
_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local free = tonumber(ARGV[1]) - redis.call('ZCARD', KEYS[1])
local taken = math.min(free, #ARGV - 2)
if taken <= 0 then
  return 0
end
for i = 1, taken do
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[i + 2])
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return taken
"""

#: KEYS[1] the holders; ARGV lease (ms), then the tokens this process holds. A token whose
#: lease already ended is not taken back (`XX`): its slot may be someone else's by now.
_RENEW = """
local t = redis.call('TIME')
local ends = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
for i = 2, #ARGV do
  redis.call('ZADD', KEYS[1], 'XX', ends, ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 0
"""


class RedisSemaphore:
    """A `diagnosis.CallLimiter`: at most `limit` slots held at once across every replica.

    Args:
        client: the shared Redis.
        limit: slots in all.
        lease_s: how long a slot counts after its holder stopped renewing it (it died); a
            living holder renews every third of it.
        key: the sorted set's key.
        backoff_s: (first, longest) pause between attempts while every slot is held.
        sleep: the pause (tests count them).
        linger_s: how long a slot nobody in this process uses is kept before it is given back.
    """

    def __init__(
        self,
        client: redis.Redis,
        *,
        limit: int,
        lease_s: float = SLOT_LEASE_S,
        key: str = SEMAPHORE_KEY,
        backoff_s: tuple[float, float] = (0.005, 0.1),
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        linger_s: float = 0.05,
    ) -> None:
        if limit < 1:
            raise ValueError("a semaphore needs at least one slot")
        self._redis = client
        self._limit = limit
        self._lease_s = lease_s
        self._lease_ms = max(int(lease_s * 1000), 1)
        self._key = key
        self._backoff_s = backoff_s
        self._sleep = sleep
        self._linger_s = linger_s
        self._local = asyncio.Semaphore(limit)
        self._acquire = client.register_script(_ACQUIRE)
        self._renew_script = client.register_script(_RENEW)
        self._held: set[str] = set()
        """Every slot this process holds, in use or idle: what the renewer extends."""
        self._idle: list[str] = []
        self._wanted: list[asyncio.Future[str | None]] = []
        self._taker: asyncio.Task[None] | None = None
        self._giver: asyncio.Task[None] | None = None
        self._renewer: asyncio.Task[None] | None = None
        self._stop_renewing = asyncio.Event()
        self._closed = False
        self._log = structlog.get_logger(__name__)

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one slot for the block (waiting, with backoff, while all are taken)."""
        async with self._local:
            held = await self._take()
            try:
                yield
            finally:
                if held is not None:
                    self._hand_on(held)

    async def flush(self) -> None:
        """Give back every slot this process holds unused, now.

        The pending give-back is stopped and waited for first: a `ZREM` it is inside ends
        before this returns, never after the Redis client has closed.
        """
        giver, self._giver = self._giver, None
        await stopped([giver])
        await self._give_back()

    async def aclose(self) -> None:
        """Give back what is held, before the Redis client closes (the Run:ai client's close).

        The background taking, giving and renewing are stopped and waited for, so no Redis
        command of this limiter outlives it; a call still waiting for a slot goes ahead
        without one, as when Redis fails. Nothing is kept to give back later: a slot still
        in use, or handed on after this, is left to its lease.
        """
        self._closed = True
        self._stop_renewing.set()
        taker, self._taker = self._taker, None
        renewer, self._renewer = self._renewer, None
        await stopped([taker, renewer])
        for future in list(self._wanted):
            self._grant(future, None)
        await self.flush()

    # ------------------------------------------------------------------ taking
    async def _take(self) -> str | None:
        if self._idle:
            return self._idle.pop()
        wanted: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._wanted.append(wanted)
        if self._taker is None or self._taker.done():
            self._taker = asyncio.ensure_future(self._take_for_waiters())
        try:
            return await wanted
        except asyncio.CancelledError:
            if wanted in self._wanted:
                self._wanted.remove(wanted)
            elif not wanted.cancelled() and (got := wanted.result()) is not None:
                self._hand_on(got)  # granted as the caller gave up: someone else's now
            raise

    async def _take_for_waiters(self) -> None:
        """Take global slots for every call waiting for one: one script call per attempt."""
        pause, longest = self._backoff_s
        while self._wanted:
            waiting = list(self._wanted)
            tokens = [uuid.uuid4().hex for _ in waiting]
            try:
                args: list[int | str] = [self._limit, self._lease_ms, *tokens]
                taken = int(await self._acquire(keys=[self._key], args=args))
            except (redis.RedisError, OSError) as error:
                self._log.warning("runai_slot_fail_open", error=type(error).__name__)
                FAIL_OPEN.labels(what="runai_semaphore").inc(len(waiting))
                for future in waiting:
                    self._grant(future, None)
                continue
            self._held.update(tokens[:taken])
            if taken:
                self._renew_while_held()
            for future, token in zip(waiting, tokens[:taken], strict=False):
                self._grant(future, token)
            if taken < len(waiting):
                await self._sleep(random.uniform(pause / 2, pause))  # noqa: S311 - jitter
                pause = min(pause * 2, longest)

    def _grant(self, future: asyncio.Future[str | None], token: str | None) -> None:
        if future in self._wanted:
            self._wanted.remove(future)
        if not future.done():
            future.set_result(token)
        elif token is not None:  # its caller is gone
            self._hand_on(token)

    # ------------------------------------------------------------------ renewing
    def _renew_while_held(self) -> None:
        if not self._closed and (self._renewer is None or self._renewer.done()):
            every_s = self._lease_s / 3
            self._renewer = asyncio.ensure_future(
                renew_until(self._stop_renewing, self._renew, every_s)
            )

    async def _renew(self) -> bool:
        """Extend the lease of every slot held; False (the renewer ends) once none is."""
        if not self._held:
            return False
        try:
            await self._renew_script(keys=[self._key], args=[self._lease_ms, *self._held])
        except (redis.RedisError, OSError) as error:  # tried again a third of a lease later
            self._log.warning("runai_slot_renew_failed", error=type(error).__name__)
        return bool(self._held)

    # ------------------------------------------------------------------ giving back
    def _hand_on(self, token: str) -> None:
        """A slot a call is done with: to a call waiting for one, else kept a moment."""
        if self._wanted:
            self._grant(self._wanted[0], token)
            return
        self._idle.append(token)
        if not self._closed and (self._giver is None or self._giver.done()):
            self._giver = asyncio.ensure_future(self._give_back_later())

    async def _give_back_later(self) -> None:
        # A slot handed on while this task gives others back finds it still running, so it
        # schedules nothing: it is kept its moment too, then given back, not left to its lease.
        while self._idle:
            await asyncio.sleep(self._linger_s)
            await self._give_back()
            if self._closed:
                return

    async def _give_back(self) -> None:
        """`ZREM` every unused slot at once; a failure is left to the leases."""
        tokens, self._idle = self._idle, []
        if not tokens:
            return
        self._held.difference_update(tokens)  # no longer renewed, whatever the ZREM does
        try:
            await self._redis.zrem(self._key, *tokens)
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
