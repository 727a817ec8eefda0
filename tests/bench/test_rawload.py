"""The benchmark's load generator: raw requests at once, each reply's status, time and body."""

from __future__ import annotations

import asyncio
import json
import time
from urllib.parse import parse_qs

import pytest
from slack_sdk.signature import SignatureVerifier

from bench import rawload
from bench.driver import Ask, send_all
from bench.rawload import run
from tests.bot.slack.fake_slack import FakeSlack
from tests.ports import free_port

REQUEST = b"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi"
SECRET = "s3cret"


async def _reply(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.readuntil(b"\r\n\r\n")
    await reader.readexactly(2)
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
    await writer.drain()
    writer.close()


async def test_every_request_is_sent_at_once_and_its_reply_timed():
    server = await asyncio.start_server(_reply, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    before = time.monotonic()
    async with server:
        results = await run([("127.0.0.1", port, REQUEST)] * 5)
    assert [r["status"] for r in results] == [200] * 5
    assert [r["body"] for r in results] == ["ok"] * 5
    assert all(isinstance(r["ack"], float) and r["ack"] >= 0 for r in results)
    assert all(before <= r["sent"] <= time.monotonic() for r in results)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        pytest.param(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nok", None, id="cut short"),
        pytest.param(b"HTTP/1.1 200 OK\r\nContent-Length: 9", None, id="head cut short"),
        pytest.param(b"garbage\r\n\r\n", None, id="not HTTP"),
        pytest.param(
            b"HTTP/1.1 200 OK\r\nContent-Length: 99999999\r\n\r\nok", (200, ""), id="body too big"
        ),
        pytest.param(b"HTTP/1.1 503 Busy\r\n\r\n", (503, ""), id="no length"),
    ],
)
async def test_what_a_reply_that_is_not_whole_counts_as(
    reply: bytes, expected: tuple[int, str] | None
):
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        await reader.readexactly(2)
        writer.write(reply)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    async with server:
        [result] = await run([("127.0.0.1", server.sockets[0].getsockname()[1], REQUEST)])
    if expected is None:
        assert (result["ack"], result["status"], result["body"]) == (None, None, None)
    else:
        assert (result["status"], result["body"]) == expected
        assert result["ack"] >= 0


async def test_a_reply_that_does_not_come_in_time_is_none(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(rawload, "_TIMEOUT_S", 0.2)
    held: list[asyncio.StreamWriter] = []

    async def never(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)  # kept open, never answered

    server = await asyncio.start_server(never, "127.0.0.1", 0)
    async with server:
        [result] = await run([("127.0.0.1", server.sockets[0].getsockname()[1], REQUEST)])
        for writer in held:
            writer.close()
    assert (result["ack"], result["status"], result["body"]) == (None, None, None)


async def test_a_request_nobody_answers_has_no_time_status_or_body():
    [result] = await run([("127.0.0.1", free_port(), REQUEST)])
    assert (result["ack"], result["status"], result["body"]) == (None, None, None)


async def test_asks_are_signed_as_slack_signs_and_their_acknowledgements_recorded(
    fake_slack: FakeSlack,
):
    seen: list[tuple[dict[str, str], bytes]] = []

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode().split("\r\n")[1:]
        headers = {
            k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines if line)
        }
        body = await reader.readexactly(int(headers["content-length"]))
        seen.append((headers, body))
        reply = json.dumps({"text": "I am busy: 3 requests are ahead of yours."}).encode()
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {len(reply)}\r\n\r\n".encode()
            + reply
        )
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    asks = [Ask("t", i, "U1", f"why job-{i}", "", replica="r") for i in range(3)]
    async with server:
        cpu = await send_all({"r": url}, SECRET, asks, fake_slack)
    assert cpu > 0
    assert len(seen) == len(asks)
    for headers, body in seen:
        assert SignatureVerifier(SECRET).is_valid_request(body, headers)
    channels = sorted(parse_qs(body.decode())["channel_id"][0] for _, body in seen)
    assert channels == sorted(a.channel for a in asks)
    for ask in asks:
        assert ask.status == 200
        assert ask.ack_s is not None
        assert ask.ack_s >= 0
        assert ask.ack_text == "I am busy: 3 requests are ahead of yours."
