"""Who is asking: a chat user as an e-mail address, with guest and external flags.

Platform-neutral: each front end reads its own user record into an `Identity`
(`bot.slack.identity`, `bot.teams.identity`) and keeps it in an `IdentityCache` in Redis for
a few minutes, under `IDENTITY_CACHE_PREFIX`.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import asdict, dataclass
from typing import Final

import redis.asyncio as redis
import structlog

__all__ = [
    "IDENTITY_CACHE_PREFIX",
    "IDENTITY_CACHE_TTL_S",
    "Identity",
    "IdentityCache",
]

IDENTITY_CACHE_PREFIX: Final = "runai-why:authz:identity:"
IDENTITY_CACHE_TTL_S: Final = 300
"""How long a resolved identity is reused (profile changes show up within this)."""


@dataclass(frozen=True)
class Identity:
    """One asker as authorization sees them.

    Attributes:
        platform: "slack", "console", ...
        team_id: the workspace the request came through.
        user_id: the platform's user id.
        email: the confirmed e-mail address (the Run:ai user name), or None.
        is_guest: a guest account (Slack: `is_restricted` or `is_ultra_restricted`).
        is_external: from another organisation (Slack Connect: another team).
        lookup_failed: the call that failed when the identity could not be read at all.
    """

    platform: str
    team_id: str
    user_id: str
    email: str | None
    is_guest: bool = False
    is_external: bool = False
    lookup_failed: str | None = None

    @classmethod
    def console(cls, email: str) -> Identity:
        """The console demo's configurable identity (`--as alice@acme.ai`)."""
        return cls(platform="console", team_id="console", user_id=email, email=email)


class IdentityCache:
    """Identities kept in Redis for `ttl_s` (none without Redis, or with `ttl_s` 0).

    A cache problem only costs a fresh lookup: it is logged and never raised.
    """

    def __init__(self, redis_client: redis.Redis | None, ttl_s: int) -> None:
        self._redis = redis_client
        self._ttl_s = ttl_s
        self._log = structlog.get_logger("bot.authz")

    async def get(self, key: str) -> Identity | None:
        """The identity kept under `key`, or None (not kept, or the cache failed)."""
        if self._redis is None or self._ttl_s <= 0:
            return None
        try:
            async with asyncio.timeout(2):
                raw = await self._redis.get(key)
            return None if raw is None else Identity(**json.loads(raw))
        except Exception as error:  # noqa: BLE001 - a cache problem only costs a lookup
            self._log.warning("identity_cache_failed", error=type(error).__name__)
            return None

    async def put(self, key: str, identity: Identity) -> None:
        """Keep `identity` under `key` for the cache's TTL."""
        if self._redis is None or self._ttl_s <= 0:
            return
        try:
            async with asyncio.timeout(2):
                await self._redis.set(key, json.dumps(asdict(identity)), ex=self._ttl_s)
        except Exception as error:  # noqa: BLE001 - a cache problem only costs a lookup
            self._log.warning("identity_cache_failed", error=type(error).__name__)
