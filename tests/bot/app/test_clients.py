"""The Run:ai call limit of every process that serves: across replicas with Redis."""

from __future__ import annotations

import pytest
import redis.asyncio

from bot.app.clients import runai_limiter
from bot.config import Settings
from bot.durable.flight import LocalLimit, RedisSemaphore
from diagnosis import NO_LIMIT


@pytest.mark.parametrize(
    ("limit", "with_redis", "kind"),
    [
        (0, True, type(NO_LIMIT)),
        (0, False, type(NO_LIMIT)),
        (16, False, LocalLimit),
        (16, True, RedisSemaphore),
    ],
)
async def test_the_limit_is_across_replicas_with_redis_else_per_process(
    redis_url: str,
    limit: int,
    with_redis: bool,  # noqa: FBT001 - a table column
    kind: type,
):
    settings = Settings(_env_file=None, runai_max_concurrent_calls=limit)
    client = redis.asyncio.Redis.from_url(redis_url) if with_redis else None
    try:
        assert isinstance(runai_limiter(settings, client), kind)
    finally:
        if client is not None:
            await client.aclose()
