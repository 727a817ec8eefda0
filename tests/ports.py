"""Loopback ports for tests: a free one, and a raw TCP server whose handler a test writes."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress

__all__ = ["Handler", "free_port", "serving"]

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


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
