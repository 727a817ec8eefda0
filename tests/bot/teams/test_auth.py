"""The inbound JWT gate over real HTTP against the fake identity provider's metadata and keys."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import jwt
import pytest
import structlog.testing

from bot.config import DEDUPE_TTL_S, MAX_TOKEN_LIFETIME_S, Settings
from bot.ops.metrics import TEAMS_TOKENS_REJECTED
from bot.teams.auth import (
    LEEWAY_S,
    BotClaims,
    InboundVerifier,
    KeysUnavailable,
    TokenRejected,
    channel_endorsed,
    service_url_matches,
)
from bot.teams.signing_keys import SigningKeys
from runai_sim.server import serve_asgi
from tests.bot.teams.fake_teams import APP_ID, ISSUER, FakeTeams, new_key

pytestmark = pytest.mark.e2e


@pytest.fixture
async def teams() -> AsyncIterator[FakeTeams]:
    fake = FakeTeams()
    async with serve_asgi(fake.app()) as url:
        fake.url = url
        yield fake


@pytest.fixture
async def verifier(teams: FakeTeams) -> AsyncIterator[InboundVerifier]:
    async with httpx.AsyncClient(timeout=10) as http:
        keys = SigningKeys(metadata_url=f"{teams.url}/openid", http=http)
        gate = InboundVerifier(app_id=APP_ID, issuer=ISSUER, keys=keys)
        try:
            yield gate
        finally:
            await gate.aclose()


async def test_a_valid_token_gives_its_service_url_and_endorsements(teams, verifier):
    claims = await verifier.verify(f"Bearer {teams.token(service_url='https://smba/x/')}")
    assert claims == BotClaims(
        audience=APP_ID, service_url="https://smba/x/", endorsements=frozenset({"msteams", "skype"})
    )
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
        pytest.param(
            "Bearer " + jwt.encode({"aud": APP_ID, "iss": ISSUER}, new_key(), algorithm="RS256"),
            "names no key",
            id="no-kid",
        ),
    ],
)
async def test_headers_refused_before_any_key_is_fetched(teams, verifier, header: str, why: str):
    with pytest.raises(TokenRejected, match=why):
        await verifier.verify(header)
    assert teams.of("openid") == []
    assert teams.of("keys") == []


@pytest.mark.parametrize(
    ("token", "why"),
    [
        pytest.param(lambda t: t.token(key=new_key()), "Signature", id="forged"),
        pytest.param(lambda t: t.token(kid="unknown"), "unknown key", id="unknown-kid"),
        pytest.param(lambda t: t.token(expires_in=-3600), "Expired", id="expired"),
        pytest.param(lambda t: t.token(audience="someone-else"), "Audience", id="audience"),
        pytest.param(lambda t: t.token(issuer="https://evil.example"), "Issuer", id="issuer"),
    ],
)
async def test_tokens_the_keys_do_not_vouch_for_are_rejected(teams, verifier, token, why):
    with pytest.raises(TokenRejected, match=why):
        await verifier.verify(f"Bearer {token(teams)}")


@pytest.mark.parametrize(
    ("expires_in", "accepted"),
    [
        pytest.param(3600, True, id="an hour, as the Bot Framework's"),
        pytest.param(MAX_TOKEN_LIFETIME_S, True, id="as long as may be"),
        pytest.param(MAX_TOKEN_LIFETIME_S + 60, False, id="longer"),
        pytest.param(30 * 86400, False, id="a month"),
    ],
)
async def test_a_token_living_longer_than_its_activity_is_remembered_is_refused(
    teams, verifier, expires_in, accepted
):
    """Accepted, a token carrying an activity could be replayed after the activity is forgotten."""
    token = f"Bearer {teams.token(expires_in=expires_in)}"
    if accepted:
        await verifier.verify(token)
        return
    with pytest.raises(TokenRejected, match="lives longer than TEAMS_MAX_TOKEN_LIFETIME_S"):
        await verifier.verify(token)


async def test_a_token_refused_for_its_lifetime_says_so_to_the_admin(teams, verifier):
    """Logged with its lifetime and issuer (never the token) and counted, to tell what to raise."""
    counted = TEAMS_TOKENS_REJECTED.labels(reason="lifetime")
    before = counted._value.get()
    token = teams.token(expires_in=MAX_TOKEN_LIFETIME_S + 3600)
    with structlog.testing.capture_logs() as logs, pytest.raises(TokenRejected):
        await verifier.verify(f"Bearer {token}")
    [logged] = [e for e in logs if e["event"] == "teams_token_lifetime_refused"]
    assert logged["iss"] == ISSUER
    assert MAX_TOKEN_LIFETIME_S + 3500 < logged["exp_in_s"] <= MAX_TOKEN_LIFETIME_S + 3600
    assert logged["max_lifetime_s"] == MAX_TOKEN_LIFETIME_S
    assert token not in repr(logs)
    assert counted._value.get() == before + 1


def test_an_activity_is_remembered_as_long_as_its_token_is_accepted():
    """First seen at t, a token expires by t + its longest life, and is accepted till + leeway."""
    settings = Settings(_env_file=None, teams_max_token_lifetime_s=7200)
    assert settings.teams.replay_window_s == 7200 + LEEWAY_S
    assert Settings(_env_file=None).teams.replay_window_s > DEDUPE_TTL_S


async def test_a_token_with_an_empty_serviceurl_claim_matches_nothing(teams, verifier):
    claims = await verifier.verify(f"Bearer {teams.token(service_url='')}")
    assert not claims.service_url
    assert not service_url_matches(claims, "https://smba/x/")


async def test_keys_that_cannot_be_fetched_leave_the_token_unjudged(teams, verifier):
    teams.fail_next("keys", 500)
    with pytest.raises(KeysUnavailable) as unavailable:
        await verifier.verify(f"Bearer {teams.token()}")
    assert 0 < unavailable.value.retry_after_s <= verifier.keys.timing.retry_first_s


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


@pytest.mark.parametrize(
    ("endorsements", "channel_id", "endorsed"),
    [
        pytest.param({"msteams", "skype"}, "msteams", True, id="teams"),
        pytest.param({"webchat"}, "msteams", False, id="key-for-another-channel"),
        pytest.param({"msteams"}, "webchat", False, id="activity-from-another-channel"),
        pytest.param({"msteams"}, "MSTEAMS", False, id="exact"),
        pytest.param(set(), "msteams", False, id="key-endorses-nothing"),
        pytest.param({"msteams", ""}, "", False, id="empty-channel"),
        pytest.param({"msteams"}, None, False, id="no-channel"),
        pytest.param({"msteams"}, ["msteams"], False, id="not-a-string"),
    ],
)
def test_channel_endorsed(endorsements, channel_id, endorsed):
    claims = BotClaims(APP_ID, "https://smba/x/", frozenset(endorsements))
    assert channel_endorsed(claims, channel_id) is endorsed
