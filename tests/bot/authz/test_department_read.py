"""May this person see a department's quota and usage? Their own Run:ai access decides.

A department's figures sum every project's in it, so reading one project's workloads is not
enough: a rule of theirs (or of their groups) must grant `read` on `department` over a scope
that covers it (system, tenant, its cluster, or the department itself). Decided from the
grants the person's workload check read: no further Run:ai call; cached like the rest; and
any failure refuses. Against the simulator, over HTTP.
"""

from __future__ import annotations

import json

import pytest

from bot.authz import DECISION_CACHE_PREFIX, Identity, Reason
from bot.durable.flight import Flights
from tests.bot.authz.model import (
    ALICE,
    CLUSTERS,
    Rule,
    authorizer,
    backends,
    scenario,
    target,
)
from tests.redis_trips import counted_round_trips

DEPARTMENT_VIEWER, DEPARTMENT_AUDITOR, VIEWER, TRAININGS = 10, 11, 2, 3
AUTHZ_PATHS = ("/api/v1/authorization/", "/api/v1/users", "/api/v1/org-unit/")


def _authz_requests(found) -> list[str]:
    return [r.path for r in found.simulator.requests if r.path.startswith(AUTHZ_PATHS)]


#: id -> (rules, groups, (cluster, department) -> may they see its figures)
CASES = {
    "department rule whose role reads departments": (
        [("user", ALICE, DEPARTMENT_VIEWER, "department", "d-research")],
        (),
        {("A", "d-research"): True, ("A", "d-platform"): False, ("B", "d-research-b"): False},
    ),
    "role reads workloads but not departments": (
        [("user", ALICE, VIEWER, "tenant", "tenant")],
        (),
        {("A", "d-research"): False, ("B", "d-research-b"): False},
    ),
    "a project scope never covers its department": (
        [("user", ALICE, DEPARTMENT_VIEWER, "project", "p-nlp-a")],
        (),
        {("A", "d-research"): False},
    ),
    "cluster scope: that cluster's departments": (
        [("user", ALICE, DEPARTMENT_VIEWER, "cluster", "A")],
        (),
        {("A", "d-research"): True, ("A", "d-platform"): True, ("B", "d-research-b"): False},
    ),
    "tenant scope: every department": (
        [("user", ALICE, DEPARTMENT_VIEWER, "tenant", "tenant")],
        (),
        {("A", "d-platform"): True, ("B", "d-research-b"): True},
    ),
    "system scope: every department": (
        [("user", ALICE, DEPARTMENT_VIEWER, "system", "system")],
        (),
        {("B", "d-research-b"): True},
    ),
    "through a group": (
        [("group", "researchers", DEPARTMENT_VIEWER, "department", "d-research")],
        ("researchers",),
        {("A", "d-research"): True, ("A", "d-platform"): False},
    ),
    "a group the user is not in": (
        [("group", "researchers", DEPARTMENT_VIEWER, "department", "d-research")],
        ("platform",),
        {("A", "d-research"): False},
    ),
    "a role that reads only departments": (
        [("user", ALICE, DEPARTMENT_AUDITOR, "department", "d-research")],
        (),
        {("A", "d-research"): True, ("A", "d-platform"): False},
    ),
    "a role that reads one kind of workload": (
        [("user", ALICE, TRAININGS, "tenant", "tenant")],
        (),
        {("A", "d-research"): False},
    ),
}


@pytest.mark.parametrize(("rules", "groups", "expected"), CASES.values(), ids=CASES.keys())
async def test_who_may_see_a_departments_figures(
    rules: list[Rule], groups: tuple[str, ...], expected: dict[tuple[str, str], bool]
):
    async with backends(scenario(rules=rules, groups=groups)) as found:
        authz = authorizer(found)
        seen = {
            (cluster, department): await authz.reads_department(
                Identity.console(ALICE), CLUSTERS[cluster], department
            )
            for cluster, department in expected
        }
    assert seen == expected


async def test_reading_only_departments_reads_no_workload_anywhere():
    """A grant that reads departments alone neither allows a project nor offers a cluster."""
    rules = [("user", ALICE, DEPARTMENT_AUDITOR, "tenant", "tenant")]
    async with backends(scenario(rules=rules)) as found:
        authz = authorizer(found)
        decision = await authz.check(Identity.console(ALICE), target("A", "nlp"))
        reach = await authz.reach(Identity.console(ALICE))
        sees = await authz.reads_department(Identity.console(ALICE), CLUSTERS["A"], "d-research")
    assert decision.reason is Reason.NO_READ_ACCESS
    assert not reach.allowed
    assert sees is True


async def test_after_the_workloads_check_it_asks_run_ai_nothing_more():
    rules = [("user", ALICE, DEPARTMENT_VIEWER, "department", "d-research")]
    async with backends(scenario(rules=rules)) as found:
        authz = authorizer(found)
        decision = await authz.check(Identity.console(ALICE), target("A", "nlp", "Training"))
        before = _authz_requests(found)
        sees = await authz.reads_department(Identity.console(ALICE), CLUSTERS["A"], "d-research")
        after = _authz_requests(found)
    assert decision.allowed
    assert sees is True
    assert after == before, "decided from the grants the workload's check read"


@pytest.mark.parametrize(
    "path", ["/api/v1/authorization/access-rules", "/api/v1/users", "/api/v1/authorization/roles"]
)
async def test_a_failing_lookup_refuses_and_is_not_cached(path, redis_client):
    rules = [("user", ALICE, DEPARTMENT_VIEWER, "tenant", "tenant")]
    async with backends(scenario(rules=rules)) as found:
        assert found.simulator is not None
        authz = authorizer(found, redis_client=redis_client)
        found.simulator.add_fault({"path": path, "status": 500, "count": 1})
        failed = await authz.reads_department(Identity.console(ALICE), CLUSTERS["A"], "d-research")
        assert await redis_client.keys("*") == []
        retried = await authz.reads_department(Identity.console(ALICE), CLUSTERS["A"], "d-research")
    assert (failed, retried) == (False, True)


async def test_the_answer_is_cached_per_person_and_department(redis_client):
    rules = [("user", ALICE, DEPARTMENT_VIEWER, "department", "d-research")]
    async with backends(scenario(rules=rules)) as found:
        authz = authorizer(found, redis_client=redis_client, cache_ttl_s=60)
        first = await authz.reads_department(Identity.console(ALICE), CLUSTERS["A"], "d-research")
        calls = len(_authz_requests(found))
        fresh = authorizer(found, redis_client=redis_client, cache_ttl_s=60)  # nothing in memory
        again = await fresh.reads_department(
            Identity.console("Alice@Acme.ai"), CLUSTERS["A"], "d-research"
        )
        assert len(_authz_requests(found)) == calls  # answered from the cache
    assert (first, again) == (True, True)
    key = f"{DECISION_CACHE_PREFIX}{ALICE}"
    entry = json.loads(await redis_client.hget(key, f"department:{CLUSTERS['A']}/d-research"))
    assert entry["reads"] is True


@pytest.mark.parametrize(
    ("identity", "options", "expected"),
    [
        pytest.param(Identity("slack", "T1", "U1", ALICE, is_guest=True), {}, False, id="guest"),
        pytest.param(Identity("slack", "T1", "U1", None), {}, False, id="no-e-mail"),
        pytest.param(Identity.console(ALICE), {"mode": "off"}, True, id="authz-off"),
    ],
)
async def test_who_is_asking_is_screened_first(identity, options, expected):
    async with backends(scenario(rules=[])) as found:
        authz = authorizer(found, **options)
        sees = await authz.reads_department(identity, CLUSTERS["A"], "d-research")
        assert _authz_requests(found) == []
    assert sees is expected


async def test_a_department_check_runs_no_flight_of_its_own(redis_client):
    """A cache miss and a put are its only Redis round trips; Run:ai is asked nothing more.

    It decides from the grants the workload's check read, which are shared already.
    """
    rules = [("user", ALICE, DEPARTMENT_VIEWER, "department", "d-research")]
    flights = Flights(redis_client, report_ttl_s=30)
    async with backends(scenario(rules=rules)) as found:
        authz = authorizer(found, redis_client=redis_client, cache_ttl_s=60, flights=flights)
        await authz.check(Identity.console(ALICE), target("A", "nlp", "Training"))
        before = _authz_requests(found)
        with counted_round_trips() as trips:
            sees = await authz.reads_department(
                Identity.console(ALICE), CLUSTERS["A"], "d-research"
            )
        assert _authz_requests(found) == before
    assert sees is True
    assert trips.trips == [("HGET",), ("MULTI", "HSET", "EXPIRE", "EXEC")]
