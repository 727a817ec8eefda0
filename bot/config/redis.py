"""Redis: where state, the queue and the call limits live when there is more than one process."""

from __future__ import annotations

from pydantic import Field, SecretStr

from bot.config.base import Concern

__all__ = ["DEFAULT_MAX_CONNECTIONS", "DEFAULT_POOL_TIMEOUT_S", "RedisSettings"]

#: The Redis connection pool's defaults (`bot.durable.connect` uses them too).
DEFAULT_MAX_CONNECTIONS = 64
DEFAULT_POOL_TIMEOUT_S = 10.0


class RedisSettings(Concern):
    """Redis (`REDIS_*`); without `REDIS_URL` state lives in one process's memory."""

    url: SecretStr | None = Field(
        default=None,
        validation_alias="redis_url",
        description=(
            "`REDIS_URL`: standalone (`redis://`, `rediss://`, `unix://`), Sentinel "
            "(`redis+sentinel://h1:26379,h2:26379/<master>/<db>`) or Cluster "
            "(`redis+cluster://h1:6379,h2:6379`); see `bot.durable.connect`."
        ),
    )
    max_connections: int = Field(
        default=DEFAULT_MAX_CONNECTIONS,
        ge=1,
        le=10_000,
        validation_alias="redis_max_connections",
        description="`REDIS_MAX_CONNECTIONS`, the process's pool size (per node on Cluster).",
    )
    pool_timeout_s: float = Field(
        default=DEFAULT_POOL_TIMEOUT_S,
        gt=0,
        le=300,
        validation_alias="redis_pool_timeout_s",
        description=(
            "`REDIS_POOL_TIMEOUT_S`, how long a command waits for a free pooled connection "
            'before the request is refused as "busy".'
        ),
    )
