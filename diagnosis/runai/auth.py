"""Bearer-token authentication against the Run:ai control plane (`POST /api/v1/token`)."""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import time
from typing import TYPE_CHECKING, Any

import httpx
import structlog
from pydantic import SecretStr

from diagnosis.errors import AuthError, UpstreamUnavailable
from diagnosis.http.responses import TOKEN_OPERATION, error_message, safe_url

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator, Callable, Generator

__all__ = [
    "DEFAULT_TOKEN_LIFETIME_S",
    "TOKEN_PATH",
    "RunaiTokenAuth",
    "jwt_exp",
]

TOKEN_PATH = "/api/v1/token"  # noqa: S105 - a URL path, not a password
"""The one path the Run:ai client may POST to (the client-credentials token grant)."""

DEFAULT_TOKEN_LIFETIME_S = 3600.0
"""Assumed token lifetime when neither `expiresIn` nor the JWT `exp` claim says otherwise."""

_REFUSED_STATUSES = frozenset({400, 401, 403})


class RunaiTokenAuth(httpx.Auth):
    """An `httpx.Auth` that obtains, caches and refreshes a client-credentials token.

    The token is fetched with the client-credentials grant, cached, and fetched again
    `refresh_margin_s` before it expires (expiry from `expiresIn`, else the JWT `exp` claim,
    else one hour). A 401 from an API call triggers one fresh token and one retry. Fetches are
    serialised by an `asyncio.Lock`, so concurrent requests share a single token request.
    Only the async flow is supported.

    Args:
        token_url: absolute URL of `POST /api/v1/token`.
        client_id: service-account or access-key client ID.
        client_secret: its secret; never logged and never put in an exception message.
        refresh_margin_s: refresh this many seconds before expiry (at most half the lifetime).
        clock: wall clock in seconds since the epoch (default `time.time`).
        logger: a structlog-style logger (default `structlog.get_logger(__name__)`).
    """

    def __init__(
        self,
        *,
        token_url: httpx.URL | str,
        client_id: str,
        client_secret: SecretStr | str,
        refresh_margin_s: float = 60.0,
        clock: Callable[[], float] | None = None,
        logger: Any = None,
    ) -> None:
        self._token_url = httpx.URL(token_url)
        self._client_id = client_id
        self._secret = (
            client_secret if isinstance(client_secret, SecretStr) else SecretStr(client_secret)
        )
        self._margin_s = refresh_margin_s
        self._clock = clock or time.time
        self._logger = logger
        self._lock = asyncio.Lock()
        self._token: str | None = None
        self._refresh_at = 0.0

    def sync_auth_flow(
        self,
        request: httpx.Request,  # noqa: ARG002 - the httpx.Auth signature
    ) -> Generator[httpx.Request, httpx.Response]:
        """Refuse synchronous use: the Run:ai client is asyncio end to end."""
        raise RuntimeError("RunaiTokenAuth supports only httpx.AsyncClient")

    async def async_auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        """Attach a valid bearer token; on a 401, fetch a new token and retry exactly once."""
        stale: str | None = None
        for attempt in range(2):
            token = self._usable_token(stale)
            if token is None:
                async with self._lock:
                    token = self._usable_token(stale)
                    if token is None:
                        token_response = yield self._token_request(request)
                        token = await self._accept(token_response)
            request.headers["Authorization"] = f"Bearer {token}"
            response = yield request
            if response.status_code != httpx.codes.UNAUTHORIZED or attempt > 0:
                return
            stale = token

    def _usable_token(self, stale: str | None) -> str | None:
        """The cached token unless it is missing, known to be refused, or about to expire."""
        if self._token is None or self._token == stale or self._clock() >= self._refresh_at:
            return None
        return self._token

    def _token_request(self, api_request: httpx.Request) -> httpx.Request:
        """The client-credentials POST, with the API request's timeouts (httpx sets none here)."""
        timeout = api_request.extensions.get("timeout")
        return httpx.Request(
            "POST",
            self._token_url,
            json={
                "grantType": "client_credentials",
                "clientID": self._client_id,
                "clientSecret": self._secret.get_secret_value(),
            },
            headers={"Accept": "application/json", "User-Agent": "runai-why"},
            extensions={} if timeout is None else {"timeout": timeout},
        )

    async def _accept(self, response: httpx.Response) -> str:
        """Validate a token response, cache the token and its refresh time, and return it."""
        await response.aread()
        url = safe_url(self._token_url)
        status = response.status_code
        if status != httpx.codes.OK:
            detail = self._scrub(error_message(response))
            if status in _REFUSED_STATUSES:
                message = f"the token endpoint refused the credentials{detail}"
                raise AuthError(message, operation=TOKEN_OPERATION, url=url, status=status)
            message = f"the token request failed{detail}"
            raise UpstreamUnavailable(message, operation=TOKEN_OPERATION, url=url, status=status)
        try:
            body = response.json()
        except ValueError:
            body = None
        token = body.get("accessToken") if isinstance(body, dict) else None
        if not isinstance(token, str) or not token:
            raise UpstreamUnavailable(
                "the token response carries no accessToken",
                operation=TOKEN_OPERATION,
                url=url,
                status=status,
            )
        now = self._clock()
        expires_at, source = _expiry(body, token, now)
        lifetime = max(expires_at - now, 0.0)
        self._token = token
        self._refresh_at = expires_at - min(self._margin_s, lifetime / 2)
        self._log().debug("runai_token_refreshed", expires_in_s=round(lifetime), source=source)
        return token

    def _scrub(self, text: str) -> str:
        secret = self._secret.get_secret_value()
        return text.replace(secret, "***") if secret else text

    def _log(self) -> Any:
        if self._logger is None:
            self._logger = structlog.get_logger(__name__)
        return self._logger


def _expiry(body: dict[str, Any], token: str, now: float) -> tuple[float, str]:
    """When the token expires (epoch seconds) and which field said so."""
    expires_in = body.get("expiresIn")
    if isinstance(expires_in, int | float) and not isinstance(expires_in, bool) and expires_in > 0:
        return now + float(expires_in), "expires_in"
    exp = jwt_exp(token)
    if exp is not None:
        return exp, "jwt_exp"
    return now + DEFAULT_TOKEN_LIFETIME_S, "default"


def jwt_exp(token: str) -> float | None:
    """The `exp` claim of a JWT, decoded without verifying the signature; None if absent."""
    parts = token.split(".")
    if len(parts) != 3:  # noqa: PLR2004 - header.payload.signature
        return None
    payload = parts[1] + "=" * (-len(parts[1]) % 4)
    try:
        claims = json.loads(base64.urlsafe_b64decode(payload))
    except (binascii.Error, ValueError):
        return None
    exp = claims.get("exp") if isinstance(claims, dict) else None
    if isinstance(exp, int | float) and not isinstance(exp, bool):
        return float(exp)
    return None
