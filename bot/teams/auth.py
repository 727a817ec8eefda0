"""The gate in front of `/api/messages`: the Bot Framework's JWT, verified before anything else.

Every request carries `Authorization: Bearer <JWT>` signed by the Bot Framework: RS256, issued
by `TEAMS_TOKEN_ISSUER`, for our app ID, with a key from the `jwks_uri` of the OpenID metadata
at `TEAMS_OPENID_METADATA_URL` (fetched, cached and refreshed by `bot.teams.signing_keys`).
Nothing of the body is read before the signature, issuer, audience and expiry check out; a token
whose expiry lies further ahead than `TEAMS_MAX_TOKEN_LIFETIME_S` is refused too, so an activity
is remembered (its replay a duplicate) for as long as its token is accepted
(`TeamsSettings.replay_window_s`). Two
checks need the verified body, so the endpoint makes them once it is parsed: the `serviceurl`
claim must name the activity's `serviceUrl` (`service_url_matches`), and the key that signed
the token must endorse the activity's `channelId` (`channel_endorsed`), as the Bot Framework
SDKs check it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jwt
import structlog

from bot.config import MAX_TOKEN_LIFETIME_S, TOKEN_LEEWAY_S
from bot.errors import BotError
from bot.ops.metrics import TEAMS_TOKENS_REJECTED
from bot.teams.signing_keys import KeysUnavailable, SigningKeys

__all__ = [
    "LEEWAY_S",
    "BotClaims",
    "InboundVerifier",
    "KeysUnavailable",
    "TokenRejected",
    "channel_endorsed",
    "service_url_matches",
]

#: Clock skew tolerated on `exp`/`nbf`/`iat`, as the Bot Framework SDKs do.
LEEWAY_S = TOKEN_LEEWAY_S
_MAX_TOKEN_CHARS = 16_384


class TokenRejected(BotError):
    """The request's token is missing or not valid; the message is for the log only."""


def _rejected(reason: str, message: str) -> TokenRejected:
    """The refusal to raise, counted by `reason` (`runai_why_teams_tokens_rejected_total`)."""
    TEAMS_TOKENS_REJECTED.labels(reason=reason).inc()
    return TokenRejected(message)


@dataclass(frozen=True)
class BotClaims:
    """What a verified token says: who it is for, the service URL and channels it vouches for."""

    audience: str
    service_url: str | None
    endorsements: frozenset[str] = field(default_factory=frozenset)
    """The channels the signing key endorses (`msteams`, ...)."""


def service_url_matches(claims: BotClaims, service_url: str) -> bool:
    """Whether the token's `serviceurl` claim names the activity's `serviceUrl` (case, `/`)."""
    if not claims.service_url or not service_url:
        return False
    return claims.service_url.rstrip("/").lower() == service_url.rstrip("/").lower()


def channel_endorsed(claims: BotClaims, channel_id: object) -> bool:
    """Whether the activity names a `channelId` that the token's signing key endorses.

    Stricter than the SDKs in one way: an activity without a `channelId`, or a key with no
    endorsements, is not endorsed (a Teams activity always says `msteams`).
    """
    return isinstance(channel_id, str) and bool(channel_id) and channel_id in claims.endorsements


class InboundVerifier:
    """Verifies Bot Framework bearer tokens against the configured OpenID metadata."""

    def __init__(
        self,
        *,
        app_id: str,
        issuer: str,
        keys: SigningKeys,
        max_lifetime_s: float = MAX_TOKEN_LIFETIME_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """`max_lifetime_s`: the longest a token may still have to live (`exp` from now)."""
        self._app_id = app_id
        self._issuer = issuer
        self._max_lifetime_s = max_lifetime_s
        self._clock = clock
        self.keys = keys
        """The signing keys (their `timing` says when they are fetched)."""

    async def verify(self, authorization: str) -> BotClaims:
        """The claims of the `Authorization` header's token.

        Raises:
            TokenRejected: the token is missing, malformed or not valid.
            KeysUnavailable: no trusted keys to check it with, for now.
        """
        scheme, _, token = authorization.strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise _rejected("missing", "no bearer token")
        if len(token) > _MAX_TOKEN_CHARS:
            raise _rejected("too_long", "token too long")
        try:
            header = jwt.get_unverified_header(token)
        except jwt.InvalidTokenError as error:
            raise _rejected("malformed", f"malformed token ({type(error).__name__})") from error
        if header.get("alg") != "RS256":
            raise _rejected("malformed", "token not signed with RS256")
        kid = header.get("kid")
        if not isinstance(kid, str) or not kid:
            raise _rejected("malformed", "token names no key")
        key = await self.keys.get(kid)
        if key is None:
            raise _rejected("unknown_key", "token signed with an unknown key")
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key.key,
                algorithms=["RS256"],
                audience=self._app_id,
                issuer=self._issuer,
                leeway=LEEWAY_S,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt.InvalidTokenError as error:
            raise _rejected("invalid", f"token invalid ({type(error).__name__})") from error
        exp_in_s = claims["exp"] - self._clock()
        if exp_in_s > self._max_lifetime_s:
            # Accepted, it could be replayed after its activity was forgotten. Its issuer and
            # lifetime tell an admin whether the Bot Framework's tokens now live longer.
            structlog.get_logger(__name__).warning(
                "teams_token_lifetime_refused",
                exp_in_s=round(exp_in_s),
                iss=claims["iss"],
                max_lifetime_s=self._max_lifetime_s,
            )
            raise _rejected("lifetime", "token lives longer than TEAMS_MAX_TOKEN_LIFETIME_S")
        url = claims.get("serviceurl")
        return BotClaims(
            audience=self._app_id,
            service_url=url if isinstance(url, str) else None,
            endorsements=key.endorsements,
        )

    async def aclose(self) -> None:
        """Stop the key fetch under way, if any (before the HTTP client closes)."""
        await self.keys.aclose()
