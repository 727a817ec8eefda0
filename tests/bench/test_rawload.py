"""The ack figure's load generator: raw requests at once, each reply's status and time."""

from __future__ import annotations

import asyncio

from bench.rawload import _run
from tests.ports import free_port

REQUEST = b"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi"


async def _reply(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.readuntil(b"\r\n\r\n")
    await reader.readexactly(2)
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
    await writer.drain()
    writer.close()


async def test_every_request_is_sent_at_once_and_its_reply_timed():
    server = await asyncio.start_server(_reply, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        result = await _run("127.0.0.1", port, [REQUEST] * 5)
    assert result["statuses"] == [200] * 5
    assert all(isinstance(a, float) and a >= 0 for a in result["acks"])


async def test_a_request_nobody_answers_has_no_time_and_no_status():
    result = await _run("127.0.0.1", free_port(), [REQUEST])
    assert result == {"acks": [None], "statuses": [None]}
