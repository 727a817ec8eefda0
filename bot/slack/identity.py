"""Who is asking on Slack: `users.info` through the bot's web client, for the engine's `Access`.

`identity_from_slack_user` reads a `users.info` body (pure); `SlackIdentityResolver` calls
`users.info` through an injected callable and caches the identity in Redis for a few minutes
(`runai-why:authz:identity:<team>:<user>`). The installing team (and Enterprise Grid, if any)
comes from `auth.test`, asked once per process (the answer Bolt's authorization uses too,
`bot.slack.authorize`); a user whose `users.info` says another team is external. Any failure
yields an identity whose `lookup_failed` is set, which the authorizer answers with "access
could not be checked".
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import redis.asyncio as redis
import structlog
from slack_sdk.web.async_client import AsyncWebClient

from bot.authz import IDENTITY_CACHE_PREFIX, IDENTITY_CACHE_TTL_S, Identity, IdentityCache
from bot.conversation import Incoming
from bot.slack.authorize import AuthTest

__all__ = [
    "SlackIdentify",
    "SlackIdentityResolver",
    "identity_from_slack_user",
]


UsersInfo = Callable[[str], Awaitable[Mapping[str, Any]]]
"""Fetches Slack's `users.info` body for a user id (`{"ok": true, "user": {...}}`)."""


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


class SlackIdentify:
    """The engine's `identify` for Slack: an `Incoming` → its asker's `Identity`."""

    def __init__(
        self,
        client: AsyncWebClient,
        redis_client: redis.Redis | None,
        auth_test: AuthTest | None = None,
    ) -> None:
        self._client = client
        self._redis = redis_client
        self._auth_test = auth_test or AuthTest(client)
        self._resolver: SlackIdentityResolver | None = None
        self._lock = asyncio.Lock()

    async def _users_info(self, user_id: str) -> Mapping[str, Any]:
        response = await self._client.users_info(user=user_id)
        return response.data if isinstance(response.data, dict) else {}

    async def _installed(self) -> SlackIdentityResolver:
        async with self._lock:
            if self._resolver is None:
                auth = await self._auth_test.answer()
                self._resolver = SlackIdentityResolver(
                    self._users_info,
                    installing_team=str(auth.get("team_id") or ""),
                    installing_enterprise=auth.get("enterprise_id") or None,
                    redis_client=self._redis,
                )
            return self._resolver

    async def __call__(self, incoming: Incoming) -> Identity:
        """The identity of `incoming.user`, asking through `incoming.key.team`."""
        team = incoming.key.team
        try:
            resolver = await self._installed()
        except Exception as error:  # noqa: BLE001 - any failure means "could not check"
            structlog.get_logger(__name__).warning(
                "identity_lookup_failed", call="auth.test", error=type(error).__name__
            )
            return Identity("slack", team, incoming.user, None, lookup_failed="auth.test")
        return await resolver.resolve(incoming.user, team_id=team or None)
