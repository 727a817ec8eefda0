"""The benchmark's load generator, in a process of its own, over raw sockets.

    python -m bench.rawload < requests.json

Reads `{"requests": [{"host": ..., "port": ..., "data": "<HTTP/1.1 request, base64>"}]}`,
opens one connection per request (as a proxy's kept-alive connections are open before a
burst), then writes every request at once and times each from its first byte written to
its response's head read. Prints `{"results": [{"sent", "ack", "status", "body"}], "cpu"}`:
when each request was sent (`time.monotonic()`, the clock every process on the machine
shares), its acknowledgement's seconds, status and body (null when none came), and the CPU
seconds this process spent. No HTTP library: an httpx client measured four times the ack it
was measuring (issue 25), its own pool and parsing in the same event loop as the replies it
waits for, and it spent the cores the bot was being measured on.
"""

from __future__ import annotations

import asyncio
import base64
import json
import sys
import time
from collections.abc import Awaitable
from typing import Any

__all__ = ["Result", "main", "run"]

_TIMEOUT_S = 60.0
_MAX_BODY = 64 * 1024

Connection = tuple[asyncio.StreamReader, asyncio.StreamWriter]
Result = dict[str, Any]
"""`sent` (monotonic seconds), `ack` (seconds or None), `status` and `body` (or None)."""


async def _open(host: str, port: int) -> Connection | None:
    try:
        return await asyncio.open_connection(host, port)
    except OSError:
        return None


async def _reply(reader: asyncio.StreamReader, sent: float) -> Result:
    result: Result = {"sent": sent, "ack": None, "status": None, "body": None}
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), _TIMEOUT_S)
        acked = time.monotonic() - sent
        status = int(head.split(b" ", 2)[1])
        body = b""
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
                body = await reader.readexactly(length) if length <= _MAX_BODY else b""
    except (OSError, TimeoutError, asyncio.IncompleteReadError, ValueError, IndexError):
        return result
    return {**result, "ack": acked, "status": status, "body": body.decode("utf-8", "replace")}


async def run(requests: list[tuple[str, int, bytes]]) -> list[Result]:
    """Open every connection, then write every request in one pass, then read the replies."""
    connections = await asyncio.gather(*(_open(host, port) for host, port, _ in requests))
    waiting: list[Awaitable[Result]] = []
    for connection, (_, _, data) in zip(connections, requests, strict=True):
        sent = time.monotonic()
        if connection is None:
            waiting.append(_reply(_closed(), sent))
            continue
        connection[1].write(data)
        waiting.append(_reply(connection[0], sent))
    results = await asyncio.gather(*waiting)
    for connection in connections:
        if connection is not None:
            connection[1].close()
    return list(results)


def _closed() -> asyncio.StreamReader:
    reader = asyncio.StreamReader()
    reader.feed_eof()
    return reader


def main() -> int:
    """Read the requests on stdin, send them, print what came back and this process's CPU."""
    spec = json.load(sys.stdin)
    requests = [
        (str(r["host"]), int(r["port"]), base64.b64decode(r["data"])) for r in spec["requests"]
    ]
    results = asyncio.run(run(requests))
    print(json.dumps({"results": results, "cpu": time.process_time()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
