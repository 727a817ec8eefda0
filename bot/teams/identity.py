"""Who is asking on Teams: the member record from the Bot Connector, for the engine's `Access`.

`GET {serviceUrl}/v3/conversations/{id}/members/{userId}` gives the asker's e-mail or UPN
(the Run:ai user name), their tenant and their role. A guest (`userRole: guest`, or a UPN
with `#EXT#`) is a guest; someone from a tenant other than `TEAMS_TENANT_ID` is external;
the authorizer denies both unless `AUTHZ_ALLOW_GUESTS` / `AUTHZ_ALLOW_EXTERNAL` say otherwise.
Identities are cached in Redis for a few minutes, like Slack's. Any failure yields an
identity whose `lookup_failed` is set: "access could not be checked", never a guess.
"""

from __future__ import annotations

from collections.abc import Callable

import redis.asyncio as redis
import structlog
from microsoft_teams.api import TeamsChannelAccount
from pydantic import ValidationError

from bot.authz import IDENTITY_CACHE_PREFIX, IDENTITY_CACHE_TTL_S, Identity, IdentityCache
from bot.conversation import Incoming
from bot.teams.activity import Inbound
from bot.teams.connector import ConnectorError, TeamsConnector

__all__ = ["MEMBER_CALL", "TeamsIdentify", "identity_from_member"]

MEMBER_CALL = "conversations.members"


def identity_from_member(member: TeamsChannelAccount, *, inbound: Inbound, tenant: str) -> Identity:
    """The identity in a member record, for a request that came through tenant `tenant`."""
    address = next(
        (a.strip() for a in (member.email, member.user_principal_name) if a and "@" in a), None
    )
    upn = member.user_principal_name or ""
    home = member.tenant_id or inbound.tenant_id
    return Identity(
        platform="teams",
        team_id=inbound.tenant_id,
        user_id=inbound.user_id,
        email=address,
        is_guest=(member.user_role or "").lower() in {"guest", "anonymous"} or "#EXT#" in upn,
        is_external=not tenant or home != tenant or inbound.tenant_id != tenant,
    )


class TeamsIdentify:
    """The engine's `identify` for Teams; `inbound_of` finds the activity behind an `Incoming`."""

    def __init__(
        self,
        connector: TeamsConnector,
        *,
        tenant: str,
        inbound_of: Callable[[Incoming], Inbound | None],
        redis_client: redis.Redis | None,
        ttl_s: int = IDENTITY_CACHE_TTL_S,
    ) -> None:
        self._connector = connector
        self._tenant = tenant
        self._inbound_of = inbound_of
        self._cache = IdentityCache(redis_client, ttl_s)
        self._log = structlog.get_logger(__name__)

    async def __call__(self, incoming: Incoming) -> Identity:
        """The identity of `incoming.user`, from the member record of its conversation."""
        inbound = self._inbound_of(incoming)
        if inbound is None:
            return Identity(
                "teams", incoming.key.team, incoming.user, None, lookup_failed=MEMBER_CALL
            )
        key = f"{IDENTITY_CACHE_PREFIX}teams:{inbound.tenant_id}:{inbound.user_id}"
        cached = await self._cache.get(key)
        if cached is not None:
            return cached
        try:
            body = await self._connector.member(
                inbound.service_url, inbound.conversation_id, inbound.user_id
            )
            member = TeamsChannelAccount.model_validate(body)
        except (ConnectorError, ValidationError) as error:
            self._log.warning(
                "identity_lookup_failed", call=MEMBER_CALL, error=type(error).__name__
            )
            return Identity(
                "teams", inbound.tenant_id, inbound.user_id, None, lookup_failed=MEMBER_CALL
            )
        identity = identity_from_member(member, inbound=inbound, tenant=self._tenant)
        await self._cache.put(key, identity)
        return identity
