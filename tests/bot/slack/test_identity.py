"""Who is asking on Slack: a `users.info` body as an identity, and the resolver's cache."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from bot.authz import IDENTITY_CACHE_PREFIX, Identity
from bot.slack.identity import SlackIdentityResolver, identity_from_slack_user
from tests.bot.slack.fake_slack import TEAM_ID

HOME = "T0HOME"


def users_info(**user: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "U1",
        "team_id": HOME,
        "is_email_confirmed": True,
        "profile": {"email": "alice@acme.ai", "real_name": "Alice"},
    }
    body.update(user)
    return {"ok": True, "user": body}


#: id: (users.info body, installing enterprise, expected (email, guest, external, failed))
CASES: dict[str, tuple[dict[str, Any], str | None, tuple[str | None, bool, bool, str | None]]] = {
    "member": (users_info(), None, ("alice@acme.ai", False, False, None)),
    "unconfirmed e-mail": (users_info(is_email_confirmed=False), None, (None, False, False, None)),
    "confirmation missing": (
        {"ok": True, "user": {"team_id": HOME, "profile": {"email": "a@acme.ai"}}},
        None,
        (None, False, False, None),
    ),
    "no e-mail scope": (
        users_info(profile={"real_name": "Alice"}),
        None,
        (None, False, False, None),
    ),
    "not an e-mail": (users_info(profile={"email": "alice"}), None, (None, False, False, None)),
    "a bot": (users_info(is_bot=True), None, (None, False, False, None)),
    "multi-channel guest": (
        users_info(is_restricted=True),
        None,
        ("alice@acme.ai", True, False, None),
    ),
    "single-channel guest": (
        users_info(is_ultra_restricted=True),
        None,
        ("alice@acme.ai", True, False, None),
    ),
    "Slack Connect user": (
        users_info(team_id="T0OTHER"),
        None,
        ("alice@acme.ai", False, True, None),
    ),
    "other workspace, same grid": (
        users_info(team_id="T0OTHER", enterprise_user={"enterprise_id": "E1"}),
        "E1",
        ("alice@acme.ai", False, False, None),
    ),
    "other workspace, other grid": (
        users_info(team_id="T0OTHER", enterprise_user={"enterprise_id": "E2"}),
        "E1",
        ("alice@acme.ai", False, True, None),
    ),
    "external guest": (
        users_info(team_id="T0OTHER", is_restricted=True),
        None,
        ("alice@acme.ai", True, True, None),
    ),
    "not ok": ({"ok": False, "error": "user_not_found"}, None, (None, False, False, "users.info")),
    "no user": ({"ok": True}, None, (None, False, False, "users.info")),
}


@pytest.mark.parametrize(("body", "enterprise", "expected"), CASES.values(), ids=CASES.keys())
def test_identity_from_slack_user(body, enterprise, expected):
    identity = identity_from_slack_user(
        body, team_id=HOME, user_id="U1", installing_team=HOME, installing_enterprise=enterprise
    )
    assert (identity.email, identity.is_guest, identity.is_external, identity.lookup_failed) == (
        expected
    )
    assert (identity.platform, identity.team_id, identity.user_id) == ("slack", HOME, "U1")


class UsersInfo:
    """An async `users.info` that counts its calls and can fail."""

    def __init__(self, body: dict[str, Any] | None = None, *, error: Exception | None = None):
        self.body = body or users_info()
        self.error = error
        self.calls: list[str] = []

    async def __call__(self, user_id: str) -> dict[str, Any]:
        self.calls.append(user_id)
        await asyncio.sleep(0)
        if self.error is not None:
            raise self.error
        return self.body


async def test_the_resolver_caches_the_identity_in_redis_for_a_few_minutes(redis_client):
    fetch = UsersInfo()
    resolver = SlackIdentityResolver(fetch, installing_team=HOME, redis_client=redis_client)
    first = await resolver.resolve("U1")
    second = await resolver.resolve("U1")
    assert first == second == Identity("slack", HOME, "U1", "alice@acme.ai")
    assert fetch.calls == ["U1"]
    key = f"{IDENTITY_CACHE_PREFIX}{HOME}:U1"
    assert await redis_client.keys("runai-why:authz:*") == [key]
    assert 0 < await redis_client.ttl(key) <= 300


async def test_a_failed_lookup_is_not_cached(redis_client):
    fetch = UsersInfo(error=TimeoutError())
    resolver = SlackIdentityResolver(fetch, installing_team=HOME, redis_client=redis_client)
    identity = await resolver.resolve("U1")
    assert (identity.email, identity.lookup_failed) == (None, "users.info")
    fetch.error = None
    assert (await resolver.resolve("U1")).email == "alice@acme.ai"
    assert fetch.calls == ["U1", "U1"]


async def test_without_redis_every_resolve_asks_slack():
    fetch = UsersInfo(users_info(team_id="T0OTHER"))
    resolver = SlackIdentityResolver(fetch, installing_team=HOME)
    assert (await resolver.resolve("U1", team_id="T0OTHER")).is_external
    assert (await resolver.resolve("U1", team_id="T0OTHER")).team_id == "T0OTHER"
    assert len(fetch.calls) == 2


def test_a_profile_that_is_not_an_object_has_no_e_mail():
    body = users_info(profile="alice@acme.ai")
    identity = identity_from_slack_user(body, team_id=HOME, user_id="U1", installing_team=HOME)
    assert identity.email is None


async def test_a_redis_outage_costs_a_lookup_not_the_identity():
    import redis.asyncio as redis  # noqa: PLC0415 - a client on a closed port, for this test only
    from redis.asyncio.retry import Retry  # noqa: PLC0415
    from redis.backoff import NoBackoff  # noqa: PLC0415

    # redis-py retries a refused connection with backoff by default: refuse once, at once.
    dead = redis.Redis(host="127.0.0.1", port=1, retry=Retry(NoBackoff(), 0))
    fetch = UsersInfo()
    resolver = SlackIdentityResolver(fetch, installing_team=HOME, redis_client=dead)
    try:
        assert (await resolver.resolve("U1")).email == "alice@acme.ai"
        assert (await resolver.resolve("U1")).email == "alice@acme.ai"
    finally:
        await dead.aclose()
    assert fetch.calls == ["U1", "U1"]


# ---------------------------------------------------------------- against the fake Slack


async def test_the_resolver_reads_the_fake_slacks_users_info(fake_slack, redis_client):
    headers = {"Authorization": "Bearer xoxb-test"}
    async with httpx.AsyncClient(base_url=fake_slack.base_url, headers=headers) as http:

        async def users_info(user_id: str) -> dict[str, Any]:
            response = await http.post("users.info", data={"user": user_id})
            return dict(response.json())

        fake_slack.users["UGUEST"] = {"is_restricted": True}
        fake_slack.users["UCONNECT"] = {"team_id": "T9OTHER"}
        resolver = SlackIdentityResolver(
            users_info, installing_team=TEAM_ID, redis_client=redis_client
        )
        member = await resolver.resolve("U123")
        guest = await resolver.resolve("UGUEST")
        external = await resolver.resolve("UCONNECT")
    assert (member.email, member.is_guest, member.is_external) == (
        "user-u123@example.com",
        False,
        False,
    )
    assert (guest.is_guest, external.is_external) == (True, True)
    assert len(fake_slack.calls("users.info")) == 3
    async with httpx.AsyncClient(base_url=fake_slack.base_url) as http:  # no token: not ok
        unauthed = SlackIdentityResolver(users_info, installing_team=TEAM_ID)
        assert (await unauthed.resolve("U999")).lookup_failed == "users.info"
