"""The one Redis client of a process, from `REDIS_URL`: standalone, Sentinel or Cluster.

Every Redis user (state store, authorizer cache, identity cache, audit stream, queue) shares
this client. Its pool is bounded (`REDIS_MAX_CONNECTIONS`) and *waits* up to
`REDIS_POOL_TIMEOUT_S` for a free connection instead of failing at once, which is what
redis-py's default async pool does; a request that still finds none raises `PoolExhausted`,
which callers tell apart from a real connection failure with `redis_failure`.

URL forms:

- `redis://[user:password@]host:6379/0`, `rediss://…` (TLS), `unix:///path/redis.sock?db=0`:
  one server.
- `redis+sentinel://[user:password@]host1:26379,host2:26379/<master-name>[/<db>]`, and
  `rediss+sentinel://…` for TLS to the master: Sentinel finds the master (the password,
  if any, is the master's; sentinels themselves are asked without one).
- `redis+cluster://[user:password@]host1:6379[,host2:6379]` (`rediss+cluster://` for TLS):
  Redis Cluster, database 0 only. Every key the bot writes lives in one slot per command.
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal, cast

import redis.asyncio as redis
from redis import DriverInfo
from redis.asyncio.cluster import ClusterNode, NodesManager, RedisCluster
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import MaxConnectionsError, RedisClusterException

from bot.config import DEFAULT_MAX_CONNECTIONS, DEFAULT_POOL_TIMEOUT_S
from bot.durable.redis_url import parse_redis_url
from bot.errors import BotError

__all__ = [
    "DEFAULT_MAX_CONNECTIONS",
    "DEFAULT_POOL_TIMEOUT_S",
    "PoolExhausted",
    "connect_redis",
    "redis_failure",
    "redis_health",
]

_SOCKET_TIMEOUT_S = 5.0
_HEALTH_CHECK_S = 30
_RETRY_CAP_S = 0.25  # the longest pause between two tries of one command
#: How long `/readyz`'s PING may take: well inside a kubelet probe's timeout.
PING_BUDGET_S = 2.0


class PoolExhausted(MaxConnectionsError, BotError):
    """Every pooled connection stayed busy for the whole wait: overload, not an outage."""


def redis_failure(error: BaseException) -> Literal["busy", "unreachable"]:
    """What a Redis error means for the asker: the pool was busy, or Redis is unreachable."""
    return "busy" if isinstance(error, MaxConnectionsError) else "unreachable"


class _WaitingPool(redis.BlockingConnectionPool):
    """redis-py's blocking pool, whose wait timeout raises `PoolExhausted`."""

    async def get_connection(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super().get_connection(*args, **kwargs)  # type: ignore[no-untyped-call]
        except redis.ConnectionError as error:
            if isinstance(error.__cause__, asyncio.TimeoutError):
                raise PoolExhausted(
                    f"no free Redis connection within {self.timeout} s "
                    f"(all {self.max_connections} busy)"
                ) from error
            raise


class _WaitingSentinelPool(SentinelConnectionPool, _WaitingPool):
    """The Sentinel pool (finds the master) with the waiting pool's bound and wait."""


class _SentinelMaster(redis.Redis):
    """The master's client; closing it also closes the connections to the sentinels."""

    async def aclose(self, close_connection_pool: bool | None = None) -> None:  # noqa: FBT001 - redis-py's signature
        """Close the client, its pool, and the sentinel clients that found the master."""
        pool = self.connection_pool
        await super().aclose(close_connection_pool)
        if isinstance(pool, SentinelConnectionPool):
            await pool.sentinel_manager.aclose()


class _WaitingCluster(RedisCluster):
    """RedisCluster whose commands wait for a free connection to their node, failing as Redis.

    redis-py's async cluster keeps a bounded list of connections per node and raises
    `MaxConnectionsError` at once when they are all in use, with no hook to be told when one
    comes back; a command here retries with a short, growing pause until `pool_timeout_s`
    has passed, then raises `PoolExhausted`. (Pipelines do not wait: a busy node fails them
    at once with a `ConnectionError`, as a Redis that is down would.)

    redis-py's cluster client reports a cluster it cannot use (no node answers when it
    learns the nodes and slots, or they do not cover every slot) as a
    `RedisClusterException`, which is not a `RedisError`: here that is a
    `redis.ConnectionError` (`_NodesLearnedAsRedis`), so every `except redis.RedisError` in
    the bot sees a cluster that is gone. Other `RedisClusterException`s (keys in two slots
    in one script, a command with no key) are mistakes in the bot, not outages, and stay as
    they are.
    """

    def __init__(self, *, pool_timeout_s: float, max_connections: int, **kwargs: Any) -> None:
        super().__init__(max_connections=max_connections, **kwargs)
        self.nodes_manager.__class__ = _NodesLearnedAsRedis  # the same object, failing as Redis
        self.pool_timeout_s = pool_timeout_s
        self.max_connections_per_node = max_connections

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        loop = asyncio.get_running_loop()
        give_up, pause = loop.time() + self.pool_timeout_s, 0.001
        while True:
            try:
                return await super().execute_command(*args, **kwargs)
            except MaxConnectionsError as error:
                if loop.time() + pause > give_up:
                    raise PoolExhausted(
                        f"no free Redis connection within {self.pool_timeout_s} s "
                        f"(all {self.max_connections_per_node} to the node busy)"
                    ) from error
                await asyncio.sleep(pause)
                pause = min(pause * 2, 0.05)


class _NodesLearnedAsRedis(NodesManager):
    """redis-py's map of the cluster's nodes and slots; failing to learn it is a Redis failure.

    Every way the map is learned comes here: a client's first command or pipeline, its
    relearning after a node failed, and a transaction's own relearning after every few
    connection errors. redis-py builds the map itself; `_WaitingCluster` only changes its
    class, which adds no state.
    """

    __slots__ = ()

    async def initialize(self, *args: Any, **kwargs: Any) -> None:
        try:
            await super().initialize(*args, **kwargs)
        except RedisClusterException as error:  # no node answered, or the slots are not covered
            raise redis.ConnectionError(f"Redis Cluster unavailable: {error}") from error


async def redis_health(
    client: redis.Redis, budget_s: float = PING_BUDGET_S
) -> Literal["ok", "busy", "unreachable"]:
    """PING through the shared pool: `ok`, `busy` or `unreachable`.

    `busy`: no pooled connection came free within the budget (overload); `unreachable`: no
    answer, or an error, from Redis itself.
    """
    pool = getattr(client, "connection_pool", None)
    try:
        async with asyncio.timeout(budget_s):
            await client.ping()
    except MaxConnectionsError:
        return "busy"
    except TimeoutError:
        # Out of time: with every pooled connection in use, the PING was still queued for
        # one (busy); otherwise Redis itself did not answer in time.
        full = isinstance(pool, _WaitingPool) and not pool.can_get_connection()
        return "busy" if full else "unreachable"
    except (redis.RedisError, OSError):
        return "unreachable"
    return "ok"


def connect_redis(
    url: str,
    *,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    pool_timeout_s: float = DEFAULT_POOL_TIMEOUT_S,
) -> redis.Redis:
    """The client for `url` (see the module docstring); connects lazily, on first use."""
    target = parse_redis_url(url)
    common: dict[str, Any] = {
        "decode_responses": True,
        "socket_timeout": _SOCKET_TIMEOUT_S,
        "socket_connect_timeout": _SOCKET_TIMEOUT_S,
        "health_check_interval": _HEALTH_CHECK_S,
        # redis-py's default (3 retries, up to 10 s apart) would make "Redis is down" take
        # seconds per command, past Slack's 3 s for an ack; a blip is still ridden out.
        "retry": Retry(ExponentialWithJitterBackoff(cap=_RETRY_CAP_S, base=0.05), retries=2),
        # How the connections name themselves (`CLIENT SETINFO`), resolved once: without it,
        # redis-py reads its own version from the package metadata for every new connection
        # (an e-mail-header parse, ~1 ms each), which a burst of acks opening the pool paid
        # dozens of times.
        "driver_info": DriverInfo(),
    }
    if target.kind == "standalone":
        pool = _WaitingPool.from_url(
            url, max_connections=max_connections, timeout=pool_timeout_s, **common
        )
        return redis.Redis.from_pool(pool)
    if target.kind == "sentinel":
        sentinel = Sentinel(  # type: ignore[no-untyped-call]
            list(target.hosts),
            sentinel_kwargs={"socket_timeout": _SOCKET_TIMEOUT_S},
            socket_timeout=_SOCKET_TIMEOUT_S,
        )
        master: redis.Redis = sentinel.master_for(
            target.service,
            redis_class=_SentinelMaster,
            connection_pool_class=_WaitingSentinelPool,
            max_connections=max_connections,
            timeout=pool_timeout_s,
            db=target.db,
            ssl=target.tls,
            username=target.username,
            password=target.password,
            **common,
        )
        return master
    cluster = _WaitingCluster(
        startup_nodes=[ClusterNode(host, port) for host, port in target.hosts],
        max_connections=max_connections,  # per node
        pool_timeout_s=pool_timeout_s,
        ssl=target.tls,
        username=target.username,
        password=target.password,
        decode_responses=True,
        socket_timeout=_SOCKET_TIMEOUT_S,
        socket_connect_timeout=_SOCKET_TIMEOUT_S,
    )
    # RedisCluster is no `redis.Redis` subclass, but it serves every command the bot uses
    # (GET/SET, locks, hashes, streams; tests/bot/durable/test_connect.py runs them on one).
    return cast("redis.Redis", cluster)
