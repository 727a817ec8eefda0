"""Conversation state and idempotency keys: in Redis for replicas, in memory for one process.

Both stores offer the same three things: state per thread (JSON with a TTL), a per-thread
lock so two replicas never handle the same thread at once, and `claim` (`SET NX EX`) so a
Slack retry or a double delivery is answered exactly once.
"""

from __future__ import annotations

import asyncio
import functools
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Protocol

import redis.asyncio as redis
import structlog
from redis.asyncio.lock import Lock
from redis.exceptions import LockError

from bot.conversation.answers import fresh
from bot.conversation.model import ConversationState, ThreadKey
from bot.durable.connect import redis_failure
from bot.durable.renewal import renewing
from bot.errors import BotError

__all__ = [
    "MemoryStore",
    "RedisStore",
    "StateStore",
    "StoreBusy",
    "StoreUnavailable",
    "ThreadBusy",
]


class StoreUnavailable(BotError):
    """The state store (Redis) could not be reached; nothing was processed."""


class ThreadBusy(StoreUnavailable):
    """Another task or replica still holds this thread's lock; nothing was processed."""


class StoreBusy(StoreUnavailable):
    """Redis is up, but no pooled connection came free in time; nothing was processed."""


@asynccontextmanager
async def _translated(what: str) -> AsyncIterator[None]:
    try:
        yield
    except (redis.RedisError, OSError) as error:
        if redis_failure(error) == "busy":
            structlog.get_logger(__name__).warning(
                "redis_pool_exhausted", operation=what, error=str(error)
            )
            raise StoreBusy(f"Redis is busy ({what}: {error})") from error
        raise StoreUnavailable(f"Redis is unavailable ({what}: {type(error).__name__})") from error


class StateStore(Protocol):
    """Where conversations live between turns."""

    async def load(self, key: ThreadKey) -> ConversationState | None:
        """The thread's state, or None when the bot does not own the thread.

        Without the answers older than the TTL (`bot.conversation.answers.fresh`): the
        state's own TTL is refreshed by every save, an answer's is not.
        """
        ...

    async def save(self, key: ThreadKey, state: ConversationState) -> None:
        """Store the thread's state, refreshing its TTL."""
        ...

    def lock(
        self, key: ThreadKey, *, wait_s: float | None = None
    ) -> AbstractAsyncContextManager[None]:
        """Serialise turns of one thread across tasks (and replicas, for Redis).

        `wait_s` bounds the wait for a lock another turn holds (None: the store's own bound);
        past it `ThreadBusy` is raised and nothing is held.
        """
        ...

    async def claim(self, token: str, ttl_s: int) -> bool:
        """True the first time `token` is claimed within `ttl_s` seconds, False after."""
        ...

    async def ping(self) -> bool:
        """Whether the store is usable (for readiness checks)."""
        ...


class MemoryStore:
    """Single-process store; state is lost on restart and not shared with replicas."""

    def __init__(self, ttl_s: int = 86400) -> None:
        self._ttl_s = ttl_s
        self._states: dict[ThreadKey, tuple[float, str]] = {}
        self._claims: dict[str, float] = {}
        self._locks: dict[ThreadKey, asyncio.Lock] = {}

    async def load(self, key: ThreadKey) -> ConversationState | None:
        """See `StateStore.load`."""
        entry = self._states.get(key)
        if entry is None or entry[0] < time.monotonic():
            return None
        return fresh(ConversationState.model_validate_json(entry[1]), self._ttl_s)

    async def save(self, key: ThreadKey, state: ConversationState) -> None:
        """See `StateStore.save`."""
        self._states[key] = (time.monotonic() + self._ttl_s, state.model_dump_json())

    @asynccontextmanager
    async def lock(self, key: ThreadKey, *, wait_s: float | None = None) -> AsyncIterator[None]:
        """See `StateStore.lock` (an asyncio lock: a wait cut short holds nothing)."""
        lock = self._locks.setdefault(key, asyncio.Lock())
        try:
            async with asyncio.timeout(wait_s):
                await lock.acquire()
        except TimeoutError:
            raise ThreadBusy("another turn is still answering in this thread") from None
        try:
            yield
        finally:
            lock.release()

    async def claim(self, token: str, ttl_s: int) -> bool:
        """See `StateStore.claim`."""
        now = time.monotonic()
        self._claims = {k: v for k, v in self._claims.items() if v > now}
        if token in self._claims:
            return False
        self._claims[token] = now + ttl_s
        return True

    async def ping(self) -> bool:
        """See `StateStore.ping`."""
        return True


class RedisStore:
    """Redis-backed store shared by every replica (`REDIS_URL`).

    A thread's lock is waited for up to `lock_timeout_s`. Without `lock_ttl_s` it also
    expires after `lock_timeout_s`. With it, the lock expires `lock_ttl_s` after its holder
    last renewed it, and the holder renews it every third of that while its turn runs: a
    replica killed mid-turn frees its threads as soon as its work is reclaimed
    (`QUEUE_CLAIM_IDLE_S`), not minutes later.
    """

    def __init__(
        self,
        client: redis.Redis,
        *,
        ttl_s: int = 86400,
        lock_timeout_s: float = 300,
        lock_ttl_s: float | None = None,
    ) -> None:
        self._redis = client
        self._ttl_s = ttl_s
        self._lock_timeout_s = lock_timeout_s
        self._lock_ttl_s = lock_ttl_s
        #: A thread's state as read with its lock, for the `load` that follows it.
        self._read_with_lock: dict[ThreadKey, str | bytes | None] = {}

    async def load(self, key: ThreadKey) -> ConversationState | None:
        """See `StateStore.load`; right after `lock`, the state read with the lock is used."""
        if key in self._read_with_lock:
            raw = self._read_with_lock.pop(key)
        else:
            async with _translated("load"):
                raw = await self._redis.get(key.redis_key("conv"))
        return fresh(ConversationState.model_validate_json(raw), self._ttl_s) if raw else None

    async def save(self, key: ThreadKey, state: ConversationState) -> None:
        """See `StateStore.save`."""
        self._read_with_lock.pop(key, None)
        async with _translated("save"):
            await self._redis.set(key.redis_key("conv"), state.model_dump_json(), ex=self._ttl_s)

    async def _take(self, lock: Lock, key: ThreadKey) -> bool:
        """Take the thread's lock, reading its state in the same round trip (a pipeline).

        The first attempt is `SET NX PX` of the lock and `GET` of the state together; the
        state is kept for the `load` that follows (it cannot change while the lock is
        held). If the lock is taken, `Lock.acquire` waits for it as before.
        """
        token = uuid.uuid1().hex.encode()
        ttl_ms = int((self._lock_ttl_s or self._lock_timeout_s) * 1000)
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.set(lock.name, token, nx=True, px=ttl_ms)
            pipe.get(key.redis_key("conv"))
            took, state = await pipe.execute()
        if not took:
            return bool(await lock.acquire())
        lock.local.token = token  # the lock is this token's, as `acquire` would have made it
        self._read_with_lock[key] = state
        return True

    @asynccontextmanager
    async def lock(self, key: ThreadKey, *, wait_s: float | None = None) -> AsyncIterator[None]:
        """See `StateStore.lock`; the lock expires by itself if a replica dies holding it.

        The wait is Redis's own (`blocking_timeout`), never a cancellation from outside: one
        landing while `SET NX` is on the wire could leave the lock taken by nobody.
        """
        lock = self._redis.lock(
            key.redis_key("lock"),
            timeout=self._lock_ttl_s or self._lock_timeout_s,
            blocking_timeout=self._lock_timeout_s if wait_s is None else wait_s,
        )
        async with _translated("lock"):
            acquired = await self._take(lock, key)
        if not acquired:
            raise ThreadBusy("another replica is still answering in this thread")
        try:
            if self._lock_ttl_s is None:
                yield
            else:
                renew = functools.partial(self._renew, lock, key)
                async with renewing(renew, self._lock_ttl_s / 3, name=f"renew {key.thread}"):
                    yield
        finally:
            self._read_with_lock.pop(key, None)
            try:
                await lock.release()
            except LockError:
                # The turn outlived the lock: say so in the logs, not to the user, who
                # already has the answer.
                structlog.get_logger(__name__).warning("thread_lock_expired", key=key.thread)
            except (redis.RedisError, OSError):
                structlog.get_logger(__name__).warning("thread_unlock_failed", key=key.thread)

    @staticmethod
    async def _renew(lock: Lock, key: ThreadKey) -> bool:
        """Keep `lock` for another full TTL; False once it is lost.

        Redis failing once (a blip, a failover) is tried again at the next renewal: the lock
        may still be held, and the turn holding it goes on. Once it has expired, `reacquire`
        says so (`LockError`).
        """
        try:
            await lock.reacquire()
        except LockError:
            structlog.get_logger(__name__).warning("thread_lock_not_renewed", key=key.thread)
            return False
        except (redis.RedisError, OSError) as error:
            structlog.get_logger(__name__).warning(
                "thread_lock_renewal_failed", key=key.thread, error=type(error).__name__
            )
        return True

    async def claim(self, token: str, ttl_s: int) -> bool:
        """See `StateStore.claim` (Redis `SET NX EX`)."""
        async with _translated("claim"):
            claimed = await self._redis.set(f"runai-why:claim:{token}", "1", nx=True, ex=ttl_s)
        return bool(claimed)

    async def ping(self) -> bool:
        """See `StateStore.ping`."""
        try:
            return bool(await self._redis.ping())
        except redis.RedisError:
            return False
