"""A Teams member record as authorization's `Identity`, and the cached lookup."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import redis.asyncio as redis
from microsoft_teams.api import TeamsChannelAccount
from pydantic import SecretStr

from bot.conversation import Incoming, ThreadKey
from bot.teams.activity import read_activity
from bot.teams.connector import TeamsConnector
from bot.teams.identity import MEMBER_CALL, TeamsIdentify, identity_from_member
from bot.teams.token import BotToken
from tests.bot.teams.fake_teams import APP_ID, BOT_ID, PASSWORD, TENANT, FakeTeams

BASE = "http://teams.test"
INBOUND = read_activity(
    {
        "type": "message",
        "id": "1",
        "serviceUrl": BASE,
        "from": {"id": "29:u1"},
        "recipient": {"id": BOT_ID},
        "conversation": {"id": "a:chat", "conversationType": "personal", "tenantId": TENANT},
        "text": "hi",
    }
)
INCOMING = Incoming(ThreadKey("teams", TENANT, "a:chat", "chat"), "29:u1", text="hi")


@pytest.mark.parametrize(
    ("member", "expected"),
    [
        pytest.param(
            {"email": "Bob@acme.ai ", "tenantId": TENANT},
            ("Bob@acme.ai", False, False),
            id="member",
        ),
        pytest.param(
            {"userPrincipalName": "bob@acme.ai"}, ("bob@acme.ai", False, False), id="upn-only"
        ),
        pytest.param({"email": "not-an-address"}, (None, False, False), id="no-address"),
        pytest.param(
            {"email": "g@x.io", "userRole": "guest", "tenantId": TENANT},
            ("g@x.io", True, False),
            id="guest",
        ),
        pytest.param(
            {"userPrincipalName": "g_x.io#EXT#@acme.onmicrosoft.com"},
            ("g_x.io#EXT#@acme.onmicrosoft.com", True, False),
            id="ext-upn",
        ),
        pytest.param(
            {"email": "e@other.io", "tenantId": "other"}, ("e@other.io", False, True), id="other"
        ),
    ],
)
def test_identity_from_member(member: dict[str, Any], expected):
    account = TeamsChannelAccount.model_validate({"id": "29:u1", **member})
    identity = identity_from_member(account, inbound=INBOUND, tenant=TENANT)
    assert (identity.email, identity.is_guest, identity.is_external) == expected
    assert (identity.platform, identity.team_id, identity.user_id) == ("teams", TENANT, "29:u1")


def test_a_request_through_another_tenant_is_external():
    account = TeamsChannelAccount.model_validate({"id": "29:u1", "email": "b@acme.ai"})
    assert identity_from_member(account, inbound=INBOUND, tenant="configured").is_external


def _identify(teams: FakeTeams, redis_client, inbound=INBOUND) -> TeamsIdentify:
    http = httpx.AsyncClient(transport=httpx.ASGITransport(app=teams.app()), base_url=BASE)
    token = BotToken(
        login_url=f"{BASE}/token", app_id=APP_ID, password=SecretStr(PASSWORD), http=http
    )
    return TeamsIdentify(
        TeamsConnector(http, token),
        tenant=TENANT,
        inbound_of=lambda _: inbound,
        redis_client=redis_client,
    )


@pytest.mark.e2e
async def test_a_lookup_is_cached_in_redis(redis_client):
    teams = FakeTeams(url=BASE)
    teams.members["29:u1"] = {"email": "bob@acme.ai", "tenantId": TENANT}
    identify = _identify(teams, redis_client)
    first = await identify(INCOMING)
    again = await identify(INCOMING)
    assert first == again
    assert first.email == "bob@acme.ai"
    assert len(teams.of("member")) == 1


@pytest.mark.e2e
async def test_a_failed_lookup_means_access_could_not_be_checked(redis_client):
    teams = FakeTeams(url=BASE)  # no member record: 404
    identity = await _identify(teams, redis_client)(INCOMING)
    assert identity.lookup_failed == MEMBER_CALL
    assert identity.email is None
    assert await redis_client.keys("*") == []  # a failure is never cached


async def test_an_incoming_without_its_activity_is_unchecked(redis_client):
    identity = await _identify(FakeTeams(url=BASE), redis_client, inbound=None)(INCOMING)
    assert identity.lookup_failed == MEMBER_CALL


@pytest.mark.e2e
async def test_a_broken_cache_only_costs_a_lookup():
    teams = FakeTeams(url=BASE)
    teams.members["29:u1"] = {"email": "bob@acme.ai", "tenantId": TENANT}
    dead = redis.Redis.from_url("redis://127.0.0.1:9/0", socket_connect_timeout=1)
    identity = await _identify(teams, dead)(INCOMING)
    assert identity.email == "bob@acme.ai"
    await dead.aclose()
