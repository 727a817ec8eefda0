"""A fake Run:ai control plane for the client tests, served through `httpx.MockTransport`."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from diagnosis.runai.client import RunaiClient
from diagnosis.runai.config import RunaiConfig

BASE_URL = "https://acme.run.ai"
SECRET = "s3cret-value"
T0 = 1_750_000_000.0

Route = Callable[[httpx.Request], httpx.Response] | httpx.Response | list[httpx.Response]


def make_jwt(claims: dict[str, Any]) -> str:
    """An unsigned JWT carrying `claims` (the client never verifies signatures)."""

    def part(obj: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'none'})}.{part(claims)}.sig"


class FakeRunai:
    """Routes on path, records every request, mints `tok-1`, `tok-2`, ... on the token path."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.routes: dict[str, Route] = {}
        self.token_calls = 0
        self.token_route: Callable[[int], httpx.Response] = lambda n: httpx.Response(
            200, json={"accessToken": f"tok-{n}", "expiresIn": 3600}
        )

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        # A copy: the auth flow re-sends the same Request object with new headers.
        self.requests.append(
            httpx.Request(
                request.method,
                request.url,
                headers=request.headers,
                content=request.content,
                extensions=request.extensions,
            )
        )
        if request.url.path == "/api/v1/token":
            self.token_calls += 1
            await asyncio.sleep(0)  # let concurrent callers pile up behind the lock
            return self.token_route(self.token_calls)
        route = self.routes.get(request.url.path)
        if route is None:
            return httpx.Response(404, json={"code": 404, "message": "Resource id not found."})
        if isinstance(route, httpx.Response):
            return route
        if isinstance(route, list):
            return route.pop(0) if len(route) > 1 else route[0]
        return route(request)

    @property
    def api_requests(self) -> list[httpx.Request]:
        return [r for r in self.requests if r.url.path != "/api/v1/token"]

    def paths(self) -> list[str]:
        return [r.url.path for r in self.api_requests]


class FakeClock:
    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def fake() -> FakeRunai:
    return FakeRunai()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def config() -> RunaiConfig:
    return RunaiConfig(
        url=BASE_URL,
        client_id="bot-client",
        client_secret=SECRET,
        retries=2,
        backoff_s=0.5,
        max_backoff_s=4.0,
        token_refresh_margin_s=60,
    )


@pytest.fixture
async def make_client(fake, clock, sleeps, config):
    """Build a `RunaiClient` on the fake server; the sleep records instead of waiting."""
    made: list[RunaiClient] = []

    async def record_sleep(delay: float) -> None:
        sleeps.append(delay)

    def build(**overrides: Any) -> RunaiClient:
        cfg = config.model_copy(update=overrides)
        client = RunaiClient(
            cfg, transport=httpx.MockTransport(fake), clock=clock, sleep=record_sleep
        )
        made.append(client)
        return client

    yield build
    for client in made:
        await client.aclose()


@pytest.fixture
async def client(make_client):
    async with make_client() as c:
        yield c


@pytest.fixture
def jwt() -> Callable[[dict[str, Any]], str]:
    return make_jwt
