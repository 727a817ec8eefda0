"""The signing-key cache over real HTTP against the fake identity provider, on a test's clock.

Single flight is shown by counting fetches at the fake (the keys endpoint held until every
request waits), backoff and refresh by moving the clock: nothing here depends on timing.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import jwt
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bot.teams.signing_keys import KeysUnavailable, KeyTiming, SigningKey, SigningKeys
from runai_sim.server import serve_asgi
from tests.bot.teams.fake_teams import FakeTeams, new_key

pytestmark = pytest.mark.e2e

TIMING = KeyTiming()
DAY = 24 * 3600.0


class Clock:
    """Monotonic seconds that a test moves on."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=10) as client:
        yield client


@pytest.fixture
async def teams() -> AsyncIterator[FakeTeams]:
    fake = FakeTeams()
    async with serve_asgi(fake.app()) as url:
        fake.url = url
        try:
            yield fake
        finally:
            for gate in fake.held.values():  # a held endpoint must not hold up the shutdown
                gate.set()


@pytest.fixture
async def keys(
    teams: FakeTeams, http: httpx.AsyncClient, clock: Clock
) -> AsyncIterator[SigningKeys]:
    cache = SigningKeys(metadata_url=f"{teams.url}/openid", http=http, clock=clock)
    try:
        yield cache
    finally:
        await cache.aclose()


def fetches(teams: FakeTeams) -> tuple[int, int]:
    """How often the metadata and the keys were fetched."""
    return len(teams.of("openid")), len(teams.of("keys"))


async def settled(keys: SigningKeys) -> None:
    """Wait for a background fetch (if any) to end: the cache's own task, never a sleep."""
    flights = [t for t in asyncio.all_tasks() if t.get_name() == "teams-signing-keys"]
    if flights:
        await asyncio.wait(flights)


async def test_concurrent_requests_on_a_cold_cache_wait_on_one_fetch(teams, keys):
    held = teams.hold("keys")  # a slow key endpoint: nothing answers until every request waits
    waiting = [asyncio.create_task(keys.get(teams.kid)) for _ in range(10)]
    await teams.wait_for("keys")
    held.set()
    found = await asyncio.gather(*waiting)
    assert fetches(teams) == (1, 1)
    assert all(isinstance(k, SigningKey) for k in found)
    assert len({id(k) for k in found}) == 1


async def test_a_waiter_that_gives_up_leaves_the_fetch_to_the_others(teams, keys):
    held = teams.hold("keys")
    leaving = asyncio.create_task(keys.get(teams.kid))
    staying = asyncio.create_task(keys.get(teams.kid))
    await teams.wait_for("keys")
    leaving.cancel()  # its client went away
    held.set()
    assert await staying is not None
    assert leaving.cancelled()
    assert fetches(teams) == (1, 1)


@pytest.mark.parametrize(
    ("failures", "wait_s"),
    [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (5, 16.0), (6, 30.0), (7, 30.0), (500, 30.0)],
)
def test_the_backoff_doubles_up_to_its_cap(failures: int, wait_s: float):
    assert TIMING.retry_in(failures) == wait_s


async def test_after_a_failed_fetch_the_next_is_after_a_short_backoff(teams, keys, clock):
    for _ in range(3):
        teams.fail_next("keys", 500)
    seen = []
    for step in (0.0, 0.5, 0.5, 2.0, 3.0, 1.0):  # the failures at 0, 1 and 3 s; back at 7 s
        clock.now += step
        try:
            found = await keys.get(teams.kid)
        except KeysUnavailable as error:
            seen.append((fetches(teams)[1], error.retry_after_s))
        else:
            seen.append((fetches(teams)[1], found is not None))
    assert seen == [(1, 1.0), (1, 0.5), (2, 2.0), (3, 4.0), (3, 1.0), (4, True)]
    teams.fail_next("keys", 500)  # a success forgets the failures: the next backoff is short
    clock.now += DAY
    await keys.get(teams.kid)  # still trusted: refreshed in the background, and that fails
    await settled(keys)
    clock.now += TIMING.retry_first_s
    await keys.get(teams.kid)
    await settled(keys)
    assert fetches(teams)[1] == 6


async def test_keys_are_refreshed_ahead_in_the_background(teams, keys, clock):
    assert await keys.get(teams.kid) is not None
    clock.now += TIMING.refresh_after_s
    held = teams.hold("keys")
    old_kid = teams.kid
    teams.rotate()  # the refresh will bring the new key
    async with asyncio.timeout(10):  # a guard against a hang, not a measurement
        assert await keys.get(old_kid) is not None  # not waiting for the refresh
        await teams.wait_for("keys", count=2)
        assert await keys.get(old_kid) is not None  # nor is anyone while it runs
    assert fetches(teams) == (2, 2)  # one refresh, however many asked meanwhile
    held.set()
    await settled(keys)
    assert await keys.get(old_kid) is None  # the refreshed set replaced the old one
    assert await keys.get(teams.kid) is not None
    assert fetches(teams) == (2, 2)


async def test_a_refresh_that_fails_keeps_the_keys_until_they_are_too_old(teams, keys, clock):
    await keys.get(teams.kid)
    clock.now += TIMING.refresh_after_s
    for _ in range(3):
        teams.fail_next("keys", 500)
    assert await keys.get(teams.kid) is not None
    await settled(keys)
    clock.now += 1  # the backoff: a request after it starts another refresh
    assert await keys.get(teams.kid) is not None
    await settled(keys)
    assert fetches(teams)[1] == 3
    assert await keys.get(teams.kid) is not None  # within the backoff: no fetch
    clock.now = 1000.0 + TIMING.max_age_s  # too old to trust: a request waits for a fetch
    with pytest.raises(KeysUnavailable):
        await keys.get(teams.kid)
    assert fetches(teams)[1] == 4
    clock.now += 30
    assert await keys.get(teams.kid) is not None
    assert fetches(teams)[1] == 5


async def test_an_unknown_kid_fetches_again_at_most_once_a_minute(teams, keys, clock):
    await keys.get(teams.kid)
    assert await keys.get("forged-1") is None
    clock.now += TIMING.unknown_kid_every_s - 1
    assert await keys.get("forged-2") is None
    assert fetches(teams)[1] == 1  # refused without a fetch
    clock.now += 1
    held = teams.hold("keys")
    storm = [asyncio.create_task(keys.get(f"forged-{i}")) for i in range(10)]
    await teams.wait_for("keys", count=2)
    held.set()
    assert await asyncio.gather(*storm) == [None] * 10
    assert fetches(teams)[1] == 2  # ten unknown keys, one fetch
    clock.now += TIMING.unknown_kid_every_s
    teams.rotate()  # a real rollover: the new key is found
    assert await keys.get(teams.kid) is not None
    assert fetches(teams)[1] == 3


async def test_closing_stops_a_fetch_under_way_and_starts_none(teams, keys):
    teams.hold("keys")  # never answered: the close must not wait for it
    waiting = asyncio.create_task(keys.get(teams.kid))
    await teams.wait_for("keys")
    await keys.aclose()
    with pytest.raises(KeysUnavailable):
        await waiting
    assert [t for t in asyncio.all_tasks() if t.get_name() == "teams-signing-keys"] == []
    with pytest.raises(KeysUnavailable):
        await keys.get(teams.kid)
    assert fetches(teams) == (1, 1)


def _jwk(**fields: Any) -> dict[str, Any]:
    public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(new_key().public_key()))
    return {**public, "kid": "k", **fields}


def _metadata_then(keys_body: Any) -> list[Route]:
    async def openid(request: Request) -> Response:
        return JSONResponse({"jwks_uri": f"{request.base_url}keys"})

    async def jwks(_: Request) -> Response:
        return JSONResponse(keys_body)

    return [Route("/openid", openid), Route("/keys", jwks)]


def _metadata(body: Any) -> list[Route]:
    async def openid(_: Request) -> Response:
        return JSONResponse(body)

    return [Route("/openid", openid)]


@pytest.mark.parametrize(
    "routes",
    [
        pytest.param(_metadata({"issuer": "x"}), id="metadata-without-jwks-uri"),
        pytest.param(_metadata(["not", "an", "object"]), id="metadata-not-an-object"),
        pytest.param(_metadata_then({"keys": "not a list"}), id="keys-not-a-list"),
        pytest.param(_metadata_then({"keys": []}), id="no-keys"),
        pytest.param(
            _metadata_then({"keys": [_jwk(kid=""), _jwk(kty="EC"), "garbage", _jwk(n="!", e="!")]}),
            id="no-usable-rsa-key",
        ),
    ],
)
async def test_metadata_or_keys_without_a_usable_key_are_unavailable(http, clock, routes):
    async with serve_asgi(Starlette(routes=routes)) as url:
        keys = SigningKeys(metadata_url=f"{url}/openid", http=http, clock=clock)
        with pytest.raises(KeysUnavailable):
            await keys.get("k")


@pytest.mark.parametrize(
    ("endorsements", "read"),
    [
        (["msteams", "webchat"], {"msteams", "webchat"}),
        (["msteams", 7, None], {"msteams"}),
        ("msteams", set()),
        (None, set()),
    ],
)
async def test_each_key_keeps_its_endorsements(http, clock, endorsements, read):
    entry = _jwk() if endorsements is None else _jwk(endorsements=endorsements)
    async with serve_asgi(Starlette(routes=_metadata_then({"keys": [entry]}))) as url:
        keys = SigningKeys(metadata_url=f"{url}/openid", http=http, clock=clock)
        key = await keys.get("k")
    assert key is not None
    assert key.endorsements == read
