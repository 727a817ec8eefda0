"""Who is asking on Slack: `users.info` through the bot's web client, for the engine's `Access`.

The installing team (and Enterprise Grid, if any) comes from `auth.test`, asked once per
process (the answer Bolt's authorization uses too, `bot.slack.authorize`); a user
whose `users.info` says another team is external. Any failure yields an identity whose
`lookup_failed` is set, which the authorizer answers with "access could not be checked".
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import redis.asyncio as redis
import structlog
from slack_sdk.web.async_client import AsyncWebClient

from bot.authz import Identity, SlackIdentityResolver
from bot.conversation import Incoming
from bot.slack.authorize import AuthTest

__all__ = ["SlackIdentify"]


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
