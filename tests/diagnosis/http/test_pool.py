"""LeanPool decides what httpcore's pool decides; LeanBackend's streams notice a closed peer."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpcore
import httpx
import pytest

from diagnosis.http.pool import MIRRORED_HTTPCORE, LeanBackend, LeanPool, is_socket_readable
from diagnosis.http.transport import network_transport


class _Server:
    """An HTTP/1.1 server on loopback: `/slow` answers after 20 ms; `/drop` then hangs up."""

    def __init__(self) -> None:
        self.accepted = 0
        self.url = ""

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        try:
            while head := await reader.readuntil(b"\r\n\r\n"):
                path = head.split(b" ", 2)[1]
                if path == b"/slow":
                    await asyncio.sleep(0.02)
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                await writer.drain()
                if path == b"/drop":
                    break  # closed without `Connection: close`: the client must notice
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[_Server]:
        server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        try:
            yield self
        finally:
            server.close()


def _states(pool: httpcore.AsyncConnectionPool) -> list[tuple[bool, bool, bool]]:
    """(idle, available, closed) of each connection, in pool order."""
    return [(c.is_idle(), c.is_available(), c.is_closed()) for c in pool.connections]


_Step = tuple[list[int], int, list[tuple[bool, bool, bool]]]


async def _script(pool: httpcore.AsyncConnectionPool, url: str) -> list[_Step]:
    """Bursts beyond the pool's limits and calm spells; the pool's state after each step."""
    seen: list[_Step] = []
    async with httpx.AsyncClient(transport=httpx.AsyncHTTPTransport()) as client:
        client._transport._pool = pool  # type: ignore[attr-defined]
        for burst in (12, 1, 5, 12, 2):
            answers = await asyncio.gather(*(client.get(f"{url}/slow") for _ in range(burst)))
            seen.append(([a.status_code for a in answers], len(pool.connections), _states(pool)))
    return seen


def _pool(kind: type[httpcore.AsyncConnectionPool]) -> httpcore.AsyncConnectionPool:
    return kind(max_connections=6, max_keepalive_connections=3, network_backend=LeanBackend())


async def test_lean_pool_keeps_and_closes_the_connections_httpcore_would() -> None:
    """Queued beyond 6 connections, surplus idle ones beyond 3 closed: step for step the same."""
    async with _Server().running() as server:
        stock = await _script(_pool(httpcore.AsyncConnectionPool), server.url)
        lean = await _script(_pool(LeanPool), server.url)
    assert lean == stock
    assert all(set(codes) == {200} for codes, _, _ in lean)
    assert max(size for _, size, _ in lean) <= 6


async def test_a_connection_the_server_closed_is_not_reused() -> None:
    """The server hangs up after answering: the next request opens a new connection."""
    async with (
        _Server().running() as server,
        httpx.AsyncClient(transport=network_transport()) as client,
    ):
        first = await client.get(f"{server.url}/drop")
        await asyncio.sleep(0.05)  # the peer's close reaches this side
        second = await client.get(f"{server.url}/slow")
    assert (first.status_code, second.status_code, server.accepted) == (200, 200, 2)


async def test_network_transport_reuses_a_kept_alive_connection() -> None:
    """Sequential requests share one connection (the socket looked up once still answers)."""
    async with (
        _Server().running() as server,
        httpx.AsyncClient(transport=network_transport()) as client,
    ):
        codes = [(await client.get(f"{server.url}/slow")).status_code for _ in range(3)]
    assert (codes, server.accepted) == ([200, 200, 200], 1)


@pytest.mark.parametrize(("peer_writes", "readable"), [(False, False), (True, True)])
def test_is_socket_readable(peer_writes: bool, readable: bool) -> None:  # noqa: FBT001
    """Readable once the peer wrote (or hung up); a missing socket counts as readable."""
    left, right = socket.socketpair()
    with left, right:
        if peer_writes:
            right.sendall(b"x")
        assert is_socket_readable(left) is readable
    assert is_socket_readable(None) is True


def test_network_transport_uses_the_lean_pool_of_the_httpcore_it_mirrors() -> None:
    """An httpcore upgrade fails here: check `LeanPool` against its pool, then move the pin."""
    assert httpcore.__version__ == MIRRORED_HTTPCORE
    assert isinstance(network_transport()._pool, LeanPool)
