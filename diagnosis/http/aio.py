"""httpx's transport interface over aiohttp's client: how requests reach Run:ai, Kubernetes, Teams.

httpx stays the clients' interface (URLs, auth flows, `MockTransport`/`ASGITransport` in
tests, the retry and read-only transports in `diagnosis.http.transport`); only the bottom
layer, the one that owns sockets, is aiohttp's client session instead of httpcore's pool.
Measured per GET of a small JSON body over a kept-alive local connection, on uvloop as the
worker runs: 1.3-1.6 ms of CPU through httpcore (with our linear-time pool, the `anyio`
backend under it), 0.53-0.59 ms through aiohttp, whose HTTP parser is in C; a diagnosis
makes 11-19 of them. aiohttp is already in every process (slack_sdk's Web API client).

This module is only the glue: the request handed over as httpx built it (method, URL,
headers, body; no redirects, no decompression, no cookies: httpx does those), the response
streamed back, httpx's timeouts mapped onto aiohttp's, and aiohttp's errors onto httpx's
precisely (a refused connection is `httpx.ConnectError`, not a timeout), so `RetryTransport`
retries what it always retried and the error tree tells the same story. (The
`httpx-aiohttp` package does the same glue, but reports a refused connection or a dropped
one as a connect timeout.) The pool keeps httpx's defaults: 100 connections, idle ones
closed after 5 s.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import httpx
import yarl

__all__ = ["HEADER_LINE_MAX", "AiohttpTransport", "httpx_error"]

#: httpx's default limits: connections at once, and how long an idle one is kept.
MAX_CONNECTIONS = 100
KEEPALIVE_S = 5.0
_CHUNK = 64 * 1024
#: The longest response header line read: httpx's own transport lets h11 read a head of up to
#: 100 KiB (httpcore's `MAX_INCOMPLETE_EVENT_SIZE`); aiohttp stops at 8 KiB a line, which
#: would make a gateway's long `Set-Cookie` an unreadable answer.
HEADER_LINE_MAX = 100 * 1024

#: aiohttp's errors as httpx's, the most specific first (the first that matches wins).
_ERRORS: tuple[tuple[type[BaseException], type[httpx.TransportError]], ...] = (
    (aiohttp.ConnectionTimeoutError, httpx.ConnectTimeout),
    (aiohttp.SocketTimeoutError, httpx.ReadTimeout),
    (aiohttp.ServerTimeoutError, httpx.ReadTimeout),
    (aiohttp.ClientConnectorError, httpx.ConnectError),  # refused, DNS, TLS handshake
    (aiohttp.ServerDisconnectedError, httpx.RemoteProtocolError),
    (aiohttp.ClientPayloadError, httpx.RemoteProtocolError),  # a body cut short
    (aiohttp.ClientResponseError, httpx.RemoteProtocolError),  # not a valid HTTP response
    (aiohttp.InvalidURL, httpx.UnsupportedProtocol),
    (aiohttp.ClientOSError, httpx.ReadError),  # reset by the peer
    (aiohttp.ClientConnectionResetError, httpx.ReadError),  # closed under a write
    (aiohttp.ClientConnectionError, httpx.ReadError),  # "Connection closed"
    (TimeoutError, httpx.TimeoutException),
    (aiohttp.ClientError, httpx.TransportError),
)


def httpx_error(error: BaseException, request: httpx.Request) -> httpx.TransportError:
    """The httpx exception that says what `error` (aiohttp's) says, for `request`."""
    kind = next((to for of, to in _ERRORS if isinstance(error, of)), httpx.TransportError)
    return kind(str(error) or type(error).__name__, request=request)


def _headers(headers: httpx.Headers) -> list[tuple[str, str]]:
    """The request's headers as httpx spelled them, but `Transfer-Encoding`.

    aiohttp frames a body of unknown length itself (chunked), and refuses to be told to.
    """
    return [
        (name.decode("latin-1"), value.decode("latin-1"))
        for name, value in headers.raw
        if name.lower() != b"transfer-encoding"
    ]


async def _streamed(stream: httpx.SyncByteStream | httpx.AsyncByteStream) -> AsyncIterator[bytes]:
    """A request body as aiohttp sends it: chunk by chunk, under httpx's own framing headers."""
    if isinstance(stream, httpx.AsyncByteStream):
        async for chunk in stream:
            yield chunk
    else:
        for chunk in stream:
            yield chunk


def _sending_bound(timeout: dict[str, Any]) -> float | None:
    """How long a request with a body may take to get its answer's head: None for no limit.

    aiohttp has no write timeout, and its read timeout starts once the body is sent: a peer
    that stops reading would hold the request forever. httpx's write timeout is honoured as
    a bound on the whole exchange, the sum of its pool, connect, write and read timeouts;
    the sooner ones still end a slow connect or answer with their own errors. Where any of
    them is None (httpx would wait), there is no bound. Unlike httpx's per-write limit, a
    body still flowing when the sum runs out is cut too; our bodies are a few KB.
    """
    parts = [timeout.get(k) for k in ("pool", "connect", "write", "read")]
    if any(part is None for part in parts):
        return None
    return sum(float(part) for part in parts if part is not None)


class _Body(httpx.AsyncByteStream):
    """An aiohttp response's body as httpx reads it, with its errors in httpx's terms."""

    def __init__(self, response: aiohttp.ClientResponse, request: httpx.Request) -> None:
        self._response = response
        self._request = request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._response.content.iter_chunked(_CHUNK):
                yield chunk
        except (TimeoutError, aiohttp.ClientError) as error:
            raise httpx_error(error, self._request) from error

    async def aclose(self) -> None:
        """Hand the connection back (kept alive only if the body was read to its end)."""
        self._response.release()


class AiohttpTransport(httpx.AsyncBaseTransport):
    """Sends httpx requests with one aiohttp session, made in the loop on first use."""

    def __init__(self, ssl_context: ssl.SSLContext) -> None:
        self._ssl = ssl_context
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def ssl_context(self) -> ssl.SSLContext:
        """What verifies `https` servers (and presents a client certificate, if it has one)."""
        return self._ssl

    def _client(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        if self._session is not None and self._loop is not loop:  # another loop's: unusable
            self._session = None  # its connections died with that loop
        if self._session is None or self._session.closed:
            self._loop = loop
            connector = aiohttp.TCPConnector(
                limit=MAX_CONNECTIONS, keepalive_timeout=KEEPALIVE_S, ssl=self._ssl
            )
            self._session = aiohttp.ClientSession(
                connector=connector,
                cookie_jar=aiohttp.DummyCookieJar(),  # httpx keeps the cookies, if any
                auto_decompress=False,  # httpx decodes Content-Encoding
                timeout=aiohttp.ClientTimeout(total=None),  # per request, from httpx
                max_line_size=HEADER_LINE_MAX,
                max_field_size=HEADER_LINE_MAX,
            )
        return self._session

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send `request` as httpx built it; the response, its body still to be read."""
        timeout: dict[str, Any] = request.extensions.get("timeout", {})
        headers = request.headers
        sends_body = headers.get("content-length", "0") != "0" or "transfer-encoding" in headers
        bound = asyncio.timeout(_sending_bound(timeout) if sends_body else None)
        try:
            async with bound:
                response = await self._client().request(
                    request.method,
                    # As httpx built it, bytes for bytes: yarl would otherwise normalise it
                    # again (decode `%41`, resolve `%2e%2e`), and the path on the wire could
                    # differ from the one every check above this transport saw.
                    yarl.URL(str(request.url), encoded=True),
                    headers=_headers(request.headers),
                    data=_streamed(request.stream) if sends_body else None,  # as produced
                    allow_redirects=False,
                    timeout=aiohttp.ClientTimeout(
                        total=None,
                        connect=timeout.get("pool"),
                        sock_connect=timeout.get("connect"),
                        sock_read=timeout.get("read"),
                    ),
                    server_hostname=request.extensions.get("sni_hostname"),
                )
        except (TimeoutError, aiohttp.ClientError) as error:
            if bound.expired():
                message = "the request body was not taken within the write timeout"
                raise httpx.WriteTimeout(message, request=request) from error
            raise httpx_error(error, request) from error
        extensions: dict[str, Any] = {"http_version": b"HTTP/1.1"}
        if response.reason:
            extensions["reason_phrase"] = response.reason.encode("ascii", "replace")
        return httpx.Response(
            response.status,
            headers=list(response.raw_headers),
            stream=_Body(response, request),
            request=request,
            extensions=extensions,
        )

    async def aclose(self) -> None:
        """Close the session and its connections."""
        if self._session is not None:
            await self._session.close()
            self._session = None
