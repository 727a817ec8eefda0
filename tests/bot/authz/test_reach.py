"""Where a person may read at all, decided before any cluster is named to them.

Each row runs the real `Authorizer.reach` and `RunaiClient` against the simulated control
plane serving that row's rules (two clusters, departments and projects: `model.py`). The
rules are written without `clusterId`, so a department or project scope is placed on its
cluster through the control plane's department and project lists.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from bot.authz import Identity, Reason
from bot.authz.policy import Grant, reach
from bot.durable.flight import Flights
from diagnosis import AccessRule
from tests.bot.authz.model import ALICE, CLUSTERS, Rule, authorizer, backends, rule_body, scenario
from tests.bot.authz.people import NOWHERE as REFUSED_EVERYWHERE

U, G = "user", "group"
EVERYWHERE, NOWHERE = "everywhere", "nowhere"
A, B = CLUSTERS["A"], CLUSTERS["B"]
DEPARTMENTS = "/api/v1/org-unit/departments"
PROJECTS = "/api/v1/org-unit/projects"
ACCESS_PATHS = ("/api/v1/authorization/", "/api/v1/users", "/api/v1/org-unit/")

#: id: (groups, rules, where they may read: EVERYWHERE, NOWHERE or the clusters' letters)
TABLE: dict[str, tuple[list[str], list[Rule], str]] = {
    "no rules": ([], [], NOWHERE),
    "tenant viewer": ([], [(U, ALICE, 2, "tenant", "tenant")], EVERYWHERE),
    "system administrator": ([], [(U, ALICE, 1, "system", "system")], EVERYWHERE),
    "cluster B viewer": ([], [(U, ALICE, 2, "cluster", "B")], "B"),
    "department on A": ([], [(U, ALICE, 2, "department", "d-research")], "A"),
    "department on B, trainings only": ([], [(U, ALICE, 3, "department", "d-research-b")], "B"),
    "project on B": ([], [(U, ALICE, 2, "project", "p-nlp-b")], "B"),
    "project on A, inferences only": ([], [(U, ALICE, 4, "project", "p-vision")], "A"),
    "through a group": (["research-team"], [(G, "research-team", 2, "project", "p-ml")], "A"),
    "scopes add up": (
        [],
        [(U, ALICE, 2, "project", "p-nlp-b"), (U, ALICE, 8, "department", "d-platform")],
        "AB",
    ),
    "a role that reads no workloads": ([], [(U, ALICE, 5, "tenant", "tenant")], NOWHERE),
    "a disabled role": ([], [(U, ALICE, 6, "tenant", "tenant")], NOWHERE),
    "events only": ([], [(U, ALICE, 9, "cluster", "A")], NOWHERE),
    "unknown department": ([], [(U, ALICE, 2, "department", "d-nowhere")], NOWHERE),
    "unknown project": ([], [(U, ALICE, 2, "project", "p-nowhere")], NOWHERE),
    "unknown scope type": ([], [(U, ALICE, 2, "galaxy", "tenant")], NOWHERE),
    "someone else's rule": ([], [(U, "bob@acme.ai", 2, "tenant", "tenant")], NOWHERE),
}


@pytest.mark.parametrize("row", TABLE.values(), ids=TABLE.keys())
async def test_reach(row):
    groups, rules, where = row
    async with backends(scenario(groups=groups, rules=rules)) as found:
        got = await authorizer(found).reach(Identity.console(ALICE))
    assert got.everywhere is (where == EVERYWHERE)
    if where in {EVERYWHERE, NOWHERE}:
        assert got.clusters == frozenset()
    else:
        assert got.clusters == {CLUSTERS[letter] for letter in where}
    assert got.allowed is (where != NOWHERE)
    assert got.reason is (Reason.NO_READ_ACCESS if where == NOWHERE else Reason.ALLOWED)
    assert [got.covers(A), got.covers(B)] == [
        where == EVERYWHERE or letter in where for letter in "AB"
    ]


def test_a_rule_that_names_its_cluster_is_placed_without_a_lookup():
    rule = AccessRule.model_validate(rule_body(1, (U, ALICE, 2, "department", "d-x"), clusterId=B))
    assert reach(
        [Grant(rule, frozenset({"workloads"}))], department_clusters={}, project_clusters={}
    ) == (
        False,
        frozenset({B}),
    )


async def test_units_are_listed_only_when_a_rule_does_not_name_its_cluster():
    placed = [rule_body(1, (U, ALICE, 2, "project", "p-nlp-b"), clusterId=B)]
    async with backends(scenario(rules=placed)) as found:
        assert found.simulator is not None
        got = await authorizer(found).reach(Identity.console(ALICE))
        listed = [r.path for r in found.simulator.requests if r.path in {DEPARTMENTS, PROJECTS}]
    assert (got.clusters, listed) == (frozenset({B}), [])


@pytest.mark.parametrize(
    ("path", "call", "rules"),
    [
        (
            "/api/v1/authorization/access-rules",
            "list_access_rules",
            [(U, ALICE, 2, "tenant", "tenant")],
        ),
        ("/api/v1/users", "find_users", [(U, ALICE, 2, "tenant", "tenant")]),
        ("/api/v1/authorization/roles", "list_roles", [(U, ALICE, 2, "tenant", "tenant")]),
        (DEPARTMENTS, "list_departments", [(U, ALICE, 2, "department", "d-research")]),
        (PROJECTS, "list_projects", [(U, ALICE, 2, "project", "p-vision")]),
    ],
    ids=["rules", "users", "roles", "departments", "projects"],
)
async def test_a_failed_lookup_fails_closed_and_names_no_cluster(path, call, rules):
    async with backends(scenario(rules=rules)) as found:
        assert found.simulator is not None
        found.simulator.add_fault({"path": path, "status": 503})
        got = await authorizer(found).reach(Identity.console(ALICE))
    assert (got.allowed, got.reason, got.failed_call) == (False, Reason.UNCHECKED, call)
    assert not got.covers(A)
    assert got.message() == (
        "Your read access to workloads on any cluster could not be checked in Run:ai, so "
        "nothing is shown; try again in a few minutes, or ask your Run:ai administrator if "
        "it keeps failing."
    )


async def test_no_access_anywhere_reads_as_a_plain_denial():
    async with backends(scenario(rules=[])) as found:
        got = await authorizer(found).reach(Identity.console(ALICE))
    assert got.message() == REFUSED_EVERYWHERE


@pytest.mark.parametrize(
    ("identity", "options", "reason", "allowed"),
    [
        (Identity("slack", "T1", "U1", ALICE, is_guest=True), {}, Reason.GUEST, False),
        (Identity("slack", "T1", "U1", ALICE, is_external=True), {}, Reason.EXTERNAL, False),
        (Identity("slack", "T1", "U1", None), {}, Reason.NO_EMAIL, False),
        (
            Identity("slack", "T1", "U1", None, lookup_failed="users.info"),
            {},
            Reason.UNCHECKED,
            False,
        ),
        (Identity("slack", "T1", "U1", "mallory@acme.ai"), {"mode": "off"}, Reason.AUTHZ_OFF, True),
    ],
    ids=["guest", "external", "no e-mail", "identity unchecked", "off"],
)
async def test_who_they_are_is_decided_before_run_ai_is_asked(identity, options, reason, allowed):
    async with backends(scenario(rules=[])) as found:
        assert found.simulator is not None
        got = await authorizer(found, **options).reach(identity)
        asked = [r.path for r in found.simulator.requests if r.path.startswith(ACCESS_PATHS)]
    assert asked == []
    assert (got.reason, got.allowed, got.covers(B)) == (reason, allowed, allowed)


async def test_the_reach_is_cached_beside_the_persons_decisions(redis_client):
    rules = [(U, ALICE, 2, "department", "d-research")]
    async with backends(scenario(rules=rules)) as found:
        assert found.simulator is not None
        authz = authorizer(found, redis_client=redis_client, cache_ttl_s=60)
        first = await authz.reach(Identity.console(ALICE))
        calls = len(found.simulator.requests)
        again = await authz.reach(Identity.console("ALICE@acme.ai"))
        assert len(found.simulator.requests) == calls  # answered from the cache
        key = f"runai-why:authz:decisions:{ALICE}"
        entry = json.loads(await redis_client.hget(key, "clusters"))
        await authz.forget(ALICE)
        assert await redis_client.exists(key) == 0
    assert first == again
    assert (entry["everywhere"], entry["clusters"]) == (False, [A])


async def test_concurrent_askers_share_one_lookup(redis_client):
    rules = [(U, ALICE, 2, "department", "d-research")]
    async with backends(scenario(rules=rules)) as found:
        assert found.simulator is not None
        flights = Flights(redis_client, report_ttl_s=30)
        authz = authorizer(found, flights=flights, cache_ttl_s=60)
        got = await asyncio.gather(*(authz.reach(Identity.console(ALICE)) for _ in range(5)))
        departments = [r for r in found.simulator.requests if r.path == DEPARTMENTS]
    assert {g.clusters for g in got} == {frozenset({A})}
    assert len(departments) == 1
