"""Single-flight and a short cache, across replicas: the bot's implementation of `Share`.

Two layers. In a process, concurrent callers of one key share one task. Across replicas,
that task runs this protocol in Redis (keys hash-tagged per flight, so Cluster works):

1. `GET result`: a report kept from a recent flight (`DIAGNOSIS_CACHE_TTL_S`) is reused.
2. Else, in the same script, `SET lock <token> NX PX`: the winner leads. It computes,
   renewing the lock while it runs, then one script keeps the result (if it may be kept),
   pushes it onto `done:<token>` for those waiting, and deletes the lock.
3. Everyone else reads the lock's token and blocks on `BLMOVE done:<token> done:<token>`
   (a rotation: the result stays in the list for the next waiter). A leader that dies stops
   renewing its lock; when it expires, a waiter's `SET NX` wins and it computes instead.

Redis failing never fails a diagnosis: the caller computes on its own (fail open), logged
as `flight_fail_open` and counted in `FAIL_OPEN`. Without Redis the first layer plus an
in-memory cache serve the one process.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Literal

import redis.asyncio as redis
import structlog

from bot.durable.renewal import renewing
from bot.durable.tasks import stopped
from bot.errors import BotError
from bot.ops.metrics import FAIL_OPEN, SHARED_DIAGNOSES
from bot.ops.observe import current_trace
from diagnosis import Payload

__all__ = ["FLIGHT_LOCK_TTL_S", "LOOKUP_REUSE_S", "Flights", "Via"]

#: How a caller got its result: it computed it, joined a running flight, or reused a kept one.
Via = Literal["computed", "flight", "cache"]
#: The longest a resolution read (a workload's status, a name's matches) is reused: how
#: stale a storm's view of the workload's state may be (a report is keyed by that state).
LOOKUP_REUSE_S = 5.0
#: How long a leader's lock lives unless renewed (a shorter `QUEUE_CLAIM_IDLE_S` caps it).
FLIGHT_LOCK_TTL_S = 5.0
_PREFIX = "runai-why:flight:v1:"

_TAKE = """
if ARGV[3] == '1' then
  local kept = redis.call('GET', KEYS[1])
  if kept then return {'kept', kept} end
end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return {'lead', ''} end
return {'wait', redis.call('GET', KEYS[2]) or ''}
"""
_FINISH = """
redis.call('DEL', KEYS[3])
redis.call('RPUSH', KEYS[3], ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
if tonumber(ARGV[3]) > 0 then redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3]) end
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
"""
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
_ABANDON = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

Compute = Callable[[], Awaitable[Payload]]


class Flights:
    """`Share` for the pipeline, and `run` for any other shared read (the cluster list).

    Args:
        client: the shared Redis; None shares within this process only.
        report_ttl_s: how long a finished report is reused (0: only by those already waiting).
        lock_ttl_s: a leader's lock lives this long unless renewed: how soon a dead leader's
            waiters take over.
        poll_s: how long a waiter blocks before looking at the lock again.
        lookup_ttl_s: how long a resolution read is reused (at most `report_ttl_s`).
    """

    def __init__(
        self,
        client: redis.Redis | None,
        *,
        report_ttl_s: float,
        lock_ttl_s: float = FLIGHT_LOCK_TTL_S,
        poll_s: float = 0.5,
        lookup_ttl_s: float = LOOKUP_REUSE_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._redis = client
        self._report_ttl_s = report_ttl_s
        self._lookup_ttl_s = min(lookup_ttl_s, report_ttl_s)
        self._lock_ms = max(int(lock_ttl_s * 1000), 1)
        self._poll_s = poll_s
        self._clock = clock
        self._running: dict[str, asyncio.Task[tuple[str, Via]]] = {}
        self._kept: dict[str, tuple[float, str]] = {}
        self._closed = False
        self._log = structlog.get_logger(__name__)
        if client is not None:
            self._take = client.register_script(_TAKE)
            self._finish = client.register_script(_FINISH)
            self._renew = client.register_script(_RENEW)
            self._abandon = client.register_script(_ABANDON)

    async def __call__(self, kind: str, key: str, compute: Compute, /) -> str:
        """See `diagnosis.Share`; reports are reused for `report_ttl_s`, reads briefly."""
        keep_s = self._report_ttl_s if kind == "report" else self._lookup_ttl_s
        text, via = await self.run(kind, key, compute, keep_s=keep_s)
        if kind == "report" and via != "computed":
            SHARED_DIAGNOSES.labels(via=via).inc()
            trace = current_trace()
            if trace is not None:  # the request's canonical log line says how it was answered
                trace.shared = via
        return text

    async def run(self, kind: str, key: str, compute: Compute, *, keep_s: float) -> tuple[str, Via]:
        """The result for `key` (kept for `keep_s` when its payload allows), and how it came."""
        name = hashlib.sha256(f"{kind}|{key}".encode()).hexdigest()[:32]
        running = self._running.get(name)
        if running is not None:
            text, via = await asyncio.shield(running)
            return text, "cache" if via == "cache" else "flight"
        task = asyncio.create_task(self._fly(name, compute, keep_s))
        self._running[name] = task
        task.add_done_callback(lambda _: self._running.pop(name, None))
        return await asyncio.shield(task)

    async def aclose(self) -> None:
        """Stop the flights under way and wait for them, before the Redis client closes.

        A flight outlives the caller that started it (a read started ahead, a check whose
        turn ended): left running, it would go on talking to Redis after shutdown. Their
        callers get `CancelledError`; a leader gives its lock up on the way out. Flights
        started afterwards share within this process only.
        """
        self._closed = True
        await stopped(list(self._running.values()))

    async def _fly(self, name: str, compute: Compute, keep_s: float) -> tuple[str, Via]:
        if self._redis is None or self._closed:
            return await self._in_memory(name, compute, keep_s)
        try:
            return await self._in_redis(self._redis, name, compute, keep_s)
        except _Failed as failed:
            self._log.warning("flight_fail_open", error=type(failed.__cause__).__name__)
            FAIL_OPEN.labels(what="flight").inc()
            return (await compute()).text, "computed"

    async def _in_memory(self, name: str, compute: Compute, keep_s: float) -> tuple[str, Via]:
        now = self._clock()
        self._kept = {k: v for k, v in self._kept.items() if v[0] > now}
        if name in self._kept:
            return self._kept[name][1], "cache"
        payload = await compute()
        if payload.keep and keep_s > 0:
            self._kept[name] = (self._clock() + keep_s, payload.text)
        return payload.text, "computed"

    async def _in_redis(
        self, client: redis.Redis, name: str, compute: Compute, keep_s: float
    ) -> tuple[str, Via]:
        base = f"{_PREFIX}{{{name}}}:"
        token = uuid.uuid4().hex
        while True:
            with _redis_errors():
                keys = [base + "result", base + "lock"]
                check = "1" if keep_s > 0 else "0"
                raw_step, value = await self._take(keys=keys, args=[token, self._lock_ms, check])
                step = _text(raw_step)
                if step == "kept":
                    return _text(value), "cache"
                if step == "lead":
                    break
                if not value:
                    continue  # the flight just ended (or its leader died): look again
                done = f"{base}done:{_text(value)}"
                text = await client.blmove(done, done, self._poll_s, "LEFT", "LEFT")  # type: ignore[arg-type]
            if text is not None:
                return _text(text), "flight"
        return await self._lead(base, token, compute, keep_s), "computed"

    async def _lead(self, base: str, token: str, compute: Compute, keep_s: float) -> str:
        lock = base + "lock"
        try:
            renew = functools.partial(self._renew_lock, lock, token)
            async with renewing(renew, self._lock_ms / 3000, name=f"renew {lock}"):
                payload = await compute()
        except BaseException:
            try:
                await self._abandon(keys=[lock], args=[token])
            except (redis.RedisError, OSError):
                self._log.warning("flight_abandon_failed")  # it expires by itself
            raise
        keep_ms = int(keep_s * 1000) if payload.keep else 0
        handoff_ms = max(self._lock_ms * 2, 10_000)
        try:
            keys = [lock, base + "result", f"{base}done:{token}"]
            await self._finish(keys=keys, args=[token, payload.text, keep_ms, handoff_ms])
        except (redis.RedisError, OSError) as error:
            # The answer is here: this asker gets it; the waiters take over once the lock expires.
            self._log.warning("flight_finish_failed", error=type(error).__name__)
            FAIL_OPEN.labels(what="flight").inc()
        return payload.text

    async def _renew_lock(self, lock: str, token: str) -> bool:
        """Keep leading for another lock TTL; False once the lock is another's (it expired).

        A Redis failure is logged and tried again next time.
        """
        try:
            return bool(await self._renew(keys=[lock], args=[token, self._lock_ms]))
        except (redis.RedisError, OSError) as error:
            self._log.warning("flight_renew_failed", error=type(error).__name__)
        return True


def _text(value: str | bytes) -> str:
    """A Redis reply as text, whether or not the client decodes responses."""
    return value if isinstance(value, str) else value.decode()


class _Failed(BotError):
    """Redis failed while coordinating a flight (the cause says how)."""


@contextmanager
def _redis_errors() -> Iterator[None]:
    """Turn a Redis or socket error into `_Failed`, so only coordination fails open."""
    try:
        yield
    except (redis.RedisError, OSError) as error:
        raise _Failed from error
