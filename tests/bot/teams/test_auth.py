"""The inbound JWT gate against the fake identity provider's metadata and keys (in-process)."""

from __future__ import annotations

import httpx
import jwt
import pytest
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

from bot.teams.auth import BotClaims, InboundVerifier, TokenRejected, service_url_matches
from tests.bot.teams.fake_teams import APP_ID, ISSUER, FakeTeams

BASE = "http://login.test"


@pytest.fixture
async def teams() -> FakeTeams:
    return FakeTeams(url=BASE)


def _verifier(app, metadata: str = f"{BASE}/openid") -> InboundVerifier:
    http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE)
    return InboundVerifier(app_id=APP_ID, metadata_url=metadata, issuer=ISSUER, http=http)


async def test_a_valid_token_gives_its_service_url(teams: FakeTeams):
    verifier = _verifier(teams.app())
    claims = await verifier.verify(f"Bearer {teams.token(service_url='https://smba/x/')}")
    assert claims == BotClaims(audience=APP_ID, service_url="https://smba/x/")
    await verifier.verify(f"bearer {teams.token()}")  # the scheme is case-insensitive
    assert len(teams.of("keys")) == 1  # cached


@pytest.mark.parametrize(
    ("header", "why"),
    [
        pytest.param("", "no bearer token", id="empty"),
        pytest.param("Basic dXNlcjpwYXNz", "no bearer token", id="basic"),
        pytest.param("Bearer " + "a" * 20_000, "too long", id="too-long"),
        pytest.param("Bearer a.b.c", "malformed", id="malformed"),
        pytest.param(
            "Bearer " + jwt.encode({"aud": APP_ID}, "k" * 32, algorithm="HS256"),
            "RS256",
            id="hs256",
        ),
    ],
)
async def test_headers_refused_before_any_key_is_fetched(teams: FakeTeams, header: str, why: str):
    with pytest.raises(TokenRejected, match=why):
        await _verifier(teams.app()).verify(header)
    assert teams.of("keys") == []


async def test_a_token_naming_no_key_is_refused(teams: FakeTeams):
    token = jwt.encode({"aud": APP_ID, "iss": ISSUER}, teams.key, algorithm="RS256")
    with pytest.raises(TokenRejected, match="names no key"):
        await _verifier(teams.app()).verify(f"Bearer {token}")


async def test_a_token_with_an_empty_serviceurl_claim_matches_nothing(teams: FakeTeams):
    claims = await _verifier(teams.app()).verify(f"Bearer {teams.token(service_url='')}")
    assert not claims.service_url
    assert not service_url_matches(claims, "https://smba/x/")


async def test_keys_that_cannot_be_fetched_refuse_every_token(teams: FakeTeams):
    teams.fail_next("keys", 500)
    verifier = _verifier(teams.app())
    verifier.refetch_after_s = 0
    with pytest.raises(TokenRejected, match="unknown key"):
        await verifier.verify(f"Bearer {teams.token()}")
    await verifier.verify(f"Bearer {teams.token()}")  # the issuer is back: fetched again


@pytest.mark.parametrize(
    "metadata",
    [
        pytest.param({"issuer": ISSUER}, id="no-jwks-uri"),
        pytest.param(["not", "an", "object"], id="not-an-object"),
    ],
)
async def test_metadata_without_keys_refuses_every_token(teams: FakeTeams, metadata):
    async def openid(_):
        return JSONResponse(metadata)

    app = Starlette(routes=[Route("/openid", openid)])
    with pytest.raises(TokenRejected, match="unknown key"):
        await _verifier(app).verify(f"Bearer {teams.token()}")


@pytest.mark.parametrize(
    ("claim", "activity", "matches"),
    [
        ("https://smba.trafficmanager.net/teams/", "https://smba.trafficmanager.net/teams/", True),
        ("https://smba.trafficmanager.net/teams", "https://SMBA.trafficmanager.net/teams/", True),
        ("https://smba.trafficmanager.net/teams/", "https://evil.example/teams/", False),
        ("https://smba.trafficmanager.net/teams/", "", False),
        (None, "https://smba.trafficmanager.net/teams/", False),
    ],
)
def test_service_url_matches(claim, activity, matches):
    assert service_url_matches(BotClaims(APP_ID, claim), activity) is matches
