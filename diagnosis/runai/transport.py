"""The HTTP layer under the Run:ai client: read-only guard, retries, mapping onto errors."""

from __future__ import annotations

import asyncio
import random
import time
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, TypeVar

import httpx
import structlog
from pydantic import BaseModel, ValidationError

from diagnosis.errors import (
    AuthError,
    DiagnosisError,
    NotFound,
    UpstreamError,
    UpstreamTimeout,
    UpstreamUnavailable,
)

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Collection, Mapping

__all__ = [
    "RETRYABLE_EXCEPTIONS",
    "RETRYABLE_STATUSES",
    "TOKEN_OPERATION",
    "TOKEN_PATH",
    "ReadOnlyTransport",
    "ReadOnlyViolation",
    "RetryTransport",
    "error_for_exception",
    "error_for_response",
    "error_message",
    "get_json",
    "json_member",
    "parse_model",
    "parse_models",
    "retry_after_s",
    "safe_url",
    "shape_error",
]

TOKEN_PATH = "/api/v1/token"  # noqa: S105 - a URL path, not a password
"""The one path the client may POST to (the client-credentials token grant)."""

TOKEN_OPERATION = "token"  # noqa: S105 - an operation name, not a password
"""`UpstreamError.operation` of failures while obtaining a token."""

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

_M = TypeVar("_M", bound=BaseModel)
_MESSAGE_LIMIT = 200
_ATTEMPTS_EXTENSION = "runai_attempts"


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
        token_path: str | None = TOKEN_PATH,
        name: str = "the Run:ai client",
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
                    response.extensions[_ATTEMPTS_EXTENSION] = attempt
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


def safe_url(url: httpx.URL) -> str:
    """The URL as text without any userinfo (the query carries no secrets here)."""
    return str(url.copy_with(username=None, password=None))


def error_message(response: httpx.Response) -> str:
    """``": <message>"`` from a Run:ai `{code, message}` error body (truncated), else ``""``."""
    try:
        body = response.json()
    except ValueError:
        return ""
    message = body.get("message") if isinstance(body, dict) else None
    if not isinstance(message, str) or not message.strip():
        return ""
    message = " ".join(message.split())
    if len(message) > _MESSAGE_LIMIT:
        message = message[: _MESSAGE_LIMIT - 1] + "…"
    return f": {message}"


def error_for_response(response: httpx.Response, *, operation: str) -> UpstreamError:
    """The `UpstreamError` for a final, unexpected response status."""
    status = response.status_code
    error: type[UpstreamError] = UpstreamUnavailable
    if status in {401, 403}:
        error, text = AuthError, "Run:ai refused the credentials"
    elif status == httpx.codes.NOT_FOUND:
        error, text = NotFound, "Run:ai has no such resource"
    elif status in RETRYABLE_STATUSES:
        attempts = response.extensions.get(_ATTEMPTS_EXTENSION, 1)
        text = "Run:ai kept failing" + (f" after {attempts} attempts" if attempts > 1 else "")
    elif httpx.codes.is_client_error(status):
        error, text = UpstreamError, "Run:ai rejected the request"
    else:
        text = "unexpected answer from Run:ai"
    return error(
        text + error_message(response),
        operation=operation,
        url=safe_url(response.request.url),
        status=status,
    )


def error_for_exception(exc: httpx.HTTPError, *, operation: str) -> UpstreamError:
    """The `UpstreamError` for an httpx exception; a token request reports operation `token`."""
    kind = type(exc).__name__
    try:
        url = exc.request.url
    except RuntimeError:  # raised before a request existed
        return UpstreamUnavailable(f"request failed ({kind})", operation=operation, url="")
    if url.path.endswith(TOKEN_PATH):
        operation = TOKEN_OPERATION
    if isinstance(exc, httpx.TimeoutException):
        return UpstreamTimeout(
            f"no answer in time ({kind})", operation=operation, url=safe_url(url)
        )
    return UpstreamUnavailable(
        f"could not reach Run:ai ({kind})", operation=operation, url=safe_url(url)
    )


async def get_json(
    http: httpx.AsyncClient,
    path: str,
    *,
    operation: str,
    params: Mapping[str, str | int] | None = None,
    ok: Collection[int] = (200,),
) -> tuple[Any, str]:
    """GET `path`; the decoded JSON body and the URL, or the matching `UpstreamError`."""
    try:
        response = await http.get(path, params=params)
    except httpx.HTTPError as exc:
        raise error_for_exception(exc, operation=operation) from exc
    if response.status_code not in ok:
        raise error_for_response(response, operation=operation)
    url = safe_url(response.request.url)
    try:
        return response.json(), url
    except ValueError as exc:
        raise shape_error(
            "the body is not JSON", operation=operation, url=url, status=response.status_code
        ) from exc


def json_member(body: Any, key: str, *, operation: str, url: str) -> Any:
    """`body[key]` of a JSON object; `UpstreamUnavailable` when there is no such member."""
    if not isinstance(body, dict) or key not in body:
        raise shape_error(f"no `{key}` member", operation=operation, url=url)
    return body[key]


def parse_model(model: type[_M], raw: Any, *, operation: str, url: str) -> _M:
    """`raw` validated as `model`; `UpstreamUnavailable` when it does not fit."""
    return parse_models(model, [raw], operation=operation, url=url)[0]


def parse_models(model: type[_M], raw: Any, *, operation: str, url: str) -> list[_M]:
    """A JSON array validated item by item as `model`; `UpstreamUnavailable` if it does not fit."""
    if not isinstance(raw, list):
        raise shape_error(
            f"expected a list, got {type(raw).__name__}", operation=operation, url=url
        )
    try:
        return [model.model_validate(item) for item in raw]
    except ValidationError as exc:
        first = exc.errors(include_input=False, include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "body"
        detail = f"{where}: {first['msg']}"
        raise shape_error(detail, operation=operation, url=url) from exc


def shape_error(
    detail: str, *, operation: str, url: str, status: int | None = None
) -> UpstreamUnavailable:
    """The error for a body that is not the documented shape (values are never quoted)."""
    message = f"the response is not the documented shape ({detail})"
    return UpstreamUnavailable(message, operation=operation, url=url, status=status)
