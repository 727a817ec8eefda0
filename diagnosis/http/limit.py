"""A bound on concurrent calls to an upstream: the `CallLimiter` seam and its transport.

The Run:ai client sends every request (the token POST included) through `LimitedTransport`,
which holds one of the limiter's slots while the request is on the wire, response body
included. Below the retries, so a backoff sleep holds no slot. The default, `NO_LIMIT`,
bounds nothing; the bot injects a limiter shared by every replica (a Redis semaphore).
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import httpx

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

__all__ = ["NO_LIMIT", "CallLimiter", "LimitedTransport"]


class CallLimiter(Protocol):
    """Hands out slots: at most N callers hold one at a time (across every process sharing it)."""

    def slot(self) -> AbstractAsyncContextManager[None]:
        """Wait for a free slot and hold it for the `async with` block."""
        ...


class _NoLimit:
    """A limiter whose slots are always free."""

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        yield


NO_LIMIT: CallLimiter = _NoLimit()


@runtime_checkable
class _Closable(Protocol):
    """A limiter holding something to give back when its client closes (shared slots)."""

    async def aclose(self) -> None:
        """Give back what is held; the limiter is not used afterwards."""


class LimitedTransport(httpx.AsyncBaseTransport):
    """Sends each request while holding one of `limiter`'s slots (the body is read inside)."""

    def __init__(self, inner: httpx.AsyncBaseTransport, limiter: CallLimiter) -> None:
        self._inner = inner
        self._limiter = limiter

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Forward `request` within a slot; the response comes back fully read."""
        async with self._limiter.slot():
            response = await self._inner.handle_async_request(request)
            try:
                await response.aread()
            finally:
                await response.aclose()
        return response

    async def aclose(self) -> None:
        """Close the wrapped transport, then let the limiter give back what it holds."""
        await self._inner.aclose()
        if isinstance(self._limiter, _Closable):
            await self._limiter.aclose()
