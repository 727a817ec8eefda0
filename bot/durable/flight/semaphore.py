"""A global limit on concurrent calls to Run:ai, shared by every replica: a Redis semaphore.

The holders are one sorted set, member = owner token, score = when its lease ends (Redis
server time, so replicas' clocks never matter). One script drops expired holders and takes
as many of the free slots as are asked for; a holder that crashed stops counting when its
lease ends, so nothing waits on it for ever.

Round trips are few: this is a local limiter in front of a coarse shared one. Calls that
want a slot at the same moment (a diagnosis's reads of one chain level) take their global
slots in one script call; a call that ends hands its slot to the next call of this process
(the next level's reads) instead of giving it back, and the slots left unused for
`linger_s` are given back together, in one `ZREM`. A slot is handed on only while it is
younger than `reuse_s`: past that it goes back to the shared pool even when calls of this
process are waiting. Processes that find too few slots free wait in line (a second sorted
set; a place lapses a second after the process's last attempt, so a dead one leaves the
line, and one that stops waiting leaves it at once). Free slots go one each to those in
line, in order, and the rest to whoever asks; one that got some but wants more goes to the
back. So a busy replica cannot take back every slot it frees while another has none. A
slot this process holds unused still counts.

Leases are short and renewed: while a process holds any slot, it extends all of them every
fifth of `lease_s` in one script call. A call may take far longer than the lease (httpx's
timeouts add up to 40 s), yet a process that dies (kill -9, a lost node) stops counting
within `lease_s`; with leases sized to the longest call instead, a replica killed while
holding slots held back every other replica's Run:ai calls for most of a minute. A slot
whose lease ended anyway (Redis restarted, or this process could not renew it for a whole
lease) is reported lost by the renewal: the call holding it finishes, and it is not handed
on. Apart from that, the calls in flight across every replica never exceed `limit`.

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

from bot.durable.flight.held_slots import Held, HeldSlots
from bot.durable.flight.slot_scripts import ACQUIRE, LEAVE, RENEW, line_keys
from bot.durable.tasks import stopped
from bot.ops.metrics import FAIL_OPEN

__all__ = ["SEMAPHORE_KEY", "SLOT_LEASE_S", "LocalLimit", "RedisSemaphore"]

SEMAPHORE_KEY = "runai-why:runai-calls"
#: How long a waiting process keeps its place in line after its last attempt: several of
#: its attempts (at most 0.1 s apart while it waits).
_PLACE_MS = 1000
#: How long the slots of a process that stopped renewing them (it died) still count.
SLOT_LEASE_S = 10.0


class RedisSemaphore(HeldSlots):
    """A `diagnosis.CallLimiter`: at most `limit` slots held at once across every replica.

    Args:
        client: the shared Redis.
        limit: slots in all.
        lease_s: how long a slot counts after its holder stopped renewing it (it died); a
            living holder renews every fifth of it.
        key: the sorted set's key.
        backoff_s: (first, longest) pause between attempts while every slot is held.
        sleep: the pause (tests count them).
        linger_s: how long a slot nobody in this process uses is kept before it is given back.
        reuse_s: how long after it was taken a slot may still be handed to another call.
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
        reuse_s: float = 2.0,
    ) -> None:
        if limit < 1:
            raise ValueError("a semaphore needs at least one slot")
        self._redis = client
        self._limit = limit
        self._lease_s = lease_s
        self._lease_ms = max(int(lease_s * 1000), 1)
        self._key = key
        self._line_keys = line_keys(key)
        self._me = uuid.uuid4().hex
        self._backoff_s = backoff_s
        self._sleep = sleep
        self._linger_s = linger_s
        self._reuse_s = reuse_s
        self._local = asyncio.Semaphore(limit)
        self._acquire = client.register_script(ACQUIRE)
        self._renew_script = client.register_script(RENEW)
        self._leave = client.register_script(LEAVE)
        self._in_line = False
        self._held: set[str] = set()
        """Every slot this process holds and Redis still counts: what the renewer extends."""
        self._idle: list[Held] = []
        self._stale: list[str] = []
        self._wanted: list[asyncio.Future[Held | None]] = []
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

        A call still waiting for a slot goes ahead without one at once, as when Redis fails,
        and so does every call after this (this process's own limit still holds): nothing
        would renew or give back a slot taken now. Then the background taking, giving and
        renewing are stopped and waited for, so no Redis command of this limiter outlives
        it; slots a stopped command may have taken are given back with the rest. A slot
        still in use, or handed on after this, is left to its lease.
        """
        self._closed = True
        self._stop_renewing.set()
        for future in list(self._wanted):
            self._grant(future, None)
        taker, self._taker = self._taker, None
        renewer, self._renewer = self._renewer, None
        await stopped([taker, renewer])
        if self._in_line:
            await self._leave_the_line()
        await self.flush()

    # ------------------------------------------------------------------ taking
    async def _take(self) -> Held | None:
        if self._closed:  # as when Redis fails: nothing would renew or give back a slot now
            return None
        while self._idle:
            held = self._idle.pop()
            if self._usable(held):
                return held
            self._stale.append(held[0])
        wanted: asyncio.Future[Held | None] = asyncio.get_running_loop().create_future()
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
        """Take global slots for every call waiting for one, then leave the line.

        A call that starts waiting while this task leaves the line finds it still running and
        starts no other, so it is served here: the task ends only when, after its last
        await, nothing waits.
        """
        while True:
            await self._serve_waiters()
            if not self._in_line:  # nothing waits, and no await since that was checked
                return
            await self._leave_the_line()

    async def _serve_waiters(self) -> None:
        """Until no call waits: one script call per attempt, with backoff while slots are short."""
        pause, longest = self._backoff_s
        while self._wanted:
            waiting = list(self._wanted)
            tokens = [uuid.uuid4().hex for _ in waiting]
            try:
                args: list[int | str] = [
                    self._limit,
                    self._lease_ms,
                    self._me,
                    _PLACE_MS,
                    *tokens,
                ]
                keys = [self._key, *self._line_keys]
                taken, in_line = (int(n) for n in await self._acquire(keys=keys, args=args))
            except (redis.RedisError, OSError) as error:
                # Every call waiting now goes ahead, those that came during this attempt too:
                # another attempt would keep them waiting as long again (retries included).
                self._log.warning("runai_slot_fail_open", error=type(error).__name__)
                FAIL_OPEN.labels(what="runai_semaphore").inc(len(self._wanted))
                for future in list(self._wanted):
                    self._grant(future, None)
                self._give_back_soon(tokens)  # the script may have run, its reply lost
                continue
            except asyncio.CancelledError:  # closing: the script may have taken them
                self._stale.extend(tokens)
                raise
            self._in_line = bool(in_line)
            self._held.update(tokens[:taken])
            if taken:
                self._renew_while_held()
            now = asyncio.get_running_loop().time()
            for future, token in zip(waiting, tokens[:taken], strict=False):
                self._grant(future, (token, now))
            if taken < len(waiting):
                await self._sleep(random.uniform(pause / 2, pause))  # noqa: S311 - jitter
                pause = min(pause * 2, longest)

    async def _leave_the_line(self) -> None:
        """Out of the line now, not when its place lapses: the slot it was due goes on.

        Cancelled on the way (closing), it still counts as in line, so `aclose` leaves again.
        """
        try:
            await self._leave(keys=list(self._line_keys), args=[self._me])
        except (redis.RedisError, OSError) as error:  # the place lapses anyway
            self._log.warning("runai_slot_leave_failed", error=type(error).__name__)
        self._in_line = False


class LocalLimit:
    """A `diagnosis.CallLimiter` for one process (no Redis): an `asyncio.Semaphore`."""

    def __init__(self, limit: int) -> None:
        self._slots = asyncio.Semaphore(limit)

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one of this process's slots for the block."""
        async with self._slots:
            yield
