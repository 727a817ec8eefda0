"""Token fetch, caching, refresh and 401 handling of `RunaiTokenAuth` (through the client)."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from structlog.testing import capture_logs

from diagnosis.errors import AuthError, UpstreamTimeout, UpstreamUnavailable
from diagnosis.runai.auth import RunaiTokenAuth, jwt_exp

WORKLOAD = {"id": "w-1", "name": "train-1", "clusterId": "c-1", "phase": "Failed"}
PATH = "/api/v1/workloads/w-1"


@pytest.fixture(autouse=True)
def _workload_route(fake):
    fake.routes[PATH] = httpx.Response(200, json=WORKLOAD)


def bearer(request: httpx.Request) -> str:
    return request.headers["Authorization"]


async def test_token_request_is_client_credentials_json(client, fake):
    """The token POST carries the documented camelCase client-credentials body."""
    await client.get_workload("w-1")

    token_request = fake.requests[0]
    assert (token_request.method, token_request.url.path) == ("POST", "/api/v1/token")
    assert json.loads(token_request.content) == {
        "grantType": "client_credentials",
        "clientID": "bot-client",
        "clientSecret": "s3cret-value",
    }
    assert "Authorization" not in token_request.headers
    assert bearer(fake.api_requests[0]) == "Bearer tok-1"


async def test_every_request_has_the_configured_timeout(client, fake):
    """Including the token POST, which the auth flow builds outside `AsyncClient.build_request`."""
    await client.get_workload("w-1")

    expected = {"connect": 10.0, "read": 10.0, "write": 10.0, "pool": 10.0}
    assert [r.extensions.get("timeout") for r in fake.requests] == [expected, expected]


async def test_token_is_cached_across_calls(client, fake):
    for _ in range(3):
        await client.get_workload("w-1")

    assert fake.token_calls == 1
    assert [bearer(r) for r in fake.api_requests] == ["Bearer tok-1"] * 3


async def test_concurrent_calls_fetch_one_token(client, fake):
    """The lock makes ten simultaneous first calls share a single token request."""
    await asyncio.gather(*(client.get_workload("w-1") for _ in range(10)))

    assert fake.token_calls == 1
    assert {bearer(r) for r in fake.api_requests} == {"Bearer tok-1"}


@pytest.mark.parametrize(
    ("elapsed_s", "expected_tokens"),
    [(3539, 1), (3541, 2)],
    ids=["inside-margin", "past-refresh-point"],
)
async def test_token_refreshed_margin_before_expiry(
    client, fake, clock, elapsed_s, expected_tokens
):
    """expiresIn=3600 with a 60 s margin: refresh once 3540 s have passed."""
    await client.get_workload("w-1")
    clock.now += elapsed_s
    await client.get_workload("w-1")

    assert fake.token_calls == expected_tokens


@pytest.mark.parametrize(
    "case",
    [(539, 1), (541, 2)],
    ids=["before-exp-minus-margin", "after-exp-minus-margin"],
)
async def test_jwt_exp_used_when_expires_in_missing(client, fake, clock, jwt, case):
    elapsed_s, expected_tokens = case
    fake.token_route = lambda n: httpx.Response(
        200, json={"accessToken": jwt({"exp": clock.now + 600, "n": n})}
    )
    await client.get_workload("w-1")
    clock.now += elapsed_s
    await client.get_workload("w-1")

    assert fake.token_calls == expected_tokens


@pytest.mark.parametrize(
    ("elapsed_s", "expected_tokens"), [(3539, 1), (3541, 2)], ids=["fresh", "stale"]
)
async def test_opaque_token_assumed_to_live_one_hour(
    client, fake, clock, elapsed_s, expected_tokens
):
    fake.token_route = lambda n: httpx.Response(200, json={"accessToken": f"opaque-{n}"})
    await client.get_workload("w-1")
    clock.now += elapsed_s
    await client.get_workload("w-1")

    assert fake.token_calls == expected_tokens


async def test_short_lived_token_is_not_refreshed_on_every_call(client, fake, clock):
    """A lifetime shorter than the margin refreshes at half-life instead of always."""
    fake.token_route = lambda n: httpx.Response(
        200, json={"accessToken": f"tok-{n}", "expiresIn": 30}
    )
    await client.get_workload("w-1")
    clock.now += 10
    await client.get_workload("w-1")

    assert fake.token_calls == 1


async def test_401_refreshes_token_and_retries_once(client, fake):
    fake.routes[PATH] = [
        httpx.Response(401, json={"code": 401}),
        httpx.Response(200, json=WORKLOAD),
    ]

    workload = await client.get_workload("w-1")

    assert workload.id == "w-1"
    assert fake.token_calls == 2
    assert [bearer(r) for r in fake.api_requests] == ["Bearer tok-1", "Bearer tok-2"]


async def test_second_401_is_auth_error(client, fake):
    fake.routes[PATH] = httpx.Response(
        401, json={"code": 401, "message": "Issuer is not familiar."}
    )

    with pytest.raises(AuthError) as caught:
        await client.get_workload("w-1")

    assert (caught.value.operation, caught.value.status) == ("get_workload_status", 401)
    assert "Issuer is not familiar." in str(caught.value)
    assert fake.token_calls == 2
    assert len(fake.api_requests) == 2


async def test_403_is_not_retried_with_a_new_token(client, fake):
    fake.routes[PATH] = httpx.Response(403, json={"code": 403})

    with pytest.raises(AuthError):
        await client.get_workload("w-1")

    assert fake.token_calls == 1
    assert len(fake.api_requests) == 1


@pytest.mark.parametrize("status", [400, 401, 403])
async def test_token_endpoint_refusal_is_auth_error(client, fake, status):
    fake.token_route = lambda _n: httpx.Response(status, json={"code": status, "message": "no"})

    with pytest.raises(AuthError) as caught:
        await client.get_workload("w-1")

    assert (caught.value.operation, caught.value.status) == ("token", status)
    assert caught.value.url == "https://acme.run.ai/api/v1/token"
    assert fake.api_requests == []


@pytest.mark.parametrize(
    ("response", "error"),
    [
        (httpx.Response(503, json={"code": 503}), UpstreamUnavailable),
        (httpx.Response(200, json={"idToken": "x"}), UpstreamUnavailable),
        (httpx.Response(200, text="<html>login</html>"), UpstreamUnavailable),
    ],
    ids=["503-after-retries", "no-access-token", "not-json"],
)
async def test_token_endpoint_failures(client, fake, response, error):
    fake.token_route = lambda _n: response

    with pytest.raises(error) as caught:
        await client.get_workload("w-1")

    assert caught.value.operation == "token"


@pytest.mark.parametrize(
    ("exc", "error"),
    [
        (httpx.ConnectError("refused"), UpstreamUnavailable),
        (httpx.ReadTimeout("slow"), UpstreamTimeout),
    ],
)
async def test_token_transport_errors_name_the_token_operation(client, fake, exc, error):
    def boom(n: int) -> httpx.Response:
        raise exc

    fake.token_route = boom

    with pytest.raises(error) as caught:
        await client.get_workload("w-1")

    assert caught.value.operation == "token"
    assert fake.token_calls == 3  # retries=2


async def test_secret_never_in_errors_or_logs(client, fake):
    """Even a token endpoint that echoes the secret does not leak it."""
    fake.token_route = lambda _n: httpx.Response(
        400, json={"code": 400, "message": "bad clientSecret s3cret-value"}
    )
    with capture_logs() as logs, pytest.raises(AuthError) as caught:
        await client.get_workload("w-1")

    assert "s3cret-value" not in str(caught.value)
    assert "s3cret-value" not in repr(logs)


async def test_token_refresh_is_logged_without_the_token(client):
    with capture_logs() as logs:
        await client.get_workload("w-1")

    refreshed = [e for e in logs if e["event"] == "runai_token_refreshed"]
    assert refreshed == [
        {
            "event": "runai_token_refreshed",
            "expires_in_s": 3600,
            "source": "expires_in",
            "log_level": "debug",
        }
    ]
    assert "tok-1" not in repr(logs)


def test_sync_flow_is_refused():
    auth = RunaiTokenAuth(
        token_url="https://acme.run.ai/api/v1/token", client_id="a", client_secret="b"
    )
    with pytest.raises(RuntimeError, match="AsyncClient"):
        auth.sync_auth_flow(httpx.Request("GET", "https://acme.run.ai/"))


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("opaque", None),
        ("a.b", None),
        ("a.!!!.c", None),
        ("a.bm90LWpzb24.c", None),  # "not-json"
    ],
)
def test_jwt_exp_rejects_malformed_tokens(token, expected):
    assert jwt_exp(token) is expected


@pytest.mark.parametrize(
    ("claims", "expected"), [({"exp": 123}, 123.0), ({"sub": "x"}, None), ({"exp": True}, None)]
)
def test_jwt_exp_reads_claim(jwt, claims, expected):
    assert jwt_exp(jwt(claims)) == expected
