"""The little state the push side keeps: keys with expiry, atomic claims, leases and hashes.

`RedisKv` keeps it in Redis, shared by every replica: a claim is `SET NX`, a lease is a
`SET NX PX` renewed and released only by its holder (one Lua script each), a counter is
`INCR` + `EXPIRE` in one transaction, and a hash field is replaced only if it still holds
what was read (one Lua script: `HGET`, `HSET`). Every key is one command's alone
(Cluster-safe); nothing needs more than Redis 7.0.
`MemoryKv` is the same in one process, for installs without `REDIS_URL` and the demo.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Protocol, cast

import redis.asyncio as redis

from bot.conversation import StoreUnavailable

__all__ = ["PREFIX", "Kv", "KvUnavailable", "MemoryKv", "RedisKv"]

PREFIX = "runai-why:push:"

_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

_HREPLACE = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
  return 1
end
return 0
"""


class KvUnavailable(StoreUnavailable):
    """Redis failed: nothing was read or changed."""


class Kv(Protocol):
    """Keys (all under `PREFIX`) with expiry; see the module docstring."""

    async def get(self, key: str) -> str | None:
        """The value of `key`, or None."""
        ...

    async def set(self, key: str, value: str, *, ttl_s: float | None = None) -> None:
        """Set `key` (expiring after `ttl_s`, if given)."""
        ...

    async def claim(self, key: str, value: str, ttl_s: float) -> bool:
        """Set `key` only if it is absent (`SET NX`); True when this call set it."""
        ...

    async def renew(self, key: str, value: str, ttl_s: float) -> bool:
        """Extend `key` if it still holds `value` (a lease kept by its holder)."""
        ...

    async def release(self, key: str, value: str) -> bool:
        """Delete `key` if it still holds `value`."""
        ...

    async def incr(self, key: str, ttl_s: float) -> int:
        """Add one to the counter `key` (expiring `ttl_s` after its first count)."""
        ...

    async def delete(self, key: str) -> None:
        """Remove `key`."""
        ...

    async def hset(self, key: str, field: str, value: str) -> None:
        """Set one field of the hash `key` (no expiry)."""
        ...

    async def hreplace(self, key: str, field: str, old: str, new: str) -> bool:
        """Set one field to `new` only if it still holds `old`; True when it was set.

        A field removed (or changed) meanwhile stays as it is: nothing is brought back.
        """
        ...

    async def hdel(self, key: str, field: str) -> bool:
        """Remove one field; True when it was there."""
        ...

    async def hgetall(self, key: str) -> dict[str, str]:
        """Every field of the hash `key`."""
        ...


@asynccontextmanager
async def _translated(what: str) -> AsyncIterator[None]:
    try:
        yield
    except (redis.RedisError, OSError) as error:
        raise KvUnavailable(f"Redis is unavailable ({what}: {type(error).__name__})") from error


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))


class RedisKv:
    """`Kv` on the process's Redis client (`decode_responses=True`)."""

    def __init__(self, client: redis.Redis) -> None:
        self._redis = client
        self._renew = client.register_script(_RENEW)
        self._release = client.register_script(_RELEASE)
        self._hreplace = client.register_script(_HREPLACE)

    async def get(self, key: str) -> str | None:
        """See `Kv.get`."""
        async with _translated("get"):
            value = await self._redis.get(PREFIX + key)
        return None if value is None else str(value)

    async def set(self, key: str, value: str, *, ttl_s: float | None = None) -> None:
        """See `Kv.set`."""
        async with _translated("set"):
            await self._redis.set(PREFIX + key, value, px=_ms(ttl_s) if ttl_s else None)

    async def claim(self, key: str, value: str, ttl_s: float) -> bool:
        """See `Kv.claim`."""
        async with _translated("claim"):
            return bool(await self._redis.set(PREFIX + key, value, nx=True, px=_ms(ttl_s)))

    async def renew(self, key: str, value: str, ttl_s: float) -> bool:
        """See `Kv.renew`."""
        async with _translated("renew"):
            return bool(await self._renew(keys=[PREFIX + key], args=[value, _ms(ttl_s)]))

    async def release(self, key: str, value: str) -> bool:
        """See `Kv.release`."""
        async with _translated("release"):
            return bool(await self._release(keys=[PREFIX + key], args=[value]))

    async def incr(self, key: str, ttl_s: float) -> int:
        """See `Kv.incr`."""
        async with _translated("incr"), self._redis.pipeline(transaction=True) as pipe:
            pipe.incr(PREFIX + key)
            pipe.pexpire(PREFIX + key, _ms(ttl_s), nx=True)
            count, _ = await pipe.execute()
        return int(count)

    async def delete(self, key: str) -> None:
        """See `Kv.delete`."""
        async with _translated("delete"):
            await self._redis.delete(PREFIX + key)

    async def hset(self, key: str, field: str, value: str) -> None:
        """See `Kv.hset`."""
        async with _translated("hset"):
            await self._redis.hset(PREFIX + key, field, value)

    async def hreplace(self, key: str, field: str, old: str, new: str) -> bool:
        """See `Kv.hreplace`."""
        async with _translated("hreplace"):
            return bool(await self._hreplace(keys=[PREFIX + key], args=[field, old, new]))

    async def hdel(self, key: str, field: str) -> bool:
        """See `Kv.hdel`."""
        async with _translated("hdel"):
            return bool(await self._redis.hdel(PREFIX + key, field))

    async def hgetall(self, key: str) -> dict[str, str]:
        """See `Kv.hgetall`."""
        async with _translated("hgetall"):
            found = await self._redis.hgetall(PREFIX + key)
        return {str(k): str(v) for k, v in cast("dict[str, str]", found).items()}


class MemoryKv:
    """`Kv` in this process's memory (one process, nothing survives a restart)."""

    def __init__(self) -> None:
        self._values: dict[str, tuple[str, float | None]] = {}
        self._hashes: dict[str, dict[str, str]] = {}

    def _live(self, key: str) -> str | None:
        entry = self._values.get(key)
        if entry is None:
            return None
        value, expires = entry
        if expires is not None and expires <= time.monotonic():
            del self._values[key]
            return None
        return value

    @staticmethod
    def _expiry(ttl_s: float | None) -> float | None:
        return time.monotonic() + ttl_s if ttl_s else None

    async def get(self, key: str) -> str | None:
        """See `Kv.get`."""
        return self._live(key)

    async def set(self, key: str, value: str, *, ttl_s: float | None = None) -> None:
        """See `Kv.set`."""
        self._values[key] = (value, self._expiry(ttl_s))

    async def claim(self, key: str, value: str, ttl_s: float) -> bool:
        """See `Kv.claim`."""
        if self._live(key) is not None:
            return False
        self._values[key] = (value, self._expiry(ttl_s))
        return True

    async def renew(self, key: str, value: str, ttl_s: float) -> bool:
        """See `Kv.renew`."""
        if self._live(key) != value:
            return False
        self._values[key] = (value, self._expiry(ttl_s))
        return True

    async def release(self, key: str, value: str) -> bool:
        """See `Kv.release`."""
        if self._live(key) != value:
            return False
        del self._values[key]
        return True

    async def incr(self, key: str, ttl_s: float) -> int:
        """See `Kv.incr`."""
        current = self._live(key)
        expires = self._values[key][1] if current is not None else self._expiry(ttl_s)
        count = int(current or 0) + 1
        self._values[key] = (str(count), expires)
        return count

    async def delete(self, key: str) -> None:
        """See `Kv.delete`."""
        self._values.pop(key, None)

    async def hset(self, key: str, field: str, value: str) -> None:
        """See `Kv.hset`."""
        self._hashes.setdefault(key, {})[field] = value

    async def hreplace(self, key: str, field: str, old: str, new: str) -> bool:
        """See `Kv.hreplace`."""
        fields = self._hashes.get(key, {})
        if fields.get(field) != old:
            return False
        fields[field] = new
        return True

    async def hdel(self, key: str, field: str) -> bool:
        """See `Kv.hdel`."""
        return self._hashes.get(key, {}).pop(field, None) is not None

    async def hgetall(self, key: str) -> dict[str, str]:
        """See `Kv.hgetall`."""
        return dict(self._hashes.get(key, {}))
