"""`runai-why serve`'s limits on slow and numerous clients: uvicorn's settings, and what they lack.

uvicorn bounds requests in flight (`limit_concurrency`: past it, 503), idle kept-alive
connections (`timeout_keep_alive`) and, with h11 only, a request's head
(`h11_max_incomplete_event_size`: past it, 400). It has no deadline for a request still
arriving: its keep-alive timer is armed only after a response and cancelled by every byte
received, and `limit_concurrency` counts a connection's request only once its head is
complete. A client dripping its headers a byte at a time therefore held a connection, and a
file, for as long as it liked.

`bot.app.http_protocols` holds uvicorn's own protocols to two deadlines and a cap, the
smallest change that closes the gap: a request's head must be complete within
`header_timeout_s` of the connection opening (or of the previous response, on a kept-alive
connection), its body within `body_timeout_s` of its head; bytes arriving do not extend
either. A connection accepted while `max_connections` are open is closed at once. Whatever
is cut off is counted in `runai_why_http_connections_cut_total`; a body cut off mid-read
reaches the app as a client that went away (`bot.web.body`: a logged 400). A head larger than
`MAX_HEAD_BYTES` is a 400 with either protocol.

`serve` parses with httptools (`LimitedHttpToolsProtocol`): one web process measured less
CPU per acknowledgement with it than with h11 (README.md, "Production"); h11
(`LimitedH11Protocol`, pure Python) stays selectable with `uvicorn_options(http="h11")`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from bot.app.http_protocols import MAX_HEAD_BYTES, LimitedH11Protocol, LimitedHttpToolsProtocol
from bot.config import Settings

__all__ = ["HttpLimits", "Parser"]

#: uvicorn's own default: an idle kept-alive connection is closed after this many seconds.
KEEP_ALIVE_S = 5
#: Which of uvicorn's HTTP/1.1 protocols parses requests.
Parser = Literal["httptools", "h11"]
_PROTOCOLS = {"httptools": LimitedHttpToolsProtocol, "h11": LimitedH11Protocol}


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

    def uvicorn_options(self, http: Parser = "httptools") -> dict[str, Any]:
        """Keyword arguments for `uvicorn.run` / `uvicorn.Config` that apply these limits."""
        protocol = _PROTOCOLS[http]
        return {
            "http": type(protocol.__name__, (protocol,), {"limits": self}),
            # uvicorn answers 503 once connections *or* requests in flight reach this; the
            # protocol already holds connections to `max_connections`, so one more lets each
            # of them be served and still bounds requests whose client has gone.
            "limit_concurrency": self.max_connections + 1,
            "timeout_keep_alive": KEEP_ALIVE_S,
            "h11_max_incomplete_event_size": MAX_HEAD_BYTES,  # httptools: the protocol's own
            "ws": "none",  # no route is a WebSocket: an Upgrade is answered as plain HTTP
        }
