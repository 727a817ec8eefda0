"""`runai-why serve`'s limits on slow and numerous clients: uvicorn's settings, and what they lack.

uvicorn bounds requests in flight (`limit_concurrency`: past it, 503), idle kept-alive
connections (`timeout_keep_alive`) and a request's head (`h11_max_incomplete_event_size`:
past it, 400). It has no deadline for a request still arriving: its keep-alive timer is armed
only after a response and cancelled by every byte received, and `limit_concurrency` counts a
connection's request only once its head is complete. A client dripping its headers a byte at
a time therefore held a connection, and a file, for as long as it liked.

`LimitedH11Protocol` is uvicorn's own h11 protocol with two deadlines and a cap, the smallest
change that closes the gap: a request's head must be complete within `header_timeout_s` of
the connection opening (or of the previous response, on a kept-alive connection), its body
within `body_timeout_s` of its head; bytes arriving do not extend either. A connection
accepted while `max_connections` are open is closed at once. Whatever is cut off is counted
in `runai_why_http_connections_cut_total`; a body cut off mid-read reaches the app as a client
that went away (`bot.web.body`: a logged 400).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from bot.config import Settings
from bot.ops.metrics import HTTP_CONNECTIONS_CUT

__all__ = ["HttpLimits", "LimitedH11Protocol"]

#: uvicorn's own default: an idle kept-alive connection is closed after this many seconds.
KEEP_ALIVE_S = 5
#: h11's default, made explicit: a request line and headers larger than this are a 400.
MAX_HEAD_BYTES = 16 * 1024

Phase = Literal["header", "body"]


@dataclass(frozen=True)
class HttpLimits:
    """How long a request may take to arrive, and how many connections are held at once."""

    header_timeout_s: float = 10.0
    body_timeout_s: float = 20.0
    max_connections: int = 1024

    @classmethod
    def from_settings(cls, settings: Settings) -> HttpLimits:
        """`HTTP_HEADER_TIMEOUT_S`, `HTTP_BODY_TIMEOUT_S` and `HTTP_MAX_CONNECTIONS`."""
        return cls(
            settings.http.header_timeout_s,
            settings.http.body_timeout_s,
            settings.http.max_connections,
        )

    def uvicorn_options(self) -> dict[str, Any]:
        """Keyword arguments for `uvicorn.run` / `uvicorn.Config` that apply these limits."""
        return {
            "http": type("Limited", (LimitedH11Protocol,), {"limits": self}),
            # uvicorn answers 503 once connections *or* requests in flight reach this; the
            # protocol already holds connections to `max_connections`, so one more lets each
            # of them be served and still bounds requests whose client has gone.
            "limit_concurrency": self.max_connections + 1,
            "timeout_keep_alive": KEEP_ALIVE_S,
            "h11_max_incomplete_event_size": MAX_HEAD_BYTES,
            "ws": "none",  # no route is a WebSocket: an Upgrade is answered as plain HTTP
        }


class LimitedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, with a deadline for each request to arrive and a connection cap."""

    limits: ClassVar[HttpLimits] = HttpLimits()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._awaiting: Phase | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Take the connection, unless the server holds as many as it may: then close it."""
        super().connection_made(transport)
        if len(self.connections) > self.limits.max_connections:
            self.connections.discard(self)  # at once: it must not count against the others
            HTTP_CONNECTIONS_CUT.labels(reason="limit").inc()
            transport.close()
            return
        self._await("header")

    def data_received(self, data: bytes) -> None:
        """Handle the bytes as uvicorn does, then follow where the request now stands."""
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        """After a response, the next request on the connection has its own deadline."""
        super().on_response_complete()
        self._follow()

    def connection_lost(self, exc: Exception | None) -> None:
        """Drop the deadline with the connection."""
        self._disarm()
        super().connection_lost(exc)

    def _follow(self) -> None:
        state = self.conn.their_state
        if self.transport.is_closing():
            self._disarm()
        elif state is h11.IDLE:
            self._await("header")
        elif state is h11.SEND_BODY:
            self._await("body")
        else:  # the request is in (or the connection is ending): nothing more to wait for
            self._disarm()

    def _await(self, phase: Phase) -> None:
        if self._awaiting == phase:
            return  # the deadline set when this phase began still stands
        self._disarm()
        seconds = self.limits.header_timeout_s if phase == "header" else self.limits.body_timeout_s
        self._awaiting = phase
        self._deadline = self.loop.call_later(seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline, self._awaiting = None, None

    def _too_slow(self) -> None:
        phase, self._deadline, self._awaiting = self._awaiting, None, None
        if phase is not None and not self.transport.is_closing():
            HTTP_CONNECTIONS_CUT.labels(reason=phase).inc()
            self.transport.close()
