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

Each connection is a bare `asyncio.Protocol` that reads its reply as it arrives: no task, no
stream and no timer per request. A burst of 200 against a server in another process cost this
process a median of 35 ms of CPU so (connecting, sending and reading; 26 ms at best), against
41 ms (37 ms) with a task reading a stream per connection: CPU the measured cores lose less of.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import sys
import time
from typing import Any

__all__ = ["Result", "main", "run"]

_TIMEOUT_S = 60.0
_MAX_BODY = 64 * 1024

Result = dict[str, Any]
"""`sent` (monotonic seconds), `ack` (seconds or None), `status` and `body` (or None)."""


class _Exchange(asyncio.Protocol):
    """One request on its own connection: sends it on `send`, then reads the one reply."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.sent = 0.0
        self.result: asyncio.Future[Result] = asyncio.get_running_loop().create_future()
        self._transport: asyncio.Transport | None = None
        self._received = bytearray()
        self._acked: float | None = None
        self._status: int | None = None
        self._body_at = 0
        self._length = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)  # noqa: S101 - a TCP connection's
        self._transport = transport

    def send(self) -> None:
        """Write the request; the clock starts now."""
        self.sent = time.monotonic()
        if self._transport is None or self._transport.is_closing():
            self.give_up()
            return
        self._transport.write(self.data)

    def data_received(self, data: bytes) -> None:
        self._received += data
        if self._acked is None:
            end = self._received.find(b"\r\n\r\n")
            if end < 0:
                return
            self._acked = time.monotonic() - self.sent
            if not self._read_head(bytes(self._received[:end])):
                self.give_up()
                return
            self._body_at = end + 4
        if self._length > _MAX_BODY:
            self._finish(b"")
        elif len(self._received) - self._body_at >= self._length:
            self._finish(bytes(self._received[self._body_at : self._body_at + self._length]))

    def _read_head(self, head: bytes) -> bool:
        """Take the status and `Content-Length`; False for a head that is not HTTP."""
        try:
            self._status = int(head.split(b" ", 2)[1])
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    self._length = int(line.split(b":", 1)[1])
        except (ValueError, IndexError):
            return False
        return True

    def connection_lost(self, exc: Exception | None) -> None:  # noqa: ARG002 - either way
        self.give_up()  # a reply cut short is no reply

    def give_up(self) -> None:
        """No reply (one already read is kept); closes the connection."""
        self._finish(None)

    def _finish(self, body: bytes | None) -> None:
        if self.result.done():
            return
        result: Result = {"sent": self.sent, "ack": None, "status": None, "body": None}
        if body is not None:
            text = body.decode("utf-8", "replace")
            result.update(ack=self._acked, status=self._status, body=text)
        self.result.set_result(result)
        if self._transport is not None:
            self._transport.close()


async def _open(host: str, port: int, data: bytes) -> _Exchange:
    exchange = _Exchange(data)
    with contextlib.suppress(OSError):  # then `send` finds no connection: no reply
        await asyncio.get_running_loop().create_connection(lambda: exchange, host, port)
    return exchange


async def run(requests: list[tuple[str, int, bytes]]) -> list[Result]:
    """Open every connection, then write every request in one pass, then read the replies."""
    exchanges = await asyncio.gather(*(_open(host, port, data) for host, port, data in requests))
    for exchange in exchanges:
        exchange.send()
    waiting = [exchange.result for exchange in exchanges]
    await asyncio.wait(waiting, timeout=_TIMEOUT_S)
    for exchange in exchanges:
        exchange.give_up()  # one not answered in time
    return [future.result() for future in waiting]


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
