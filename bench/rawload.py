"""The ack figure's load generator, in a process of its own, over raw sockets.

    python -m bench.rawload < requests.json

Reads `{"host": ..., "port": ..., "requests": ["<HTTP/1.1 request, base64>", ...]}`,
opens one connection per request (as a proxy's kept-alive connections are open before a
burst), then writes every request at once and times each from its first byte written to
its response's head read. Prints `{"acks": [seconds or null], "statuses": [code or null]}`.
No HTTP library: an httpx client measured four times the ack it was measuring (issue 25),
its own pool and parsing in the same event loop as the replies it waits for.
"""

from __future__ import annotations

import asyncio
import base64
import json
import sys
import time
from collections.abc import Awaitable

__all__ = ["main"]

_TIMEOUT_S = 60.0


Connection = tuple[asyncio.StreamReader, asyncio.StreamWriter]


async def _open(host: str, port: int) -> Connection | None:
    try:
        return await asyncio.open_connection(host, port)
    except OSError:
        return None


async def _reply(reader: asyncio.StreamReader, started: float) -> tuple[float | None, int | None]:
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), _TIMEOUT_S)
        elapsed = time.perf_counter() - started
        status = int(head.split(b" ", 2)[1])
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                await reader.readexactly(int(line.split(b":", 1)[1]))
    except (OSError, TimeoutError, asyncio.IncompleteReadError, ValueError, IndexError):
        return None, None
    return elapsed, status


async def _run(host: str, port: int, requests: list[bytes]) -> dict[str, list[object]]:
    """Open every connection, then write every request in one pass, then read the replies."""
    connections = await asyncio.gather(*(_open(host, port) for _ in requests))
    waiting: list[Awaitable[tuple[float | None, int | None]]] = []
    for connection, request in zip(connections, requests, strict=True):
        if connection is None:
            waiting.append(asyncio.sleep(0, result=(None, None)))
            continue
        started = time.perf_counter()
        connection[1].write(request)
        waiting.append(_reply(connection[0], started))
    results = await asyncio.gather(*waiting)
    for connection in connections:
        if connection is not None:
            connection[1].close()
    return {"acks": [a for a, _ in results], "statuses": [s for _, s in results]}


def main() -> int:
    """Read the requests on stdin, send them, print the timings."""
    spec = json.load(sys.stdin)
    requests = [base64.b64decode(r) for r in spec["requests"]]
    print(json.dumps(asyncio.run(_run(spec["host"], int(spec["port"]), requests))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
