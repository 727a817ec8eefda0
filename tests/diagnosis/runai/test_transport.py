"""Read-only guard, retries with backoff, and error translation under the Run:ai client."""

from __future__ import annotations

import email.utils
import ssl

import httpx
import pytest
from structlog.testing import capture_logs

from diagnosis.errors import (
    AuthError,
    NotFound,
    UpstreamError,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from diagnosis.http.aio import AiohttpTransport
from diagnosis.http.responses import error_message, safe_url
from diagnosis.http.transport import (
    ReadOnlyTransport,
    ReadOnlyViolation,
    RetryTransport,
    network_transport,
    retry_after_s,
)

WORKLOAD = {"id": "w-1", "name": "train-1", "clusterId": "c-1"}
PATH = "/api/v1/workloads/w-1"
OK = httpx.Response(200, json=WORKLOAD)


def error(status: int, message: str = "Something went wrong.", **headers: str) -> httpx.Response:
    return httpx.Response(status, json={"code": status, "message": message}, headers=headers)


# ------------------------------------------------------------------ read-only guard


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
async def test_client_cannot_send_mutating_requests(client, fake, method):
    """Even the client's own httpx client (auth included) cannot write to Run:ai."""
    with pytest.raises(ReadOnlyViolation, match=f"refused {method} /api/v1/workloads"):
        await client._http.request(method, "/api/v1/workloads", json={"name": "x"})

    assert fake.api_requests == []


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("GET", "/api/v1/workloads", True),
        ("POST", "/api/v1/token", True),
        ("POST", "/api/v2/token", False),
        ("POST", "/api/v1/token/extra", False),
        ("POST", "/api/v1/workloads/w-1/suspend", False),
        ("DELETE", "/api/v1/token", False),
        ("HEAD", "/api/v1/workloads", False),
    ],
)
async def test_read_only_transport_table(method, path, allowed):
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.method)
        return httpx.Response(200, json={})

    transport = ReadOnlyTransport(httpx.MockTransport(handler), token_path="/api/v1/token")
    request = httpx.Request(method, f"https://acme.run.ai{path}")
    if allowed:
        response = await transport.handle_async_request(request)
        assert response.status_code == 200
        assert seen == [method]
    else:
        with pytest.raises(ReadOnlyViolation):
            await transport.handle_async_request(request)
        assert seen == []


async def test_token_post_allowed_under_a_base_path_prefix(make_client, fake):
    """With a base URL path, the one allowed POST is `<prefix>/api/v1/token`."""
    fake.routes["/runai/api/v1/workloads/w-1"] = OK
    fake.routes["/runai/api/v1/token"] = lambda _r: httpx.Response(
        200, json={"accessToken": "t", "expiresIn": 3600}
    )
    client = make_client(url="https://acme.run.ai/runai")

    await client.get_workload("w-1")

    assert [(r.method, r.url.path) for r in fake.requests] == [
        ("POST", "/runai/api/v1/token"),
        ("GET", "/runai/api/v1/workloads/w-1"),
    ]


# ------------------------------------------------------------------ retries


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504])
async def test_retryable_statuses_are_retried(client, fake, sleeps, status):
    fake.routes[PATH] = [error(status), OK]

    workload = await client.get_workload("w-1")

    assert workload.id == "w-1"
    assert len(fake.api_requests) == 2
    assert len(sleeps) == 1
    assert 0 <= sleeps[0] <= 0.5  # full jitter within backoff_s * 2**0


@pytest.mark.parametrize(
    ("status", "exc"),
    [
        (400, UpstreamError),
        (403, AuthError),
        (404, NotFound),
        (405, UpstreamError),
        (409, UpstreamError),
        (422, UpstreamError),
    ],
)
async def test_other_statuses_are_final(client, fake, sleeps, status, exc):
    fake.routes[PATH] = error(status, "nope")

    with pytest.raises(exc) as caught:
        await client.get_workload("w-1")

    assert type(caught.value) is exc
    assert caught.value.status == status
    assert len(fake.api_requests) == 1
    assert sleeps == []


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504])
async def test_retries_exhausted_is_upstream_unavailable(client, fake, sleeps, status):
    fake.routes[PATH] = error(status, "Please try again in few minutes.")

    with pytest.raises(UpstreamUnavailable) as caught:
        await client.get_workload("w-1")

    err = caught.value
    assert (err.operation, err.status) == ("get_workload_status", status)
    assert err.url == "https://acme.run.ai/api/v1/workloads/w-1"
    assert "after 3 attempts" in str(err)
    assert "Please try again in few minutes." in str(err)
    assert len(fake.api_requests) == 3  # 1 + retries=2
    assert len(sleeps) == 2


@pytest.mark.parametrize(
    ("header", "expected"),
    [("2", 2.0), ("0", 0.0), ("1.5", 1.5), ("999", 4.0)],
    ids=["seconds", "zero", "fractional", "capped-at-max-backoff"],
)
async def test_retry_after_seconds_honoured(client, fake, sleeps, header, expected):
    fake.routes[PATH] = [error(429, **{"Retry-After": header}), OK]

    await client.get_workload("w-1")

    assert sleeps == [expected]


async def test_retry_after_http_date_honoured(client, fake, sleeps, clock):
    when = email.utils.formatdate(clock.now + 3, usegmt=True)
    fake.routes[PATH] = [error(503, **{"Retry-After": when}), OK]

    await client.get_workload("w-1")

    assert sleeps == [pytest.approx(3.0)]


@pytest.mark.parametrize(
    ("exc", "error_type"),
    [
        (httpx.ConnectError("refused"), UpstreamUnavailable),
        (httpx.ReadError("reset"), UpstreamUnavailable),
        (httpx.RemoteProtocolError("bad"), UpstreamUnavailable),
        (httpx.ConnectTimeout("slow"), UpstreamTimeout),
        (httpx.ReadTimeout("slow"), UpstreamTimeout),
    ],
)
async def test_transport_errors_retried_then_translated(client, fake, sleeps, exc, error_type):
    def boom(request: httpx.Request) -> httpx.Response:
        raise exc

    fake.routes[PATH] = boom

    with pytest.raises(error_type) as caught:
        await client.get_workload("w-1")

    err = caught.value
    assert err.operation == "get_workload_status"
    assert err.url == "https://acme.run.ai/api/v1/workloads/w-1"
    assert err.status is None
    assert isinstance(err.__cause__, httpx.HTTPError)
    assert len(fake.api_requests) == 3
    assert len(sleeps) == 2


async def test_transport_error_then_success(client, fake):
    calls = []

    def flaky(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        if len(calls) == 1:
            raise httpx.ConnectError("refused")
        return OK

    fake.routes[PATH] = flaky

    assert (await client.get_workload("w-1")).id == "w-1"


async def test_write_timeout_is_not_retried(client, fake, sleeps):
    def boom(request: httpx.Request) -> httpx.Response:
        raise httpx.WriteTimeout("stuck")

    fake.routes[PATH] = boom

    with pytest.raises(UpstreamTimeout):
        await client.get_workload("w-1")

    assert len(fake.api_requests) == 1


async def test_backoff_is_exponential_and_capped():
    """With jitter pinned to its cap: 0.5, 1, 2, 4, 4 (max_backoff_s)."""
    sleeps: list[float] = []

    async def record(delay: float) -> None:
        sleeps.append(delay)

    transport = RetryTransport(
        httpx.MockTransport(lambda _r: httpx.Response(503)),
        retries=5,
        backoff_s=0.5,
        max_backoff_s=4.0,
        sleep=record,
        jitter=lambda cap: cap,
    )
    response = await transport.handle_async_request(httpx.Request("GET", "https://x/api"))

    assert response.status_code == 503
    assert sleeps == [0.5, 1.0, 2.0, 4.0, 4.0]


async def test_requests_and_retries_are_logged(client, fake):
    fake.routes[PATH] = [error(503), OK]

    with capture_logs() as logs:
        await client.get_workload("w-1")

    events = [(e["event"], e.get("path"), e.get("status")) for e in logs]
    assert events == [
        ("runai_request", "/api/v1/token", 200),
        ("runai_token_refreshed", None, None),
        ("runai_request", PATH, 503),
        ("runai_retry", PATH, None),
        ("runai_request", PATH, 200),
    ]
    assert all(e["log_level"] == "debug" for e in logs)
    assert "tok-1" not in repr(logs)


# ------------------------------------------------------------------ helpers


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, None),
        ({"Retry-After": "7"}, 7.0),
        ({"Retry-After": "-3"}, 0.0),
        ({"Retry-After": "soon"}, None),
        ({"Retry-After": "Wed, 21 Oct 2015 07:28:05 GMT"}, 5.0),
        ({"Retry-After": "Wed, 21 Oct 2015 07:27:00 GMT"}, 0.0),
    ],
)
def test_retry_after_s(headers, expected):
    now = email.utils.parsedate_to_datetime("Wed, 21 Oct 2015 07:28:00 GMT").timestamp()
    response = httpx.Response(503, headers=headers)

    assert retry_after_s(response, now=now) == expected


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"code": 500, "message": "Something went wrong."}, ": Something went wrong."),
        ({"code": 500}, ""),
        ({"code": 500, "message": "  "}, ""),
        (["not", "an", "object"], ""),
        ({"message": "x" * 500}, ": " + "x" * 199 + "…"),
        ({"message": "two\n  lines"}, ": two lines"),
    ],
)
def test_error_message(body, expected):
    assert error_message(httpx.Response(500, json=body)) == expected


def test_error_message_of_non_json_body():
    assert error_message(httpx.Response(502, text="<html>Bad gateway</html>")) == ""


def test_safe_url_drops_credentials():
    url = httpx.URL("https://user:pw@acme.run.ai/api/v1/workloads?limit=1")

    assert safe_url(url) == "https://acme.run.ai/api/v1/workloads?limit=1"


def test_network_transports_share_one_default_tls_context():
    """The CA bundle is read once per process, not once per client."""
    first, second = network_transport(), network_transport()
    assert isinstance(first, AiohttpTransport)
    assert isinstance(second, AiohttpTransport)
    assert first.ssl_context is second.ssl_context
    own = ssl.create_default_context()
    mine = network_transport(own)
    assert isinstance(mine, AiohttpTransport)
    assert mine.ssl_context is own
