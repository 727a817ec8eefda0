"""RunaiClient's reads of the access model, against the simulator (tests/runai_sim/data/access.json)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.app.backends import Backends, simulated
from diagnosis import RunaiClient, UpstreamUnavailable
from runai_sim import Scenario
from tests.runai_sim.sim_helpers import DATA

BASE: dict[str, Any] = json.loads((DATA / "access.json").read_text(encoding="utf-8"))
CLUSTER_A = "2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92"
RULES = "/api/v1/authorization/access-rules"


@pytest.fixture
async def found() -> AsyncIterator[Backends]:
    async with simulated(Scenario.parse(BASE), transport="asgi", retries=0) as backends:
        yield backends


@pytest.fixture
def runai(found: Backends) -> RunaiClient:
    return found.runai


async def test_access_rules_of_a_user_and_of_groups(runai):
    own = await runai.list_access_rules(subject_type="user", subject_ids=["alice@acme.ai"])
    assert [(r.id, r.role_id, r.scope_type, r.scope_id) for r in own] == [
        (3, 3, "project", "p-ml")
    ]  # rule 6 is deleted
    groups = await runai.list_access_rules(
        subject_type="group", subject_ids=["research-team", "platform", "nobody"]
    )
    assert [(r.subject_id, r.scope_type) for r in groups] == [
        ("research-team", "department"),
        ("platform", "cluster"),
    ]
    assert await runai.list_access_rules(subject_type="user", subject_ids=[]) == []


async def test_access_rules_follow_total_records_across_pages():
    rule = BASE["access_rules"][0]
    many = [{**rule, "id": n, "scopeId": f"p-{n}"} for n in range(1, 1203)]
    async with simulated(
        Scenario.parse({**BASE, "access_rules": many}), transport="asgi", retries=0
    ) as backends:
        rules = await backends.runai.list_access_rules(
            subject_type="user", subject_ids=["bob@acme.ai"]
        )
        assert backends.simulator is not None
        offsets = [r.query.get("offset") for r in backends.simulator.requests if r.path == RULES]
    assert [r.id for r in rules] == list(range(1, 1203))
    assert offsets == [None, ["500"], ["1000"]]


async def test_rules_of_other_subjects_are_dropped_even_if_the_server_sends_them(found, runai):
    everyone = [{**r, "deletedAt": None} for r in BASE["access_rules"]]
    body = {"totalRecords": len(everyone), "displayRecords": len(everyone), "accessRules": everyone}
    found.simulator.add_fault({"path": RULES, "status": 200, "body": body})
    rules = await runai.list_access_rules(subject_type="user", subject_ids=["alice@acme.ai"])
    assert {(r.subject_type, r.subject_id) for r in rules} == {("user", "alice@acme.ai")}
    assert {r.id for r in rules} == {3, 6}


@pytest.mark.parametrize(
    "body",
    [
        {"accessRules": []},
        {"totalRecords": "1", "displayRecords": 1, "accessRules": []},
        {"totalRecords": 1, "displayRecords": 1, "accessRules": [{"subjectId": "x"}]},
        {"totalRecords": 1, "displayRecords": 1, "accessRules": None},
    ],
    ids=["no total", "total not a number", "rule without role", "rules null"],
)
async def test_a_malformed_rules_body_is_unavailable_not_empty(found, runai, body):
    found.simulator.add_fault({"path": RULES, "status": 200, "body": body})
    with pytest.raises(UpstreamUnavailable) as caught:
        await runai.list_access_rules(subject_type="user", subject_ids=["alice@acme.ai"])
    assert caught.value.operation == "list_access_rules"


async def test_pagination_that_never_ends_is_unavailable(found, runai):
    body = {"totalRecords": 10_000, "displayRecords": 1, "accessRules": [BASE["access_rules"][0]]}
    found.simulator.add_fault({"path": RULES, "status": 200, "body": body})
    with pytest.raises(UpstreamUnavailable, match="pagination"):
        await runai.list_access_rules(subject_type="user", subject_ids=["bob@acme.ai"])


async def test_find_users_matches_the_username_exactly(found, runai):
    [alice] = await runai.find_users("alice@acme.ai")
    assert (alice.username, alice.groups) == ("alice@acme.ai", ["research-team"])
    [dave] = await runai.find_users("dave@partner.example")
    assert dave.groups == []  # null groups
    assert await runai.find_users("nobody@acme.ai") == []
    sent = [r.query["filterBy"] for r in found.simulator.requests if r.path == "/api/v1/users"]
    assert sent[0] == ["username==alice@acme.ai"]


async def test_roles_with_their_permissions(runai):
    roles = {role.id: role for role in await runai.list_roles()}
    assert roles[2].grants("workloads", "read")
    assert not roles[2].grants("workloads", "delete")
    assert roles[3].grants("trainings", "read")
    assert not roles[6].active  # enabled: false
    assert not roles[6].grants("workloads", "read")


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({}, ["p-nlp-a", "p-vision", "p-ml", "p-nlp-b"]),
        ({"name": "nlp"}, ["p-nlp-a", "p-nlp-b"]),
        ({"cluster_id": CLUSTER_A, "name": "nlp"}, ["p-nlp-a"]),
        ({"parent_id": "d-research"}, ["p-nlp-a", "p-vision"]),
        ({"parent_id": "d-nowhere"}, []),
    ],
)
async def test_list_projects(runai, filters, expected):
    projects = await runai.list_projects(**filters)
    assert [p.id for p in projects] == expected


async def test_list_departments(runai):
    departments = await runai.list_departments(cluster_id=CLUSTER_A)
    assert [(d.id, [c.id for c in d.children]) for d in departments] == [
        ("d-research", ["p-nlp-a", "p-vision"]),
        ("d-platform", ["p-ml"]),
    ]
    assert len(await runai.list_departments()) == 3


async def test_access_reads_are_gets(found, runai):
    await runai.list_access_rules(subject_type="user", subject_ids=["a@b.c"])
    await runai.find_users("a@b.c")
    await runai.list_roles()
    await runai.list_projects()
    await runai.list_departments()
    methods = {(r.method, r.path) for r in found.simulator.requests if r.path != "/api/v1/token"}
    assert {m for m, _ in methods} == {"GET"}
    assert len(methods) == 5


async def test_find_users_follows_full_pages():
    user = BASE["users"][0]
    many = [{**user, "id": f"u-{n}"} for n in range(700)]
    async with simulated(
        Scenario.parse({**BASE, "users": many}), transport="asgi", retries=0
    ) as backends:
        found = await backends.runai.find_users("alice@acme.ai")
        assert backends.simulator is not None
        pages = [r for r in backends.simulator.requests if r.path == "/api/v1/users"]
    assert len(found) == 700
    assert [r.query.get("offset") for r in pages] == [None, ["500"]]


async def test_a_users_list_that_never_ends_is_unavailable(found, runai):
    page = [BASE["users"][0]] * 500
    found.simulator.add_fault({"path": "/api/v1/users", "status": 200, "body": page})
    with pytest.raises(UpstreamUnavailable, match="pagination"):
        await runai.find_users("alice@acme.ai")
