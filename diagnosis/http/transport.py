"""The HTTP layer under both API clients: a read-only guard and bounded retries.

Both the Run:ai and the Kubernetes client stack `RetryTransport` over `ReadOnlyTransport`
over the network transport, below their auth, so nothing but GET (and, for Run:ai, the
token POST) can ever leave the process, and transient failures are retried in one place.
"""

from __future__ import annotations

import asyncio
import functools
import random
import ssl
import time
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any

import httpx
import structlog

from diagnosis.errors import DiagnosisError
from diagnosis.http.aio import AiohttpTransport

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

__all__ = [
    "ATTEMPTS_EXTENSION",
    "RETRYABLE_EXCEPTIONS",
    "RETRYABLE_STATUSES",
    "ReadOnlyTransport",
    "ReadOnlyViolation",
    "RetryTransport",
    "network_transport",
    "retry_after_s",
]


@functools.cache
def _default_tls() -> ssl.SSLContext:
    """The default TLS context of httpx (the certifi bundle), built once per process.

    Building one reads and parses the whole CA bundle (~40 ms of CPU); httpx builds a new one
    for every transport it is not given a context for.
    """
    return httpx.create_ssl_context()


def network_transport(verify: ssl.SSLContext | None = None) -> httpx.AsyncBaseTransport:
    """A real network transport verifying with `verify`, else with the shared default context.

    aiohttp's client under httpx's interface (`diagnosis.http.aio`), with httpx's default
    limits.
    """
    return AiohttpTransport(_default_tls() if verify is None else verify)


RETRYABLE_STATUSES = frozenset({429, 500, 502, 503, 504})
"""Statuses retried with backoff; every other status is final."""

RETRYABLE_EXCEPTIONS: tuple[type[httpx.TransportError], ...] = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.PoolTimeout,
    httpx.ReadTimeout,
    httpx.ReadError,
    httpx.RemoteProtocolError,
)
"""Transport failures retried with backoff (connect errors, read timeouts, resets)."""

#: Response extension where `RetryTransport` records how many attempts a response took.
ATTEMPTS_EXTENSION = "runai_attempts"


class ReadOnlyViolation(DiagnosisError):
    """A request other than GET (or the token POST) was about to leave the process."""


class ReadOnlyTransport(httpx.AsyncBaseTransport):
    """Passes GET requests, and POST to exactly the token path; refuses everything else.

    It wraps the transport that talks to the network and sits below `httpx.Auth`, so neither
    the API methods nor the auth flow can send a mutating request.

    Args:
        inner: the transport that actually sends requests.
        token_path: the URL path of the token endpoint (the base URL's path prefix included);
            None allows no POST at all (GET only).
        name: what the refusal message calls the client.
    """

    def __init__(
        self,
        inner: httpx.AsyncBaseTransport,
        *,
        token_path: str | None = None,
        name: str = "the client",
    ) -> None:
        self._inner = inner
        self._token_path = token_path
        self._name = name

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Forward an allowed request; raise `ReadOnlyViolation` for any other."""
        method = request.method.upper()
        token_post = self._token_path is not None and request.url.path == self._token_path
        allowed = method == "GET" or (method == "POST" and token_post)
        if not allowed:
            raise ReadOnlyViolation(
                f"refused {method} {request.url.path}: {self._name} is read-only"
            )
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        """Close the wrapped transport."""
        await self._inner.aclose()


class RetryTransport(httpx.AsyncBaseTransport):
    """Retries transient failures with capped exponential backoff and full jitter.

    Retried: `RETRYABLE_EXCEPTIONS` and `RETRYABLE_STATUSES`, at most `retries` extra times.
    A `Retry-After` header (seconds or HTTP-date) replaces the backoff, capped at
    `max_backoff_s`. When attempts run out the last response is returned, or the last
    exception re-raised, for the caller to translate. Logs `runai_request` per attempt and
    `runai_retry` per retry.

    Args:
        inner: the transport to retry.
        retries: extra attempts after the first.
        backoff_s: base of the exponential backoff.
        max_backoff_s: cap of one sleep.
        sleep: awaitable sleep (default `asyncio.sleep`; tests record instead).
        clock: wall clock in epoch seconds, for `Retry-After` dates (default `time.time`).
        jitter: maps a backoff cap to the actual delay (default uniform in ``[0, cap]``).
        logger: a structlog-style logger (default `structlog.get_logger(__name__)`).
    """

    def __init__(
        self,
        inner: httpx.AsyncBaseTransport,
        *,
        retries: int,
        backoff_s: float,
        max_backoff_s: float,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        clock: Callable[[], float] | None = None,
        jitter: Callable[[float], float] | None = None,
        logger: Any = None,
    ) -> None:
        self._inner = inner
        self._retries = retries
        self._backoff_s = backoff_s
        self._max_backoff_s = max_backoff_s
        self._sleep: Callable[[float], Awaitable[None]] = sleep or asyncio.sleep
        self._clock = clock or time.time
        self._jitter = jitter or _full_jitter
        self._logger = logger

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send `request`, retrying transient failures; return the final response."""
        attempt = 1
        while True:
            started = time.perf_counter()
            try:
                response = await self._inner.handle_async_request(request)
            except RETRYABLE_EXCEPTIONS as exc:
                self._log_request(request, attempt, started, error=type(exc).__name__)
                if attempt > self._retries:
                    raise
                delay, reason = self._backoff(attempt), type(exc).__name__
            else:
                status = response.status_code
                self._log_request(request, attempt, started, status=status)
                if status not in RETRYABLE_STATUSES or attempt > self._retries:
                    response.extensions[ATTEMPTS_EXTENSION] = attempt
                    return response
                after = retry_after_s(response, now=self._clock())
                delay = self._backoff(attempt) if after is None else min(after, self._max_backoff_s)
                reason = f"HTTP {status}"
                await response.aclose()
            self._log().debug(
                "runai_retry",
                method=request.method,
                path=request.url.path,
                attempt=attempt,
                delay_s=round(delay, 3),
                reason=reason,
            )
            await self._sleep(delay)
            attempt += 1

    async def aclose(self) -> None:
        """Close the wrapped transport."""
        await self._inner.aclose()

    def _backoff(self, attempt: int) -> float:
        cap = min(self._max_backoff_s, self._backoff_s * 2.0 ** (attempt - 1))
        return max(0.0, min(cap, self._jitter(cap)))

    def _log_request(
        self, request: httpx.Request, attempt: int, started: float, **outcome: Any
    ) -> None:
        self._log().debug(
            "runai_request",
            method=request.method,
            path=request.url.path,
            attempt=attempt,
            elapsed_ms=round((time.perf_counter() - started) * 1000),
            **outcome,
        )

    def _log(self) -> Any:
        if self._logger is None:
            self._logger = structlog.get_logger(__name__)
        return self._logger


def _full_jitter(cap: float) -> float:
    return random.uniform(0.0, cap)  # noqa: S311 - jitter, not cryptography


def retry_after_s(response: httpx.Response, *, now: float) -> float | None:
    """Seconds a `Retry-After` header asks us to wait (never negative); None if absent/bad."""
    value = response.headers.get("Retry-After")
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - now)
