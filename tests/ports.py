"""Loopback ports for tests: a free one, and a raw TCP server whose handler a test writes."""

from __future__ import annotations

import asyncio
import secrets
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from pathlib import Path

__all__ = ["Handler", "free_port", "serving"]

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


#: Where `free_port` looks: below the kernel's ephemeral range, so no outgoing connection
#: (a Redis client, an httpx request) is handed the port between the check and the bind.
_LOWEST = 20_000


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now, for another process to bind.

    A port the kernel picks (bind to 0) comes from the ephemeral range, which every outgoing
    connection also draws from: under load one of them can take it in the seconds a child
    process needs to start, and the child then fails to bind. So the port is drawn at random
    below that range and checked; only if none is free there does the kernel choose.
    """
    span = _ephemeral_start() - _LOWEST
    drawn = [_LOWEST + secrets.randbelow(span) for _ in range(50)] if span > 0 else []
    for candidate in (*drawn, 0):  # 0: the kernel chooses
        with socket.socket() as sock, suppress(OSError):
            sock.bind(("127.0.0.1", candidate))
            port: int = sock.getsockname()[1]
            return port
    raise OSError("no free TCP port on 127.0.0.1")


def _ephemeral_start() -> int:
    """Where the kernel's ephemeral port range starts (Linux's default where it cannot be read)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


@asynccontextmanager
async def serving(handler: Handler) -> AsyncIterator[int]:
    """Serve `handler` on 127.0.0.1, yielding the port.

    On the way out every connection it took is closed, and its handler stopped and waited
    for, so nothing is left for the garbage collector to warn about.
    """
    handling: set[asyncio.Task[None]] = set()
    writers: list[asyncio.StreamWriter] = []

    async def tracked(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        handling.add(task)
        writers.append(writer)
        await handler(reader, writer)

    server = await asyncio.start_server(tracked, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        for task in handling:
            task.cancel()
        await asyncio.gather(*handling, return_exceptions=True)
        for writer in writers:
            writer.close()
            with suppress(ConnectionError):
                await writer.wait_closed()
        await server.wait_closed()
