"""The outbound token and the Bot Connector client, in-process over the fake's ASGI app."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from pydantic import SecretStr

from bot.teams.connector import ConnectorError, TeamsConnector
from bot.teams.token import BotToken, TokenUnavailable
from runai_sim.server import serve_asgi
from tests.bot.teams.fake_teams import APP_ID, PASSWORD, TENANT, FakeTeams

BASE = "http://teams.test"


@pytest.fixture
async def teams() -> FakeTeams:
    fake = FakeTeams(url=BASE)
    fake.members["29:u1"] = {"email": "bob@acme.ai", "tenantId": TENANT}
    return fake


def _http(teams: FakeTeams) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=teams.app()), base_url=BASE)


def _token(http: httpx.AsyncClient, password: str = PASSWORD, clock=None) -> BotToken:
    extra = {"clock": clock} if clock else {}
    return BotToken(
        login_url=f"{BASE}/token",
        app_id=APP_ID,
        password=SecretStr(password),
        http=http,
        **extra,
    )


async def test_the_token_is_fetched_once_for_concurrent_callers_and_reused(teams: FakeTeams):
    async with _http(teams) as http:
        token = _token(http)
        got = await asyncio.gather(*(token.get() for _ in range(5)))
        assert set(got) == {"outbound-token"}
        assert await token.get() == "outbound-token"
    [call] = teams.of("token")
    assert call.body["grant_type"] == "client_credentials"
    assert call.body["scope"] == "https://api.botframework.com/.default"


async def test_an_expired_token_is_fetched_again(teams: FakeTeams):
    now = [0.0]
    async with _http(teams) as http:
        token = _token(http, clock=lambda: now[0])
        await token.get()
        now[0] = 3600.0 - 59  # within the last minute of its hour: renewed early
        await token.get()
    assert len(teams.of("token")) == 2


@pytest.mark.parametrize(
    ("script", "password", "message"),
    [
        pytest.param(None, "wrong", "answered 401", id="refused"),
        pytest.param(500, PASSWORD, "answered 500", id="server-error"),
    ],
)
async def test_a_refused_token_says_why_without_the_secret(
    teams: FakeTeams, script, password, message
):
    if script:
        teams.fail_next("token", script)
    async with _http(teams) as http:
        with pytest.raises(TokenUnavailable, match=message) as caught:
            await _token(http, password).get()
    assert password not in str(caught.value)


DEEP = b"[" * 100_000 + b"]" * 100_000  # json.loads gives up on it with a RecursionError


@pytest.mark.parametrize("body", [b"{}", DEEP], ids=["no token", "nested too deep"])
async def test_a_token_answer_without_access_token_is_unavailable(body: bytes):
    async def login(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": body})

    http = httpx.AsyncClient(transport=httpx.ASGITransport(app=login), base_url=BASE)
    async with http:
        with pytest.raises(TokenUnavailable, match="no access_token"):
            await _token(http).get()


async def test_an_unreachable_login_endpoint_is_unavailable():
    async with httpx.AsyncClient() as http:
        token = BotToken(
            login_url="http://127.0.0.1:9/token",
            app_id=APP_ID,
            password=SecretStr(PASSWORD),
            http=http,
        )
        with pytest.raises(TokenUnavailable, match="unreachable"):
            await token.get()


async def test_a_throttled_send_is_retried_after_retry_after(teams: FakeTeams):
    teams.fail_next("send", 429, **{"Retry-After": "0"})
    teams.fail_next("send", 503, **{"Retry-After": "soon"})
    async with _http(teams) as http:
        connector = TeamsConnector(http, _token(http))
        ref = await connector.send(BASE, "19:c;messageid=1", {"type": "message"}, reply_to="1")
    sends = teams.of("send")
    assert len(sends) == 3
    assert ref == sends[-1].activity_id
    assert sends[-1].body["replyToId"] == "1"
    assert sends[-1].path == "/v3/conversations/19%3Ac%3Bmessageid%3D1/activities"


async def test_a_401_renews_the_token_once(teams: FakeTeams):
    teams.fail_next("update", 401)
    async with _http(teams) as http:
        connector = TeamsConnector(http, _token(http))
        await connector.update(BASE, "19:c", "act-1", {"type": "message"})
    assert len(teams.of("token")) == 2
    assert [c.body["id"] for c in teams.of("update")] == ["act-1", "act-1"]


@pytest.mark.parametrize("status", [404, 500])
async def test_a_failed_call_raises_with_its_status(teams: FakeTeams, status: int):
    teams.fail_next("member", status)
    teams.fail_next("member", status)
    teams.fail_next("member", status)
    async with _http(teams) as http:
        connector = TeamsConnector(http, _token(http))
        with pytest.raises(ConnectorError) as caught:
            await connector.member(BASE, "19:c", "29:u1")
    assert caught.value.status == status
    assert caught.value.call == "member"


async def test_retries_give_up_after_three_attempts(teams: FakeTeams):
    for _ in range(3):
        teams.fail_next("send", 502, **{"Retry-After": "0"})
    async with _http(teams) as http:
        connector = TeamsConnector(http, _token(http))
        with pytest.raises(ConnectorError, match="502"):
            await connector.send(BASE, "19:c", {"type": "message"})
    assert len(teams.of("send")) == 3


async def test_a_member_lookup_and_a_personal_chat(teams: FakeTeams):
    async with _http(teams) as http:
        connector = TeamsConnector(http, _token(http))
        member = await connector.member(BASE, "19:c", "29:u1")
        chat = await connector.personal_chat(
            BASE, bot_id="28:bot", user_id="29:u1", tenant_id=TENANT
        )
    assert member["email"] == "bob@acme.ai"
    assert chat == "a:personal-29:u1"
    [created] = teams.of("create")
    assert created.body["bot"] == {"id": "28:bot"}
    assert created.body["tenantId"] == TENANT


@pytest.mark.parametrize("answer", [b"[]", DEEP], ids=["a list", "nested too deep"])
async def test_a_personal_chat_answer_without_an_id_is_an_error(answer: bytes):
    async def connector_app(scope, receive, send):
        if scope["type"] != "http":
            return
        body = b'{"access_token": "t", "expires_in": 3600}' if "token" in scope["path"] else answer
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": body})

    transport = httpx.ASGITransport(app=connector_app)
    async with httpx.AsyncClient(transport=transport, base_url=BASE) as http:
        connector = TeamsConnector(http, _token(http))
        with pytest.raises(ConnectorError, match="create conversation"):
            await connector.personal_chat(BASE, bot_id="28:b", user_id="29:u", tenant_id="t")
        assert await connector.send(BASE, "19:c", {"type": "message"}) == ""


@pytest.mark.e2e
async def test_an_unreachable_connector_is_an_error_with_no_status(teams: FakeTeams):
    async with serve_asgi(teams.app()) as url, httpx.AsyncClient() as http:
        token = BotToken(
            login_url=f"{url}/token", app_id=APP_ID, password=SecretStr(PASSWORD), http=http
        )
        connector = TeamsConnector(http, token)
        with pytest.raises(ConnectorError) as caught:
            await connector.send("http://127.0.0.1:9", "19:c", {"type": "message"})
    assert caught.value.status == 0


async def test_a_401_on_the_last_attempt_is_an_error(teams: FakeTeams):
    teams.fail_next("send", 429, **{"Retry-After": "0"})
    teams.fail_next("send", 429, **{"Retry-After": "0"})
    teams.fail_next("send", 401)
    async with _http(teams) as http:
        connector = TeamsConnector(http, _token(http))
        with pytest.raises(ConnectorError, match="401"):
            await connector.send(BASE, "19:c", {"type": "message"})
