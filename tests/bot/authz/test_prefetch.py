"""Reading ahead: a person's grants are read once, at the start of their turn, and only then.

`Authorizer.prefetch` starts the grants (rules, users, roles) when nothing about the person
is cached; the check that follows uses that read, and needs no project lookup when a
cluster-wide rule reads every kind. Counted in the simulator's request log and in Redis
round trips, never timed.
"""

from __future__ import annotations

import asyncio

import pytest

from bot.authz import Identity, Reason
from bot.authz.policy import Grant, cluster_wide
from diagnosis import AccessRule
from tests.bot.authz.model import ALICE, CLUSTERS, authorizer, backends, scenario, target
from tests.redis_trips import counted_round_trips

TENANT_VIEWER = [("user", ALICE, 2, "tenant", "tenant")]
PROJECT_VIEWER = [("user", ALICE, 2, "project", "p-nlp-a")]
GRANTS = ("/api/v1/authorization/access-rules", "/api/v1/users", "/api/v1/authorization/roles")
PROJECTS = "/api/v1/org-unit/projects"


def _paths(found) -> list[str]:
    return [r.path for r in found.simulator.requests]


async def _settled(authz) -> None:
    """Wait for the prefetch to finish (it runs in the background)."""
    async with asyncio.timeout(10):
        while authz._background:  # noqa: ASYNC110 - the test waits on the read ahead
            await asyncio.sleep(0.005)


@pytest.mark.parametrize(
    ("rules", "kind", "project_lookups"),
    [
        pytest.param(TENANT_VIEWER, "Training", 0, id="tenant-wide: no project lookup"),
        pytest.param(TENANT_VIEWER, None, 0, id="tenant-wide, unknown kind"),
        pytest.param(PROJECT_VIEWER, "Training", 1, id="project rule: its project looked up"),
    ],
)
async def test_a_check_after_the_prefetch_reads_the_grants_once(rules, kind, project_lookups):
    async with backends(scenario(rules=rules)) as found:
        authz = authorizer(found)
        authz.prefetch(Identity.console(ALICE))
        await _settled(authz)
        decision = await authz.check(Identity.console(ALICE), target("A", "nlp", kind))
        paths = _paths(found)
    assert decision.allowed
    assert [p for p in paths if p in GRANTS] == sorted(GRANTS, key=paths.index)
    assert paths.count(PROJECTS) == project_lookups


async def test_a_check_waits_for_a_read_ahead_still_in_flight():
    """The status may come back first (a busy machine): the check waits, never races it.

    Racing it would look the project up after the status, one more level before the answer.
    """
    slow = scenario(rules=TENANT_VIEWER).model_copy(update={"latency_ms": 200})
    async with backends(slow) as found:
        authz = authorizer(found)
        authz.prefetch(Identity.console(ALICE))
        async with asyncio.timeout(10):
            while ALICE not in authz._prefetched:  # noqa: ASYNC110 - started, not finished
                await asyncio.sleep(0.001)
        decision = await authz.check(Identity.console(ALICE), target("A", "nlp", "Training"))
        paths = _paths(found)
    assert decision.allowed
    assert paths.count(PROJECTS) == 0, "a tenant-wide rule decides without the project"
    assert paths.count("/api/v1/authorization/roles") == 1, "the read ahead serves the check"


async def test_a_check_by_name_still_looks_the_project_up():
    """`may_list` names a project the asker typed: it must exist to be allowed."""
    async with backends(scenario(rules=TENANT_VIEWER)) as found:
        authz = authorizer(found)
        authz.prefetch(Identity.console(ALICE))
        await _settled(authz)
        decision = await authz.check(Identity.console(ALICE), target("A", "nope"))
    assert decision.reason is Reason.NO_READ_ACCESS


async def test_the_prefetch_is_used_once_then_grants_are_read_again():
    async with backends(scenario(rules=TENANT_VIEWER)) as found:
        authz = authorizer(found)
        authz.prefetch(Identity.console(ALICE))
        await _settled(authz)
        for _ in range(2):
            await authz.check(Identity.console(ALICE), target("A", "nlp", "Training"))
        paths = _paths(found)
    assert paths.count("/api/v1/authorization/roles") == 2, "no cache: the second reads again"


async def test_nothing_is_read_ahead_for_a_person_answered_lately(redis_client):
    async with backends(scenario(rules=TENANT_VIEWER)) as found:
        authz = authorizer(found, redis_client=redis_client, cache_ttl_s=60)
        await authz.check(Identity.console(ALICE), target("A", "nlp", "Training"))
        before = len(_paths(found))
        with counted_round_trips() as trips:
            authz.prefetch(Identity.console(ALICE))
            await _settled(authz)
            decision = await authz.check(Identity.console(ALICE), target("A", "nlp", "Training"))
        assert len(_paths(found)) == before, "no Run:ai read: the answer is cached"
    assert decision.allowed
    assert trips.trips == [("HGETALL",)], "one read of the person's answers serves the check"


async def test_a_failed_read_ahead_is_read_again_by_the_check():
    async with backends(scenario(rules=TENANT_VIEWER)) as found:
        assert found.simulator is not None
        found.simulator.add_fault(
            {"path": "/api/v1/authorization/roles", "status": 500, "count": 1}
        )
        authz = authorizer(found)
        authz.prefetch(Identity.console(ALICE))
        await _settled(authz)
        decision = await authz.check(Identity.console(ALICE), target("A", "nlp", "Training"))
    assert decision.allowed


async def test_a_screened_person_is_not_read_ahead():
    async with backends(scenario(rules=TENANT_VIEWER)) as found:
        authz = authorizer(found)
        authz.prefetch(Identity("slack", "T1", "U1", ALICE, is_guest=True))
        await _settled(authz)
        assert _paths(found) == []


def _grant(scope_type: str, scope_id: str, *resources: str) -> Grant:
    rule = AccessRule.model_validate(
        {"id": 1, "subjectId": ALICE, "subjectType": "user", "roleId": 2, "scopeId": scope_id,
         "scopeType": scope_type}
    )  # fmt: skip
    return Grant(rule, frozenset(resources))


@pytest.mark.parametrize(
    ("grant", "wide"),
    [
        pytest.param(_grant("system", "system", "workloads"), {"workloads"}, id="system"),
        pytest.param(_grant("tenant", "1001", "trainings"), {"trainings"}, id="tenant"),
        pytest.param(_grant("cluster", CLUSTERS["A"], "workloads"), {"workloads"}, id="this cluster"),
        pytest.param(_grant("cluster", CLUSTERS["B"], "workloads"), set(), id="another cluster"),
        pytest.param(_grant("project", "p-nlp-a", "workloads"), set(), id="a project"),
        pytest.param(_grant("department", "d-1", "workloads"), set(), id="a department"),
    ],
)  # fmt: skip
def test_what_rules_over_the_whole_cluster_read(grant, wide):
    assert cluster_wide([grant], CLUSTERS["A"]) == wide


async def test_closing_stops_the_reads_ahead_nobody_waited_for():
    """A prefetch must not outlive the authorizer: it would use the clients closed after it."""
    slow = scenario(rules=TENANT_VIEWER).model_copy(update={"latency_ms": 200})
    async with backends(slow) as found:
        authz = authorizer(found)
        authz.prefetch(Identity.console(ALICE))
        async with asyncio.timeout(10):
            while ALICE not in authz._prefetched:  # noqa: ASYNC110 - started, not finished
                await asyncio.sleep(0.001)
        [(_, grants)] = authz._prefetched.values()
        await authz.aclose()
        assert grants.cancelled()
        assert not authz._background
        assert not authz._prefetched
