"""The Bot Framework's signing keys: one fetch however many wait, refreshed ahead, backed off.

The keys come from the `jwks_uri` of the OpenID metadata at `TEAMS_OPENID_METADATA_URL`. At
most one fetch (metadata, then keys) runs at a time, as an asyncio task every request that
needs it waits on; a request that gives up (its client left) does not stop it. The rules:

- **Trusted for `max_age_s`** (5 days, the Bot Framework SDK's own cache lifetime) after the
  last successful fetch; older keys are not used, and a request waits for a fetch.
- **Refreshed ahead:** once the keys are `refresh_after_s` old (24 h), the next request starts
  a refresh in the background and is verified with the keys it has; so are the requests
  while that refresh runs or fails. Nobody waits for a routine refresh.
- **An unknown `kid`** (a key rollover, or a forged token) waits for a fetch only when none
  started in the last `unknown_kid_every_s` (60 s); otherwise it is refused at once.
- **After a failed fetch**, the next one starts no sooner than a backoff that doubles from
  `retry_first_s` (1 s) to at most `retry_max_s` (30 s), and is back to nothing after a
  success. Without trusted keys, a request in the backoff is told when to come back
  (`KeysUnavailable`: a 503, never a verdict on its token).

`aclose` cancels a fetch under way and waits for it; nothing is started after it.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx
import jwt
import structlog

from bot.errors import BotError

__all__ = ["KeyTiming", "KeysUnavailable", "SigningKey", "SigningKeys"]


@dataclass(frozen=True)
class KeyTiming:
    """When the keys are fetched again, and how long they are trusted (seconds)."""

    refresh_after_s: float = 24 * 3600.0
    max_age_s: float = 5 * 24 * 3600.0
    unknown_kid_every_s: float = 60.0
    retry_first_s: float = 1.0
    retry_max_s: float = 30.0

    def retry_in(self, failures: int) -> float:
        """The wait before the next fetch after `failures` failed ones in a row (>= 1)."""
        return min(self.retry_max_s, self.retry_first_s * 2.0 ** min(failures - 1, 32))


@dataclass(frozen=True)
class SigningKey:
    """One published key: the RSA public key, and the channels it endorses (`msteams`, ...)."""

    key: jwt.PyJWK
    endorsements: frozenset[str]


class KeysUnavailable(BotError):
    """No trusted keys, and none could be fetched now: come back in `retry_after_s`."""

    def __init__(self, retry_after_s: float) -> None:
        super().__init__("the Bot Framework signing keys are unavailable")
        self.retry_after_s = retry_after_s


def _signing_keys(jwks: Mapping[str, Any]) -> dict[str, SigningKey]:
    """The RSA keys of a JWK set by `kid`, with their endorsements; the rest is skipped."""
    entries = jwks.get("keys")
    if not isinstance(entries, list):
        raise TypeError("the key set has no list of keys")
    keys: dict[str, SigningKey] = {}
    for entry in entries:
        if not isinstance(entry, dict) or entry.get("kty") != "RSA":
            continue
        kid, endorsed = entry.get("kid"), entry.get("endorsements")
        if not isinstance(kid, str) or not kid:
            continue
        try:
            key = jwt.PyJWK(entry, algorithm="RS256")
        except jwt.PyJWTError:
            continue
        names = endorsed if isinstance(endorsed, list) else []
        keys[kid] = SigningKey(key, frozenset(e for e in names if isinstance(e, str)))
    if not keys:
        raise ValueError("the key set has no usable RSA key")
    return keys


class SigningKeys:
    """The keys named by the OpenID metadata at `metadata_url`, cached by the rules above."""

    def __init__(
        self,
        *,
        metadata_url: str,
        http: httpx.AsyncClient,
        timing: KeyTiming | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.timing = timing or KeyTiming()
        """When to fetch (a test may set a backoff of nothing, say)."""
        self._metadata_url = metadata_url
        self._http = http
        self._clock = clock
        self._keys: dict[str, SigningKey] = {}
        self._fetched_at = -math.inf
        """When the keys were last fetched successfully."""
        self._started_at = -math.inf
        """When the last fetch started, whatever came of it."""
        self._failures = 0
        self._retry_at = -math.inf
        self._flight: asyncio.Task[None] | None = None
        self._closed = False
        self._log = structlog.get_logger(__name__)

    async def get(self, kid: str) -> SigningKey | None:
        """The key named `kid`, or None when the trusted keys have no such key.

        Raises:
            KeysUnavailable: there are no trusted keys and none could be fetched now.
        """
        now = self._clock()
        if self._trusted(now):
            if now - self._fetched_at >= self.timing.refresh_after_s:
                self._launch(now)  # in the background: this request goes on with what we have
            key = self._keys.get(kid)
            if key is not None:
                return key
            flight = self._running()
            if flight is None and now - self._started_at >= self.timing.unknown_kid_every_s:
                flight = self._launch(now)
            if flight is None:
                return None
        else:
            flight = self._launch(now)
            if flight is None:
                raise KeysUnavailable(max(self._retry_at - now, 0.0))
        await asyncio.wait({flight})  # a waiter that is cancelled leaves the fetch running
        now = self._clock()
        if not self._trusted(now):
            raise KeysUnavailable(max(self._retry_at - now, 0.0))
        return self._keys.get(kid)

    async def aclose(self) -> None:
        """Stop: cancel a fetch under way and wait for it to end; start none after this."""
        self._closed = True
        flight, self._flight = self._flight, None
        if flight is not None:
            flight.cancel()
            await asyncio.wait({flight})

    def _trusted(self, now: float) -> bool:
        return bool(self._keys) and now - self._fetched_at < self.timing.max_age_s

    def _running(self) -> asyncio.Task[None] | None:
        return self._flight if self._flight is not None and not self._flight.done() else None

    def _launch(self, now: float) -> asyncio.Task[None] | None:
        """The fetch under way, or a new one; None while backing off or closed."""
        running = self._running()
        if running is not None or self._closed or now < self._retry_at:
            return running
        self._started_at = now
        self._flight = asyncio.create_task(self._fetch(), name="teams-signing-keys")
        return self._flight

    async def _fetch(self) -> None:
        """One fetch; its outcome is recorded, never raised (a background one has no waiter)."""
        try:
            keys = _signing_keys(await self._json(await self._jwks_uri()))
        except Exception as error:  # noqa: BLE001 - any failed fetch is retried after the backoff
            self._failures += 1
            wait_s = self.timing.retry_in(self._failures)
            self._retry_at = self._clock() + wait_s
            self._log.warning(
                "teams_keys_fetch_failed",
                error=type(error).__name__,
                failures=self._failures,
                retry_in_s=wait_s,
                keys_kept=self._trusted(self._clock()),
            )
            return
        self._keys, self._fetched_at = keys, self._clock()
        self._failures, self._retry_at = 0, -math.inf
        self._log.info("teams_keys_fetched", keys=len(keys))

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
