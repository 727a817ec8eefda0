"""The authorizer around the decision: fail closed, the per-user cache, guests, externals, off."""

from __future__ import annotations

import json

import pytest
from structlog.testing import capture_logs

from bot.authz import (
    ANY_KIND,
    DECISION_CACHE_PREFIX,
    Authorizer,
    Decision,
    Identity,
    Reason,
    Target,
)
from bot.config import Settings
from tests.bot.authz.model import ALICE, authorizer, backends, scenario, target

VIEWER_ON_NLP = [("user", ALICE, 2, "project", "p-nlp-a")]
AUTHZ_PATHS = ("/api/v1/authorization/", "/api/v1/users", "/api/v1/org-unit/")


def authz_requests(found) -> list[str]:
    return [r.path for r in found.simulator.requests if r.path.startswith(AUTHZ_PATHS)]


# ---------------------------------------------------------------- fail closed

FAILURES = {
    "access rules 500": (
        "/api/v1/authorization/access-rules",
        {"status": 500},
        "list_access_rules",
    ),
    "access rules 403": (
        "/api/v1/authorization/access-rules",
        {"status": 403},
        "list_access_rules",
    ),
    "access rules malformed": (
        "/api/v1/authorization/access-rules",
        {"body": "malformed"},
        "list_access_rules",
    ),
    "access rules wrong shape": (
        "/api/v1/authorization/access-rules",
        {"body": {"rules": []}},
        "list_access_rules",
    ),
    "users 503": ("/api/v1/users", {"status": 503}, "find_users"),
    "users not a list": ("/api/v1/users", {"body": {"users": []}}, "find_users"),
    "roles 500": ("/api/v1/authorization/roles", {"status": 500}, "list_roles"),
    "roles without ids": ("/api/v1/authorization/roles", {"body": [{"name": "x"}]}, "list_roles"),
    "projects 503": ("/api/v1/org-unit/projects", {"status": 503}, "list_projects"),
    "projects empty body": ("/api/v1/org-unit/projects", {"body": "empty"}, "list_projects"),
}


@pytest.mark.parametrize(("path", "fault", "call"), FAILURES.values(), ids=FAILURES.keys())
async def test_a_failing_authorization_endpoint_fails_closed(path, fault, call):
    async with backends(scenario(rules=VIEWER_ON_NLP)) as found:
        assert found.simulator is not None
        found.simulator.add_fault({"path": path, **fault})
        decision = await authorizer(found).check(Identity.console(ALICE), target("A", "nlp"))
    assert (decision.allowed, decision.reason, decision.failed_call) == (
        False,
        Reason.UNCHECKED,
        call,
    )
    assert not decision.allows_kind("Training")
    assert "could not be checked" in decision.message()


async def test_a_failing_department_lookup_fails_closed():
    rules = [("user", ALICE, 2, "department", "d-research")]
    projects = "/api/v1/org-unit/projects"
    async with backends(scenario(rules=rules)) as found:
        assert found.simulator is not None
        allowed = await authorizer(found).check(Identity.console(ALICE), target("A", "nlp"))
        # the project lookup (by name) passes; the department's projects (by parent) fail
        found.simulator.add_fault({"path": projects, "count": 1})
        found.simulator.add_fault({"path": projects, "status": 500})
        failed = await authorizer(found).check(Identity.console(ALICE), target("A", "vision"))
        asked = [r.query.get("filterBy") for r in found.simulator.requests if r.path == projects]
    assert allowed.allowed
    assert (failed.reason, failed.failed_call) == (Reason.UNCHECKED, "list_projects")
    assert asked[-1] == ["parentId==d-research"]


async def test_a_failed_identity_lookup_is_unchecked_not_denied():
    identity = Identity("slack", "T1", "U1", None, lookup_failed="users.info")
    async with backends(scenario(rules=VIEWER_ON_NLP)) as found:
        decision = await authorizer(found).check(identity, target("A", "nlp"))
        assert authz_requests(found) == []
    assert (decision.reason, decision.failed_call) == (Reason.UNCHECKED, "users.info")


# ---------------------------------------------------------------- the cache


async def test_decisions_are_cached_per_user_and_project_in_redis(redis_client):
    now = [1000.0]
    async with backends(scenario(rules=VIEWER_ON_NLP)) as found:
        authz = authorizer(found, redis_client=redis_client, cache_ttl_s=60, clock=lambda: now[0])
        first = await authz.check(Identity.console(ALICE), target("A", "nlp"))
        calls = len(authz_requests(found))
        again = await authz.check(Identity.console("Alice@Acme.ai"), target("A", "nlp", "Training"))
        assert len(authz_requests(found)) == calls  # answered from the cache
        other = await authz.check(Identity.console(ALICE), target("A", "vision"))
        assert len(authz_requests(found)) > calls  # another project is another entry
        now[0] += 60
        calls = len(authz_requests(found))
        await authz.check(Identity.console(ALICE), target("A", "nlp"))
        assert len(authz_requests(found)) > calls  # expired
    assert (first.allowed, again.allowed, other.allowed) == (True, True, False)
    key = f"{DECISION_CACHE_PREFIX}{ALICE}"
    assert await redis_client.keys("runai-why:authz:*") == [key]
    entry = json.loads(await redis_client.hget(key, f"{target('A', 'nlp').cluster_id}/nlp"))
    assert entry["readable"] == ["workloads"]
    assert 0 < await redis_client.ttl(key) <= 60


async def test_forget_drops_a_persons_cached_decisions(redis_client):
    async with backends(scenario(rules=VIEWER_ON_NLP)) as found:
        authz = authorizer(found, redis_client=redis_client)
        await authz.check(Identity.console(ALICE), target("A", "nlp"))
        await authz.forget("ALICE@acme.ai")
        assert await redis_client.keys("runai-why:authz:*") == []
        calls = len(authz_requests(found))
        await authz.check(Identity.console(ALICE), target("A", "nlp"))
        assert len(authz_requests(found)) > calls


async def test_failures_are_not_cached(redis_client):
    async with backends(scenario(rules=VIEWER_ON_NLP)) as found:
        assert found.simulator is not None
        authz = authorizer(found, redis_client=redis_client)
        found.simulator.add_fault(
            {"path": "/api/v1/authorization/roles", "status": 500, "count": 1}
        )
        failed = await authz.check(Identity.console(ALICE), target("A", "nlp"))
        assert await redis_client.keys("*") == []
        retried = await authz.check(Identity.console(ALICE), target("A", "nlp"))
    assert (failed.reason, retried.reason) == (Reason.UNCHECKED, Reason.ALLOWED)


async def test_a_redis_outage_costs_lookups_not_answers(redis_url):
    import redis.asyncio as redis  # noqa: PLC0415 - a client on a closed port, for this test only
    from redis.asyncio.retry import Retry  # noqa: PLC0415
    from redis.backoff import NoBackoff  # noqa: PLC0415

    # redis-py retries a refused connection with backoff by default: refuse once, at once.
    dead = redis.Redis(host="127.0.0.1", port=1, retry=Retry(NoBackoff(), 0))
    async with backends(scenario(rules=VIEWER_ON_NLP)) as found:
        decision = await authorizer(found, redis_client=dead).check(
            Identity.console(ALICE), target("A", "nlp")
        )
    await dead.aclose()
    assert decision.allowed


async def test_without_a_cache_every_check_asks_run_ai():
    async with backends(scenario(rules=VIEWER_ON_NLP)) as found:
        authz = authorizer(found, cache_ttl_s=60)
        await authz.check(Identity.console(ALICE), target("A", "nlp"))
        calls = len(authz_requests(found))
        await authz.check(Identity.console(ALICE), target("A", "nlp"))
        assert len(authz_requests(found)) == 2 * calls


# ---------------------------------------------------------------- who may ask at all

PEOPLE = {
    "guest": (Identity("slack", "T1", "U1", ALICE, is_guest=True), {}, Reason.GUEST),
    "guest allowed": (
        Identity("slack", "T1", "U1", ALICE, is_guest=True),
        {"allow_guests": True},
        Reason.ALLOWED,
    ),
    "external": (Identity("slack", "T1", "U1", ALICE, is_external=True), {}, Reason.EXTERNAL),
    "external allowed": (
        Identity("slack", "T1", "U1", ALICE, is_external=True),
        {"allow_external": True},
        Reason.ALLOWED,
    ),
    "guest allowed, still external": (
        Identity("slack", "T1", "U1", ALICE, is_guest=True, is_external=True),
        {"allow_guests": True},
        Reason.EXTERNAL,
    ),
    "no e-mail": (Identity("slack", "T1", "U1", None), {}, Reason.NO_EMAIL),
    "off": (Identity("slack", "T1", "U1", "mallory@acme.ai"), {"mode": "off"}, Reason.AUTHZ_OFF),
    "off, no e-mail": (Identity("slack", "T1", "U1", None), {"mode": "off"}, Reason.AUTHZ_OFF),
    "off, guest": (
        Identity("slack", "T1", "U1", ALICE, is_guest=True),
        {"mode": "off"},
        Reason.GUEST,
    ),
}


@pytest.mark.parametrize(("identity", "options", "reason"), PEOPLE.values(), ids=PEOPLE.keys())
async def test_who_may_ask(identity, options, reason):
    async with backends(scenario(rules=VIEWER_ON_NLP)) as found:
        decision = await authorizer(found, **options).check(identity, target("A", "nlp"))
        if reason is not Reason.ALLOWED:
            assert authz_requests(found) == []  # decided without asking Run:ai
    assert decision.reason is reason
    assert decision.allowed is (reason in {Reason.ALLOWED, Reason.AUTHZ_OFF})
    assert decision.allows_kind("Workspace") is decision.allowed


def test_settings_configure_the_authorizer(monkeypatch):
    monkeypatch.setenv("AUTHZ_MODE", "off")
    monkeypatch.setenv("AUTHZ_CACHE_TTL_S", "30")
    monkeypatch.setenv("AUTHZ_ALLOW_GUESTS", "true")
    monkeypatch.setenv("CHANNEL_PROJECTS", '{"C1": ["nlp"]}')
    settings = Settings(_env_file=None)
    with capture_logs() as logs:
        authz = Authorizer.from_settings(settings, runai=None, redis_client=None)  # type: ignore[arg-type]
    assert [(e["event"], e["log_level"]) for e in logs] == [("authz_disabled", "warning")]
    assert (authz.mode, authz._ttl_s, authz._allow_guests, authz._allow_external) == (
        "off",
        30,
        True,
        False,
    )
    assert settings.authz.channel_projects == {"C1": ["nlp"]}
    assert authz.status() == {
        "authz_mode": "off",
        "authz_allow_guests": True,
        "authz_allow_external": False,
        "authz_cache_ttl_s": 30,
    }
    monkeypatch.delenv("AUTHZ_MODE")
    defaults = Settings(_env_file=None)
    assert (defaults.authz.mode, defaults.authz.allow_external) == ("runai", False)
    monkeypatch.setenv("AUTHZ_MODE", "sometimes")
    with pytest.raises(ValueError, match="authz_mode"):
        Settings(_env_file=None)


# ---------------------------------------------------------------- what a denial says

CLUSTER = "2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92"
WORDING = {
    Reason.NO_READ_ACCESS: "You don't have read access to workloads in project nlp on prod-a in Run:ai; ask your Run:ai administrator.",
    Reason.UNCHECKED: "Your read access to workloads in project nlp on prod-a could not be checked in Run:ai",
    Reason.GUEST: "Guest accounts can't see Run:ai workloads",
    Reason.EXTERNAL: "not people from other organisations",
    Reason.NO_EMAIL: "no confirmed e-mail address",
}


@pytest.mark.parametrize(("reason", "expected"), WORDING.items(), ids=[r.value for r in WORDING])
def test_a_denial_names_only_what_was_asked(reason, expected):
    decision = Decision(reason, Target(CLUSTER, "prod-a", "nlp", kind="Inference"))
    assert expected in decision.message()
    assert "Inference" not in decision.message()  # the kind came from the workload: never shown
    assert not decision.allowed


@pytest.mark.parametrize("reason", list(WORDING), ids=[r.value for r in WORDING])
def test_a_denial_about_a_threads_answer_names_nothing_of_it(reason):
    decision = Decision(reason, Target(CLUSTER, "prod-a", "nlp", kind="Training"))
    text = decision.message(thread=True)
    assert [word for word in ("nlp", "prod-a", "Training", CLUSTER) if word in text] == []
    assert text == decision.message(asked_id="w-1", thread=True)
    if reason in {Reason.NO_READ_ACCESS, Reason.UNCHECKED}:
        assert "the workload this thread is about" in text


def test_a_target_names_its_kind_or_says_it_means_any():
    with pytest.raises(TypeError, match="kind"):
        Target(CLUSTER, "prod-a", "nlp")  # type: ignore[call-arg]
    assert Target(CLUSTER, "prod-a", "nlp", kind=ANY_KIND).kind is ANY_KIND
