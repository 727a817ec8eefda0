"""The push side's keys behave alike in Redis and in memory: claims, leases, counters, hashes."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
import redis.asyncio
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from bot.push import Kv, KvUnavailable, RedisKv


async def test_get_set_and_expiry(kv: Kv):
    assert await kv.get("a") is None
    await kv.set("a", "1")
    await kv.set("b", "2", ttl_s=0.05)
    assert (await kv.get("a"), await kv.get("b")) == ("1", "2")
    await asyncio.sleep(0.1)
    assert await kv.get("b") is None
    await kv.delete("a")
    assert await kv.get("a") is None


async def test_a_claim_is_won_once_until_it_expires(kv: Kv):
    assert await kv.claim("c", "me", 0.1)
    assert not await kv.claim("c", "you", 0.1)
    await asyncio.sleep(0.15)
    assert await kv.claim("c", "you", 1)


async def test_only_the_holder_renews_or_releases_a_lease(kv: Kv):
    assert await kv.claim("lease", "me", 0.2)
    assert not await kv.renew("lease", "you", 10)
    assert not await kv.release("lease", "you")
    assert await kv.renew("lease", "me", 10)
    await asyncio.sleep(0.25)
    assert await kv.get("lease") == "me"  # renewed past its first expiry
    assert await kv.release("lease", "me")
    assert await kv.get("lease") is None
    assert not await kv.renew("lease", "me", 10)


async def test_a_counter_expires_from_its_first_count(kv: Kv):
    assert [await kv.incr("n", 0.2) for _ in range(3)] == [1, 2, 3]
    await asyncio.sleep(0.25)
    assert await kv.incr("n", 0.2) == 1


async def test_hashes(kv: Kv):
    await kv.hset("h", "x", "1")
    await kv.hset("h", "y", "2")
    assert await kv.hgetall("h") == {"x": "1", "y": "2"}
    assert await kv.hdel("h", "x")
    assert not await kv.hdel("h", "x")
    assert await kv.hgetall("h") == {"y": "2"}
    assert await kv.hgetall("none") == {}


async def test_a_hash_field_is_replaced_only_while_it_holds_what_was_read(kv: Kv):
    await kv.hset("h", "x", "old")
    assert not await kv.hreplace("h", "x", "other", "new")
    assert await kv.hreplace("h", "x", "old", "new")
    assert await kv.hgetall("h") == {"x": "new"}
    await kv.hdel("h", "x")
    assert not await kv.hreplace("h", "x", "new", "newer")  # removed meanwhile: not brought back
    assert await kv.hgetall("h") == {}


@pytest.mark.parametrize(
    "call",
    [
        lambda kv: kv.get("a"),
        lambda kv: kv.set("a", "1"),
        lambda kv: kv.claim("a", "1", 1),
        lambda kv: kv.renew("a", "1", 1),
        lambda kv: kv.release("a", "1"),
        lambda kv: kv.incr("a", 1),
        lambda kv: kv.delete("a"),
        lambda kv: kv.hset("h", "a", "1"),
        lambda kv: kv.hdel("h", "a"),
        lambda kv: kv.hreplace("h", "a", "1", "2"),
        lambda kv: kv.hgetall("h"),
    ],
)
async def test_redis_down_is_kv_unavailable(call: Callable[[Kv], Awaitable[object]]) -> None:
    client = redis.asyncio.Redis(
        host="127.0.0.1", port=1, socket_connect_timeout=0.2, retry=Retry(NoBackoff(), 0)
    )
    try:
        with pytest.raises(KvUnavailable, match="Redis is unavailable"):
            await call(RedisKv(client))
    finally:
        await client.aclose()
