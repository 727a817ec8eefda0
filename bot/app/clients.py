"""The clients a process reads and keeps state with, built from the settings in one place.

Run:ai's client always counts its calls (`bot.ops.upstream_metrics.CountingTransport`) and
waits for a slot of `RUNAI_MAX_CONCURRENT_CALLS` (across replicas with Redis, else in this
process); each Kubernetes cluster's client counts its calls too. `serve`, `worker` and
`diagnose` all get theirs here; the simulator's (`bot.app.backends.simulated`) are the
tests' and the demo's.
"""

from __future__ import annotations

from collections.abc import Callable

import httpx
import redis.asyncio as redis
import structlog

from bot.config import DEDUPE_TTL_S, ConfigError, Settings
from bot.conversation import MemoryStore, RedisStore, StateStore
from bot.durable.connect import connect_redis
from bot.durable.flight import LocalLimit, RedisSemaphore
from bot.ops.upstream_metrics import CountingTransport
from bot.work import MemoryWorkQueue, RedisWorkQueue, WorkQueue
from diagnosis import (
    NO_LIMIT,
    CallLimiter,
    KubeDirectory,
    RunaiClient,
    network_transport,
)

__all__ = ["kube_directory", "runai_client", "runai_limiter", "state_store", "work_queue"]


def state_store(settings: Settings) -> tuple[StateStore, redis.Redis | None]:
    """The conversation store, and the Redis client behind it (None: in this process's memory)."""
    log = structlog.get_logger(__name__)
    if settings.redis.url is None:
        log.warning("state_store_in_memory", reason="REDIS_URL is not set; one process only")
        return MemoryStore(ttl_s=settings.conversation.state_ttl_s), None
    try:
        client = connect_redis(
            settings.redis.url.get_secret_value(),
            max_connections=settings.redis.max_connections,
            pool_timeout_s=settings.redis.pool_timeout_s,
        )
    except ValueError as error:
        raise ConfigError(str(error)) from error
    store = RedisStore(
        client, ttl_s=settings.conversation.state_ttl_s, lock_ttl_s=settings.queue.claim_idle_s
    )
    return store, client


def work_queue(settings: Settings, client: redis.Redis | None) -> WorkQueue:
    """The durable work queue on Redis, or one in memory (one process only)."""
    bounds = settings.queue
    if client is None:
        return MemoryWorkQueue(
            max_items=bounds.max_items,
            max_pushed=bounds.max_push_items,
            max_per_asker=bounds.max_per_asker,
        )
    return RedisWorkQueue(
        client,
        max_items=bounds.max_items,
        max_pushed=bounds.max_push_items,
        max_per_asker=bounds.max_per_asker,
        journal_ttl_s=DEDUPE_TTL_S,
    )


def runai_limiter(settings: Settings, client: redis.Redis | None) -> CallLimiter:
    """The bound on concurrent Run:ai calls: across replicas with Redis, else this process's."""
    limit = settings.runai.max_concurrent_calls
    if limit == 0:
        return NO_LIMIT
    if client is None:
        return LocalLimit(limit)
    return RedisSemaphore(client, limit=limit)


def runai_client(settings: Settings, redis_client: redis.Redis | None) -> RunaiClient:
    """The Run:ai client of `RUNAI_URL`: calls counted, and bounded by `runai_limiter`."""
    return RunaiClient(
        settings.runai.config(),
        transport=CountingTransport(network_transport(), "runai"),
        limiter=runai_limiter(settings, redis_client),
    )


def _counting(upstream: str) -> Callable[[httpx.AsyncBaseTransport], httpx.AsyncBaseTransport]:
    def wrap(transport: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
        return CountingTransport(transport, upstream)

    return wrap


def kube_directory(settings: Settings) -> KubeDirectory | None:
    """The clients of `KUBE_CLUSTERS` (Tier 2), calls counted; None when there are none."""
    access = settings.kube.access()
    return KubeDirectory(access, wrap=_counting("kubernetes")) if len(access) else None
