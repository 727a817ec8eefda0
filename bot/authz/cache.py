"""The per-person decision cache: one Redis hash per e-mail, one field per question.

`runai-why:authz:decisions:<e-mail>` holds, per `<cluster id>/<project>` (and `clusters` for
where they may read at all), the JSON answer and when it was decided. The hash expires with
its newest answer, and one `DEL` forgets a person. A cache problem only costs a lookup: it
is logged, never raised.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any, Final

import redis.asyncio as redis
import structlog

__all__ = ["DECISION_CACHE_PREFIX", "DecisionCache", "Entry"]

DECISION_CACHE_PREFIX: Final = "runai-why:authz:decisions:"

Entry = dict[str, Any]
"""One answer as JSON: `{"readable": [...]}` or `{"everywhere": ..., "clusters": [...]}`."""


class DecisionCache:
    """Answers kept for `ttl_s` seconds of `clock` (none without Redis, or with `ttl_s` 0)."""

    def __init__(
        self, redis_client: redis.Redis | None, ttl_s: int, clock: Callable[[], float]
    ) -> None:
        self._redis = redis_client
        self._ttl_s = ttl_s
        self._clock = clock
        self._log = structlog.get_logger("bot.authz")

    async def get(self, email: str, field: str) -> Entry | None:
        """The fresh answer about `field` for `email` (casefolded), or None."""
        if self._redis is None or self._ttl_s <= 0:
            return None
        try:
            async with asyncio.timeout(2):
                raw = await self._redis.hget(DECISION_CACHE_PREFIX + email, field)
            entry: Entry | None = None if raw is None else json.loads(raw)
            fresh = entry is not None and self._clock() - float(entry.pop("at")) < self._ttl_s
        except Exception as error:  # noqa: BLE001 - a cache problem only costs a lookup
            self._log.warning("authz_cache_failed", error=type(error).__name__)
            return None
        return entry if fresh else None

    async def known(self, email: str) -> bool:
        """Whether any answer about `email` (casefolded) may still be fresh; False on a problem."""
        if self._redis is None or self._ttl_s <= 0:
            return False
        try:
            async with asyncio.timeout(2):
                return bool(await self._redis.exists(DECISION_CACHE_PREFIX + email))
        except Exception as error:  # noqa: BLE001 - a cache problem only costs a lookup
            self._log.warning("authz_cache_failed", error=type(error).__name__)
            return False

    async def put(self, email: str, field: str, entry: Entry) -> None:
        """Keep `entry` as the answer about `field` for `email` (casefolded)."""
        if self._redis is None or self._ttl_s <= 0:
            return
        key = DECISION_CACHE_PREFIX + email
        try:
            async with asyncio.timeout(2), self._redis.pipeline(transaction=True) as pipe:
                pipe.hset(key, field, json.dumps({**entry, "at": self._clock()}))
                pipe.expire(key, self._ttl_s)
                await pipe.execute()
        except Exception as error:  # noqa: BLE001 - a cache problem only costs a lookup
            self._log.warning("authz_cache_failed", error=type(error).__name__)

    async def forget(self, email: str) -> None:
        """Drop every answer about `email` (casefolded)."""
        if self._redis is not None:
            await self._redis.delete(DECISION_CACHE_PREFIX + email)
