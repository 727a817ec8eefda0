"""uvicorn's httptools and h11 protocols, each held to `bot.app.http_limits`' deadlines and cap.

The deadlines live in one place, `_Deadlines`: it arms a timer when a request's head or body
starts to be awaited and keeps it while bytes arrive; each protocol says only where its
request stands (`_phase`) and calls `_admit` / `_follow` / `_disarm` from uvicorn's hooks.

httptools (llhttp) has no limit on a request's head: the parser accumulates a header line it
has not finished, however long. `LimitedHttpToolsProtocol` therefore counts the bytes fed
while no body is being read and feeds at most `MAX_HEAD_BYTES` of a head: a head that has not
ended by then is answered 400 and the connection closed, as uvicorn's h11 protocol does with
`h11_max_incomplete_event_size`. (Stricter than h11, which accepts a longer head if it arrives
whole in one read; looser only for a head that begins in the read that ends a request's body,
which may exceed the bound by that read's size. Either way, no head is buffered without end.)
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

from bot.ops.metrics import HTTP_CONNECTIONS_CUT

if TYPE_CHECKING:
    from bot.app.http_limits import HttpLimits

__all__ = ["MAX_HEAD_BYTES", "LimitedH11Protocol", "LimitedHttpToolsProtocol", "Phase"]

#: A request line and headers larger than this are a 400 (h11's default, made explicit).
MAX_HEAD_BYTES = 16 * 1024

Phase = Literal["header", "body"]


class _Deadlines:
    """A deadline for the part of the request being awaited, and the connection cap.

    Mixed into a uvicorn protocol, which has `transport`, `loop` and `connections`.
    """

    limits: ClassVar[HttpLimits]  # set by `HttpLimits.uvicorn_options` on a subclass
    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop
    _deadline: asyncio.TimerHandle | None = None
    _awaiting: Phase | None = None

    def _phase(self) -> Phase | None:
        """What of the request the connection awaits now; None when nothing (it is in)."""
        raise NotImplementedError

    def _admit(self, connections: set[Any]) -> None:
        """Arm the head's deadline, unless the server holds as many connections as it may."""
        if len(connections) > self.limits.max_connections:
            connections.discard(self)  # at once: it must not count against the others
            HTTP_CONNECTIONS_CUT.labels(reason="limit").inc()
            self.transport.close()
            return
        self._await("header")

    def _follow(self) -> None:
        """Re-read where the request stands: a new phase gets its deadline, the same keeps it."""
        phase = None if self.transport.is_closing() else self._phase()
        if phase is None:
            self._disarm()
        elif phase != self._awaiting:
            self._await(phase)

    def _await(self, phase: Phase) -> None:
        self._disarm()
        seconds = self.limits.header_timeout_s if phase == "header" else self.limits.body_timeout_s
        self._awaiting = phase
        self._deadline = self.loop.call_later(seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline, self._awaiting = None, None

    def on_response_complete(self) -> None:
        """After a response, the next request on the connection has its own deadline."""
        super().on_response_complete()  # type: ignore[misc]  # the protocol's, after this mixin
        self._follow()

    def connection_lost(self, exc: Exception | None) -> None:
        """Drop the deadline with the connection."""
        self._disarm()
        super().connection_lost(exc)  # type: ignore[misc]  # the protocol's, after this mixin

    def _too_slow(self) -> None:
        phase, self._deadline, self._awaiting = self._awaiting, None, None
        if phase is not None and not self.transport.is_closing():
            HTTP_CONNECTIONS_CUT.labels(reason=phase).inc()
            self.transport.close()


class LimitedHttpToolsProtocol(_Deadlines, HttpToolsProtocol):
    """uvicorn's httptools protocol, with the deadlines, the cap and a bound on a head's size."""

    _in_body = False  # between a head's end and its message's end
    _head_bytes = 0  # fed since the current head began (or the last one ended)
    _heads = 0  # heads completed on the connection

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Take the connection, unless the server holds as many as it may: then close it."""
        super().connection_made(transport)
        self._admit(self.connections)

    def data_received(self, data: bytes) -> None:
        """Feed the bytes as uvicorn does, no more than `MAX_HEAD_BYTES` of a head."""
        room = MAX_HEAD_BYTES - self._head_bytes
        if self._in_body or len(data) <= room:
            if not self._in_body:
                self._head_bytes += len(data)
            super().data_received(data)
            self._follow()
            return
        heads = self._heads
        super().data_received(data[:room])
        if self.transport.is_closing():
            self._disarm()
        elif self._heads == heads:  # the head goes on past the bound
            self._disarm()
            self.logger.warning("Request head larger than %d bytes.", MAX_HEAD_BYTES)
            self.send_400_response("Request head too large.")
        else:
            self.data_received(data[room:])

    def on_headers_complete(self) -> None:
        """The head is in: its body (if any) is next."""
        self._heads, self._head_bytes, self._in_body = self._heads + 1, 0, True
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        """The body is in: whatever comes next begins a head."""
        self._in_body = False
        super().on_message_complete()

    def _phase(self) -> Phase | None:
        if self._in_body:
            return "body"
        cycle: RequestResponseCycle | None = self.cycle  # None before the first request
        if cycle is None or cycle.response_complete:
            return "header"  # the first request, or the next after a response
        return None  # the request is in and its response is being made


class LimitedH11Protocol(_Deadlines, H11Protocol):
    """uvicorn's h11 protocol, with the deadlines and the cap (h11 bounds a head's size)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Take the connection, unless the server holds as many as it may: then close it."""
        super().connection_made(transport)
        self._admit(self.connections)

    def data_received(self, data: bytes) -> None:
        """Handle the bytes as uvicorn does, then follow where the request now stands."""
        super().data_received(data)
        self._follow()

    def _phase(self) -> Phase | None:
        state = self.conn.their_state
        if state is h11.IDLE:
            return "header"
        if state is h11.SEND_BODY:
            return "body"
        return None  # the request is in (or the connection is ending)
