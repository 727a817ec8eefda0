"""httpcore's connection pool with the same rules in linear time, over sockets looked up once.

The largest single CPU cost of a diagnosis was httpcore's pool bookkeeping, run twice per
request: `AsyncConnectionPool._assign_requests_to_connections` counts the pool's connections
by building a list of them once per idle connection (quadratic in the pool's size), and asks
every connection whether it expired, which for each idle one looks its socket up through
anyio's `extra_attributes` (a dict of getters and a `getpeername` system call every time).

`LeanPool` decides exactly what httpcore 1.0 decides, in the same order, with the count taken
once per connection; `LeanBackend` is httpcore's anyio backend whose streams remember their
socket. Nothing else changes: HTTP/1.1, TLS, limits, keep-alive and errors are httpcore's.
The quadratic pass is a known upstream issue (encode/httpcore pull request 1035, open); drop
`LeanPool` once a release fixes it, which `MIRRORED_HTTPCORE`'s check makes someone look at.
"""

# ruff: noqa: ASYNC109 - the `timeout` parameters are httpcore's stream and backend interface.
from __future__ import annotations

import select
import socket
import ssl
import typing

import httpcore
from httpcore._async.interfaces import AsyncConnectionInterface

__all__ = ["MIRRORED_HTTPCORE", "LeanBackend", "LeanPool", "is_socket_readable"]

#: The httpcore release whose pool `LeanPool` mirrors; with any other, httpx's own is kept.
MIRRORED_HTTPCORE = "1.0.9"


def is_socket_readable(sock: socket.socket | None) -> bool:
    """Whether a read would return at once (data, or the end a closed peer leaves); as httpcore.

    A socket that is gone (or has no descriptor) counts as readable: its next read is `b""`.
    """
    fd = None if sock is None else sock.fileno()
    if fd is None or fd < 0:
        return True
    poll = select.poll()
    poll.register(fd, select.POLLIN)
    return bool(poll.poll(0))


class _Stream(httpcore.AsyncNetworkStream):
    """A network stream that looks its socket up once, not on every expiry check."""

    def __init__(self, inner: httpcore.AsyncNetworkStream) -> None:
        self._inner = inner
        self._socket: socket.socket | None = inner.get_extra_info("socket")

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        """Read up to `max_bytes` (the inner stream's read)."""
        return await self._inner.read(max_bytes, timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        """Write `buffer` (the inner stream's write)."""
        await self._inner.write(buffer, timeout)

    async def aclose(self) -> None:
        """Close the inner stream."""
        await self._inner.aclose()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """The TLS stream over this one (same socket, looked up once again)."""
        return _Stream(await self._inner.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> typing.Any:
        """`socket` and `is_readable` from the socket remembered; anything else as before."""
        if info == "is_readable":
            return is_socket_readable(self._socket)
        if info == "socket":
            return self._socket
        return self._inner.get_extra_info(info)


class LeanBackend(httpcore.AsyncNetworkBackend):
    """httpcore's anyio backend (what it picks under asyncio), its streams remembering sockets."""

    def __init__(self) -> None:
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Connect as the anyio backend does."""
        stream = await self._inner.connect_tcp(host, port, timeout, local_address, socket_options)
        return _Stream(stream)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Connect as the anyio backend does."""
        return _Stream(await self._inner.connect_unix_socket(path, timeout, socket_options))

    async def sleep(self, seconds: float) -> None:
        """Sleep as the anyio backend does."""
        await self._inner.sleep(seconds)


class LeanPool(httpcore.AsyncConnectionPool):
    """`httpcore.AsyncConnectionPool` whose request assignment runs in linear time."""

    def _assign_requests_to_connections(self) -> list[AsyncConnectionInterface]:
        """The assignment of httpcore 1.0.9, step for step; the pool's size is counted, not listed.

        httpcore writes the surplus-idle test as `len([c.is_idle() for c in connections])`,
        which is the number of connections, built once per idle connection.
        """
        closing: list[AsyncConnectionInterface] = []
        # Closed, expired and surplus idle connections leave the pool first.
        for connection in list(self._connections):
            if connection.is_closed():
                self._connections.remove(connection)
            elif connection.has_expired() or (
                connection.is_idle() and len(self._connections) > self._max_keepalive_connections
            ):
                self._connections.remove(connection)
                closing.append(connection)
        # Then queued requests get a connection: a free one, a new one, or an idle one's place.
        for pool_request in [r for r in self._requests if r.is_queued()]:
            origin = pool_request.request.url.origin
            available = [
                c for c in self._connections if c.can_handle_request(origin) and c.is_available()
            ]
            idle = [c for c in self._connections if c.is_idle()]
            if available:
                pool_request.assign_to_connection(available[0])
            elif len(self._connections) < self._max_connections:
                connection = self.create_connection(origin)
                self._connections.append(connection)
                pool_request.assign_to_connection(connection)
            elif idle:
                self._connections.remove(idle[0])
                closing.append(idle[0])
                connection = self.create_connection(origin)
                self._connections.append(connection)
                pool_request.assign_to_connection(connection)
        return closing
