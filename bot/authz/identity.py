"""Who is asking: a chat user as an e-mail address, with guest and external flags.

`identity_from_slack_user` reads a Slack `users.info` response (pure); `SlackIdentityResolver`
calls `users.info` through an injected callable and caches the identity in Redis for a few
minutes (`runai-why:authz:identity:<team>:<user>`), so this module needs nothing from
`bot.slack`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Final

import redis.asyncio as redis
import structlog

__all__ = [
    "IDENTITY_CACHE_PREFIX",
    "IDENTITY_CACHE_TTL_S",
    "Identity",
    "IdentityCache",
    "SlackIdentityResolver",
    "identity_from_slack_user",
]

IDENTITY_CACHE_PREFIX: Final = "runai-why:authz:identity:"
IDENTITY_CACHE_TTL_S: Final = 300
"""How long a resolved identity is reused (Slack profile changes show up within this)."""

UsersInfo = Callable[[str], Awaitable[Mapping[str, Any]]]
"""Fetches Slack's `users.info` body for a user id (`{"ok": true, "user": {...}}`)."""


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


def identity_from_slack_user(
    body: Mapping[str, Any],
    *,
    team_id: str,
    user_id: str,
    installing_team: str,
    installing_enterprise: str | None = None,
) -> Identity:
    """The identity in a `users.info` body.

    The e-mail (`profile.email`) counts only when `is_email_confirmed` is true. A user whose
    `team_id` is not `installing_team` is external, unless both belong to
    `installing_enterprise` (one Enterprise Grid organisation). A body that is not `ok` or
    has no user yields an identity whose `lookup_failed` is `users.info`.
    """
    user = body.get("user") if body.get("ok") else None
    if not isinstance(user, Mapping):
        return Identity("slack", team_id, user_id, None, lookup_failed="users.info")
    profile = user.get("profile")
    if not isinstance(profile, Mapping):
        profile = {}
    email = profile.get("email") if user.get("is_email_confirmed") is True else None
    if not isinstance(email, str) or "@" not in email or user.get("is_bot"):
        email = None
    home = user.get("team_id")
    enterprise = user.get("enterprise_user")
    same_grid = (
        installing_enterprise is not None
        and isinstance(enterprise, Mapping)
        and enterprise.get("enterprise_id") == installing_enterprise
    )
    return Identity(
        platform="slack",
        team_id=team_id,
        user_id=user_id,
        email=email.strip() if email else None,
        is_guest=bool(user.get("is_restricted") or user.get("is_ultra_restricted")),
        is_external=not same_grid and home != installing_team,
    )


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


class SlackIdentityResolver:
    """Resolves Slack user ids to identities through `users.info`, cached in Redis.

    Args:
        users_info: fetches `users.info` for a user id (the engine passes the Slack client's
            call); an exception from it yields an identity with `lookup_failed` set.
        installing_team: the team id the app is installed in.
        installing_enterprise: the Enterprise Grid id, when installed organisation-wide.
        redis_client: where identities are cached; None caches nothing.
        ttl_s: how long a cached identity is used.
    """

    def __init__(
        self,
        users_info: UsersInfo,
        *,
        installing_team: str,
        installing_enterprise: str | None = None,
        redis_client: redis.Redis | None = None,
        ttl_s: int = IDENTITY_CACHE_TTL_S,
    ) -> None:
        self._users_info = users_info
        self._team = installing_team
        self._enterprise = installing_enterprise
        self._cache = IdentityCache(redis_client, ttl_s)
        self._log = structlog.get_logger("bot.authz")

    async def resolve(self, user_id: str, *, team_id: str | None = None) -> Identity:
        """The identity of `user_id` (asking through `team_id`, default the installing team)."""
        team = team_id or self._team
        key = f"{IDENTITY_CACHE_PREFIX}{team}:{user_id}"
        cached = await self._cache.get(key)
        if cached is not None:
            return cached
        try:
            body = await self._users_info(user_id)
        except Exception as error:  # noqa: BLE001 - any failure means "could not check"
            self._log.warning("identity_lookup_failed", user=user_id, error=type(error).__name__)
            return Identity("slack", team, user_id, None, lookup_failed="users.info")
        identity = identity_from_slack_user(
            body,
            team_id=team,
            user_id=user_id,
            installing_team=self._team,
            installing_enterprise=self._enterprise,
        )
        if identity.lookup_failed is None:
            await self._cache.put(key, identity)
        return identity
