"""The aiohttp transport under httpx: bodies, kept-alive connections, and httpx's own errors.

Every row is a real server on loopback misbehaving one way; the client must raise the httpx
exception httpx's own transport raises for it, so `RetryTransport` and the error tree see
what they always saw.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass

import aiohttp
import httpx
import pytest

from diagnosis.http.aio import HEADER_LINE_MAX, AiohttpTransport, _sending_bound, httpx_error
from diagnosis.http.transport import RETRYABLE_EXCEPTIONS, network_transport
from tests.ports import Handler, free_port, serving

BODY = json.dumps({"workloads": [{"name": f"w{i}"} for i in range(50)]}).encode()


class _Server:
    """An HTTP/1.1 server on loopback: `/slow` answers after 20 ms; `/drop` then hangs up."""

    def __init__(self) -> None:
        self.accepted = 0
        self.heads: list[bytes] = []
        self.url = ""

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        try:
            while head := await reader.readuntil(b"\r\n\r\n"):
                self.heads.append(head)
                path = head.split(b" ", 2)[1]
                if path == b"/slow":
                    await asyncio.sleep(0.02)
                if path == b"/gzip":
                    packed = gzip.compress(BODY)
                    writer.write(
                        b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n"
                        b"Content-Length: %d\r\n\r\n%s" % (len(packed), packed)
                    )
                elif path == b"/chunked":
                    halves = (BODY[:100], BODY[100:])
                    chunks = b"".join(b"%x\r\n%s\r\n" % (len(h), h) for h in halves)
                    writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                    writer.write(chunks + b"0\r\n\r\n")
                else:
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
        async with _serving(self._serve) as url:
            self.url = url
            yield self


@asynccontextmanager
async def _serving(handler: Handler) -> AsyncIterator[str]:
    async with serving(handler) as port:
        yield f"http://127.0.0.1:{port}"


async def test_a_kept_alive_connection_is_reused() -> None:
    async with (
        _Server().running() as server,
        httpx.AsyncClient(transport=network_transport()) as client,
    ):
        codes = [(await client.get(f"{server.url}/slow")).status_code for _ in range(3)]
    assert (codes, server.accepted) == ([200, 200, 200], 1)


async def test_a_connection_the_server_closed_is_not_reused() -> None:
    async with (
        _Server().running() as server,
        httpx.AsyncClient(transport=network_transport()) as client,
    ):
        first = await client.get(f"{server.url}/drop")
        await asyncio.sleep(0.05)  # the peer's close reaches this side
        second = await client.get(f"{server.url}/slow")
    assert (first.status_code, second.status_code, server.accepted) == (200, 200, 2)


@pytest.mark.parametrize("path", ["/gzip", "/chunked"])
async def test_bodies_arrive_whole_and_decoded_by_httpx(path: str) -> None:
    async with (
        _Server().running() as server,
        httpx.AsyncClient(transport=network_transport()) as client,
    ):
        response = await client.get(f"{server.url}{path}")
    assert response.json() == json.loads(BODY)


async def test_the_request_leaves_as_httpx_built_it() -> None:
    async with (
        _Server().running() as server,
        httpx.AsyncClient(transport=network_transport(), headers={"X-Trace": "a b"}) as client,
    ):
        await client.get(f"{server.url}/slow", params={"q": "x y"})
    head = server.heads[0].decode()
    assert head.startswith("GET /slow?q=x+y HTTP/1.1\r\n")
    assert "X-Trace: a b\r\n" in head
    assert f"Host: {server.url.removeprefix('http://')}\r\n" in head


@pytest.mark.parametrize("path", ["/a/%2e%2e/b", "/a/%41%2F/b", "/a%5Cb"])
async def test_the_path_leaves_byte_for_byte_as_httpx_built_it(path: str) -> None:
    async with (
        _Server().running() as server,
        httpx.AsyncClient(transport=network_transport()) as client,
    ):
        await client.get(f"{server.url}{path}")
    assert server.heads[0].decode().startswith(f"GET {path} HTTP/1.1\r\n")


@pytest.mark.parametrize(
    ("raised", "becomes"),
    [
        (aiohttp.ClientConnectionResetError("Cannot write to closing transport"), httpx.ReadError),
        (aiohttp.ClientConnectionError("Connection closed"), httpx.ReadError),
        (aiohttp.ServerDisconnectedError(), httpx.RemoteProtocolError),
        (aiohttp.ConnectionTimeoutError(), httpx.ConnectTimeout),
        (aiohttp.SocketTimeoutError(), httpx.ReadTimeout),
        (TimeoutError(), httpx.TimeoutException),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, BaseException) else v.__name__,
)
def test_aiohttp_errors_without_a_loopback_recipe_map_as_httpx_s(
    raised: BaseException, becomes: type[httpx.TransportError]
) -> None:
    request = httpx.Request("GET", "http://127.0.0.1/x")
    error = httpx_error(raised, request)
    assert type(error) is becomes
    assert error.request is request
    assert isinstance(error, RETRYABLE_EXCEPTIONS) or becomes is httpx.TimeoutException


async def test_a_transport_used_in_a_second_loop_opens_a_session_there() -> None:
    transport = AiohttpTransport(ssl.create_default_context())

    async def once() -> int:
        async with _Server().running() as server:
            client = httpx.AsyncClient(transport=transport)
            return (await client.get(f"{server.url}/slow")).status_code

    assert await once() == 200
    first = transport._session
    second_loop = await asyncio.to_thread(asyncio.run, once())
    assert second_loop == 200
    assert transport._session is not first
    await transport.aclose()
    if first is not None:
        await first.close()


async def _hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.readuntil(b"\r\n\r\n")
    writer.close()


async def _never_answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with suppress(ConnectionError):
        await reader.read()
    writer.close()


async def _cut_short(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.readuntil(b"\r\n\r\n")
    writer.write(b'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"partial":')
    await writer.drain()
    writer.close()


async def _garbage(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.readuntil(b"\r\n\r\n")
    writer.write(b"SSH-2.0-OpenSSH_9.6\r\n\r\n")
    await writer.drain()
    writer.close()


async def _plain_http(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")  # to a TLS hello
    await writer.drain()
    writer.close()


def _with_header(size: int) -> Handler:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        cookie = b"Set-Cookie: session=" + b"a" * (size - len(b"Set-Cookie: session="))
        writer.write(b"HTTP/1.1 200 OK\r\n" + cookie + b"\r\nContent-Length: 2\r\n\r\nok")
        await writer.drain()
        writer.close()

    return answer


async def test_a_header_line_as_long_as_httpx_reads_is_read() -> None:
    line = HEADER_LINE_MAX - 1024  # with the status line, the head stays within h11's limit
    for transport in (network_transport(), httpx.AsyncHTTPTransport()):
        async with (
            _serving(_with_header(line)) as url,
            httpx.AsyncClient(transport=transport) as client,
        ):
            response = await client.get(f"{url}/x")
        assert (response.status_code, response.text) == (200, "ok"), transport
        assert len(response.headers["set-cookie"]) > HEADER_LINE_MAX // 2


async def test_a_header_line_beyond_the_limit_is_a_protocol_error() -> None:
    async with (
        _serving(_with_header(HEADER_LINE_MAX + 1024)) as url,
        httpx.AsyncClient(transport=network_transport()) as client,
    ):
        with pytest.raises(httpx.RemoteProtocolError):
            await client.get(f"{url}/x")


async def _never_read(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await asyncio.Event().wait()  # holds the connection open and reads nothing


@pytest.mark.parametrize(
    ("timeout", "bound"),
    [
        (httpx.Timeout(1.0), 4.0),
        (httpx.Timeout(1.0, connect=2.0, read=5.0), 9.0),
        (httpx.Timeout(1.0, write=None), None),
        (httpx.Timeout(1.0, read=None), None),  # httpx would wait for the answer: so do we
        (httpx.Timeout(None), None),
    ],
)
def test_a_body_s_exchange_is_bounded_only_where_httpx_would_bound_it(
    timeout: httpx.Timeout, bound: float | None
) -> None:
    assert _sending_bound(timeout.as_dict()) == bound


async def test_a_body_the_server_never_takes_is_a_write_timeout() -> None:
    body = b"x" * 50_000_000  # far more than the sockets' buffers hold
    async with (
        _serving(_never_read) as url,
        httpx.AsyncClient(transport=network_transport(), timeout=0.2) as client,
    ):
        with pytest.raises(httpx.WriteTimeout):
            await client.post(f"{url}/x", content=body)


@dataclass(frozen=True)
class Failure:
    name: str
    handler: Handler | None  # None: nothing listens on the port
    raised: type[httpx.TransportError]
    https: bool = False


FAILURES = [
    Failure("refused", None, httpx.ConnectError),
    Failure("hung up before answering", _hang_up, httpx.RemoteProtocolError),
    Failure("never answers", _never_answer, httpx.ReadTimeout),
    Failure("body cut short", _cut_short, httpx.RemoteProtocolError),
    Failure("not HTTP", _garbage, httpx.RemoteProtocolError),
    Failure("TLS to a plain HTTP server", _plain_http, httpx.ConnectError, https=True),
    Failure("TLS handshake never answered", _never_answer, httpx.ConnectTimeout, https=True),
]


@pytest.mark.parametrize("failure", FAILURES, ids=lambda f: f.name)
async def test_failures_are_httpx_s_own(failure: Failure) -> None:
    timeout = httpx.Timeout(0.5)
    async with (
        _serving(failure.handler or _hang_up) as url,
        httpx.AsyncClient(transport=network_transport(), timeout=timeout) as client,
    ):
        target = f"http://127.0.0.1:{free_port()}" if failure.handler is None else url
        if failure.https:
            target = target.replace("http://", "https://")
        with pytest.raises(httpx.TransportError) as raised:
            await client.get(f"{target}/x")
    assert type(raised.value) is failure.raised, repr(raised.value)
    assert isinstance(raised.value, RETRYABLE_EXCEPTIONS)
    assert raised.value.request.url.path == "/x"


async def test_close_closes_the_session_and_a_new_one_opens_on_next_use() -> None:
    transport = AiohttpTransport(ssl.create_default_context())
    async with _Server().running() as server:
        async with httpx.AsyncClient(transport=transport) as client:
            assert (await client.get(f"{server.url}/slow")).status_code == 200
        assert transport._session is None
        async with httpx.AsyncClient(transport=transport) as client:
            assert (await client.get(f"{server.url}/slow")).status_code == 200
    assert server.accepted == 2
