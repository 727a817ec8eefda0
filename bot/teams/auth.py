"""The gate in front of `/api/messages`: the Bot Framework's JWT, verified before anything else.

Every request carries `Authorization: Bearer <JWT>` signed by the Bot Framework: RS256, issued
by `TEAMS_TOKEN_ISSUER`, for our app ID, with keys from the `jwks_uri` of the OpenID metadata
at `TEAMS_OPENID_METADATA_URL`. The keys are fetched asynchronously (never a blocking call on
the event loop), cached, and fetched again when a token names a key we do not have (a key
rollover), at most once a minute. Nothing of the body is read before the signature, issuer,
audience and expiry check out; the `serviceurl` claim is compared with the activity's
`serviceUrl` once the verified body is parsed (`service_url_matches`).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx
import jwt
import structlog

__all__ = ["LEEWAY_S", "BotClaims", "InboundVerifier", "TokenRejected", "service_url_matches"]

#: Clock skew tolerated on `exp`/`nbf`/`iat`, as the Bot Framework SDKs do.
LEEWAY_S = 300
#: A token naming an unknown key fetches the keys again, but no more often than this.
REFETCH_AFTER_S = 60.0
#: How long fetched keys are trusted before they are fetched again anyway.
KEYS_TTL_S = 24 * 3600.0
_MAX_TOKEN_CHARS = 16_384


class TokenRejected(Exception):
    """The request's token is missing or not valid; the message is for the log only."""


@dataclass(frozen=True)
class BotClaims:
    """What a verified token says: who it is for and which service URL it vouches for."""

    audience: str
    service_url: str | None


def service_url_matches(claims: BotClaims, service_url: str) -> bool:
    """Whether the token's `serviceurl` claim names the activity's `serviceUrl` (case, `/`)."""
    if not claims.service_url or not service_url:
        return False
    return claims.service_url.rstrip("/").lower() == service_url.rstrip("/").lower()


class InboundVerifier:
    """Verifies Bot Framework bearer tokens against the configured OpenID metadata."""

    def __init__(
        self,
        *,
        app_id: str,
        metadata_url: str,
        issuer: str,
        http: httpx.AsyncClient,
        refetch_after_s: float = REFETCH_AFTER_S,
    ) -> None:
        self._app_id = app_id
        self.refetch_after_s = refetch_after_s
        """An unknown key fetches the keys again only this long after the last fetch."""
        self._metadata_url = metadata_url
        self._issuer = issuer
        self._http = http
        self._keys: dict[str, jwt.PyJWK] = {}
        self._fetched_at: float | None = None
        self._lock = asyncio.Lock()

    async def verify(self, authorization: str) -> BotClaims:
        """The claims of the `Authorization` header's token; `TokenRejected` otherwise."""
        scheme, _, token = authorization.strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise TokenRejected("no bearer token")
        if len(token) > _MAX_TOKEN_CHARS:
            raise TokenRejected("token too long")
        try:
            header = jwt.get_unverified_header(token)
        except jwt.InvalidTokenError as error:
            raise TokenRejected(f"malformed token ({type(error).__name__})") from error
        if header.get("alg") != "RS256":
            raise TokenRejected("token not signed with RS256")
        key = await self._key(str(header.get("kid") or ""))
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
            raise TokenRejected(f"token invalid ({type(error).__name__})") from error
        url = claims.get("serviceurl")
        return BotClaims(audience=self._app_id, service_url=url if isinstance(url, str) else None)

    async def _key(self, kid: str) -> jwt.PyJWK:
        if not kid:
            raise TokenRejected("token names no key")
        now = time.monotonic()
        fresh = self._fetched_at is not None and now - self._fetched_at < KEYS_TTL_S
        if kid in self._keys and fresh:
            return self._keys[kid]
        async with self._lock:  # single flight: one fetch however many requests wait
            recently = (
                self._fetched_at is not None and now - self._fetched_at < self.refetch_after_s
            )
            if (kid not in self._keys and not recently) or not fresh:
                await self._refresh()
        if kid not in self._keys:
            raise TokenRejected("token signed with an unknown key")
        return self._keys[kid]

    async def _refresh(self) -> None:
        """Fetch the metadata, then its `jwks_uri`; a failure keeps the keys we had."""
        log = structlog.get_logger(__name__)
        try:
            keys = jwt.PyJWKSet.from_dict(dict(await self._json(await self._jwks_uri())))
        except (httpx.HTTPError, ValueError, TypeError, jwt.PyJWKSetError) as error:
            log.warning("teams_keys_fetch_failed", error=type(error).__name__)
            self._fetched_at = time.monotonic()  # no hammering while the issuer is down
            return
        self._keys = {k.key_id: k for k in keys.keys if k.key_id}
        self._fetched_at = time.monotonic()
        log.info("teams_keys_fetched", keys=len(self._keys))

    async def _jwks_uri(self) -> str:
        jwks_uri = (await self._json(self._metadata_url)).get("jwks_uri")
        if not isinstance(jwks_uri, str) or not jwks_uri:
            raise ValueError("OpenID metadata has no jwks_uri")
        return jwks_uri

    async def _json(self, url: str) -> Mapping[str, Any]:
        response = await self._http.get(url)
        response.raise_for_status()
        body = json.loads(response.content)
        if not isinstance(body, dict):
            raise TypeError("not a JSON object")
        return body
