"""Fixtures: the basic scenario, reached in-process (ASGI) or over one shared loopback server.

Most simulator tests talk to a private simulator through `httpx.ASGITransport`; the wire
itself (sockets, threads, latency, faults) is covered by the tests marked `e2e`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from diagnosis.http.transport import network_transport
from runai_sim import Scenario, Simulator, serve_in_thread
from tests.runai_sim.sim_helpers import BASIC, asgi_client, fetch_token


@pytest.fixture
def scenario() -> Scenario:
    return Scenario.load(BASIC)


@pytest.fixture
def sim(scenario: Scenario) -> Simulator:
    return Simulator(scenario)


@pytest.fixture
async def anon(sim: Simulator) -> AsyncIterator[httpx.AsyncClient]:
    """A client of `sim` without credentials."""
    async with asgi_client(sim) as client:
        yield client


@pytest.fixture
async def client(anon: httpx.AsyncClient) -> httpx.AsyncClient:
    """The same client, now sending a valid bearer token."""
    anon.headers["Authorization"] = f"Bearer {await fetch_token(anon)}"
    return anon


@pytest.fixture(scope="session")
def shared_url() -> Iterator[str]:
    """One server for read-only tests, run by `serve_in_thread` so every test loop can use it."""
    with serve_in_thread(Simulator(Scenario.load(BASIC))) as url:
        yield url


@pytest.fixture
async def reader(shared_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """An authenticated client of the shared server; tests using it must not change its state."""
    transport = network_transport()  # shares one TLS context: no CA bundle to load per test
    async with httpx.AsyncClient(base_url=shared_url, timeout=10, transport=transport) as client:
        client.headers["Authorization"] = f"Bearer {await fetch_token(client)}"
        yield client
