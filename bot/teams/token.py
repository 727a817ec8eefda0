"""The bot's outbound token for the Bot Connector: client credentials, cached until it expires.

One request to `TEAMS_LOGIN_URL` (`grant_type=client_credentials`, scope
`https://api.botframework.com/.default`) however many replies need a token at once; the token
is reused until a minute before it expires. It lives in a `SecretStr` and is never logged: a
failure logs the status only.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable

import httpx
import structlog
from pydantic import SecretStr

from bot.errors import BotError

__all__ = ["BOT_FRAMEWORK_SCOPE", "BotToken", "TokenUnavailable"]

BOT_FRAMEWORK_SCOPE = "https://api.botframework.com/.default"
#: A token is renewed this long before the `expires_in` the endpoint gave.
EARLY_S = 60.0


class TokenUnavailable(BotError):
    """The login endpoint did not give the bot a token (the message says why, never a secret)."""


class BotToken:
    """Client-credentials token for outbound Bot Connector calls, single-flight and cached."""

    def __init__(
        self,
        *,
        login_url: str,
        app_id: str,
        password: SecretStr,
        http: httpx.AsyncClient,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._login_url = login_url
        self._app_id = app_id
        self._password = password
        self._http = http
        self._clock = clock
        self._token: SecretStr | None = None
        self._expires_at = 0.0
        self._lock = asyncio.Lock()

    async def get(self) -> str:
        """A valid access token, fetched only when the cached one is (nearly) expired."""
        if self._token is not None and self._clock() < self._expires_at:
            return self._token.get_secret_value()
        async with self._lock:
            if self._token is None or self._clock() >= self._expires_at:
                await self._fetch()
            assert self._token is not None  # noqa: S101 - _fetch sets it or raises
            return self._token.get_secret_value()

    def forget(self) -> None:
        """Drop the cached token (the connector answered 401: fetch a new one next time)."""
        self._token = None

    def _form(self) -> dict[str, str]:
        # Built in its own frame, so no traceback's locals ever hold the plain secret.
        return {
            "grant_type": "client_credentials",
            "client_id": self._app_id,
            "client_secret": self._password.get_secret_value(),
            "scope": BOT_FRAMEWORK_SCOPE,
        }

    async def _fetch(self) -> None:
        log = structlog.get_logger(__name__)
        try:
            response = await self._http.post(self._login_url, data=self._form())
        except httpx.HTTPError as error:
            log.warning("teams_token_failed", error=type(error).__name__)
            raise TokenUnavailable(f"the login endpoint is unreachable ({error!r})") from error
        if response.status_code != httpx.codes.OK:
            log.warning("teams_token_failed", status=response.status_code)
            raise TokenUnavailable(f"the login endpoint answered {response.status_code}")
        try:
            body = json.loads(response.content)
            token, lifetime = str(body["access_token"]), float(body.get("expires_in", 3600))
        except (ValueError, KeyError, TypeError, RecursionError) as error:
            log.warning("teams_token_failed", error="malformed token response")
            raise TokenUnavailable("the login endpoint's answer has no access_token") from error
        self._token = SecretStr(token)
        self._expires_at = self._clock() + max(lifetime - EARLY_S, 0.0)
        log.info("teams_token_fetched", expires_in=int(lifetime))
