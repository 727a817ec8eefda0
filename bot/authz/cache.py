"""The per-person decision cache: one Redis hash per e-mail, one field per question.

`runai-why:authz:decisions:<e-mail>` holds, per `<cluster id>/<project>` (and `clusters` for
where they may read at all, `department:<cluster id>/<department id>` for whether they may
see a department's figures), the JSON answer and when it was decided. The hash expires with
its newest answer, and one `DEL` forgets a person. A cache problem only costs a lookup: it
is logged, never raised.

`read_all` reads a person's whole hash in one round trip when their turn starts; for
`SNAPSHOT_S` the answers in it serve `get` without asking Redis again (a turn checks the
workload, then the earlier runs it compares, within moments).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any, Final

import redis.asyncio as redis
import structlog

__all__ = ["DECISION_CACHE_PREFIX", "SNAPSHOT_S", "DecisionCache", "Entry"]

DECISION_CACHE_PREFIX: Final = "runai-why:authz:decisions:"
#: How long a person's answers read at the start of their turn serve its checks.
SNAPSHOT_S: Final = 1.0

Entry = dict[str, Any]
"""One answer as JSON: `{"readable": [...]}`, `{"everywhere": ..., "clusters": [...]}`, ..."""


class DecisionCache:
    """Answers kept for `ttl_s` seconds of `clock` (none without Redis, or with `ttl_s` 0)."""

    def __init__(
        self, redis_client: redis.Redis | None, ttl_s: int, clock: Callable[[], float]
    ) -> None:
        self._redis = redis_client
        self._ttl_s = ttl_s
        self._clock = clock
        self._log = structlog.get_logger("bot.authz")
        #: email -> (when read, its fresh answers by field), from `read_all`.
        self._snapshots: dict[str, tuple[float, dict[str, Entry]]] = {}

    def _fresh(self, raw: str | bytes) -> Entry | None:
        entry: Entry = json.loads(raw)
        return entry if self._clock() - float(entry.pop("at")) < self._ttl_s else None

    async def read_all(self, email: str) -> dict[str, Entry]:
        """Every fresh answer about `email` (casefolded), read at once; kept for `get`."""
        if self._redis is None or self._ttl_s <= 0:
            return {}
        try:
            async with asyncio.timeout(2):
                raw = await self._redis.hgetall(DECISION_CACHE_PREFIX + email)
            found = {
                (k if isinstance(k, str) else k.decode()): self._fresh(v) for k, v in raw.items()
            }
        except Exception as error:  # noqa: BLE001 - a cache problem only costs a lookup
            self._log.warning("authz_cache_failed", error=type(error).__name__)
            return {}
        fresh = {k: v for k, v in found.items() if v is not None}
        self._snapshots[email] = (time.monotonic(), fresh)
        return fresh

    def _from_snapshot(self, email: str, field: str) -> Entry | None:
        now = time.monotonic()
        self._snapshots = {k: v for k, v in self._snapshots.items() if now - v[0] < SNAPSHOT_S}
        taken = self._snapshots.get(email)
        entry = None if taken is None else taken[1].get(field)
        return None if entry is None else dict(entry)

    async def get(self, email: str, field: str) -> Entry | None:
        """The fresh answer about `field` for `email` (casefolded), or None."""
        if self._redis is None or self._ttl_s <= 0:
            return None
        if (kept := self._from_snapshot(email, field)) is not None:
            return kept
        try:
            async with asyncio.timeout(2):
                raw = await self._redis.hget(DECISION_CACHE_PREFIX + email, field)
            return None if raw is None else self._fresh(raw)
        except Exception as error:  # noqa: BLE001 - a cache problem only costs a lookup
            self._log.warning("authz_cache_failed", error=type(error).__name__)
            return None

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
        self._snapshots.pop(email, None)
        if self._redis is not None:
            await self._redis.delete(DECISION_CACHE_PREFIX + email)
