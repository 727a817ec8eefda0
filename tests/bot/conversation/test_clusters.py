"""Cluster names as people type them: whole names in any case, never a partial or a guess."""

from __future__ import annotations

import asyncio

import pytest

from bot.app.backends import Backends, simulated
from bot.app.demo.scenarios import bundled_scenario
from bot.conversation.clusters import ClusterDirectory
from bot.durable.flight import Flights

DEMO = bundled_scenario("demo")
PROD_A = DEMO.clusters[0]
TWIN = {**PROD_A, "uuid": "0a0b0c0d-1111-4222-8333-444455556666", "name": "Prod-A"}


@pytest.mark.parametrize(
    ("clusters", "typed", "expected"),
    [
        ([PROD_A], "prod-a", PROD_A["uuid"]),
        ([PROD_A], "PROD-A", PROD_A["uuid"]),
        ([PROD_A], " Prod-A ", PROD_A["uuid"]),
        ([PROD_A], PROD_A["uuid"].upper(), PROD_A["uuid"]),
        ([PROD_A], "prod", None),  # never a partial match
        ([PROD_A], "prod-a-2", None),
        ([PROD_A, TWIN], "Prod-A", TWIN["uuid"]),  # the exact name wins
        ([PROD_A, TWIN], "prod-a", PROD_A["uuid"]),
        ([PROD_A, TWIN], "PROD-A", None),  # two clusters differ only in case: not a guess
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
async def test_cluster_names_match_whole_in_any_case_unless_that_is_ambiguous(
    clusters, typed, expected
):
    scenario = DEMO.model_copy(update={"clusters": clusters})
    async with simulated(scenario, retries=0, transport="asgi") as up:
        match = await ClusterDirectory(up.runai).match(typed)
    assert (match.cluster.uuid if match.cluster else None) == expected
    assert [c.name for c in match.known] == [c["name"] for c in clusters]


def _listed(up: Backends) -> int:
    assert up.simulator is not None
    return sum(r.path == "/api/v1/clusters" for r in up.simulator.requests)


async def test_a_cold_start_storm_reads_the_cluster_list_once():
    async with simulated(DEMO, retries=0, transport="asgi") as up:
        directory = ClusterDirectory(up.runai)
        matches = await asyncio.gather(*(directory.match("prod-a") for _ in range(100)))
        assert _listed(up) == 1
    assert {m.cluster.uuid for m in matches if m.cluster} == {PROD_A["uuid"]}


async def test_replicas_share_one_read_of_the_cluster_list(redis_client):
    async with simulated(DEMO, retries=0, transport="asgi") as up:
        replicas = [
            ClusterDirectory(up.runai, flights=Flights(redis_client, report_ttl_s=30))
            for _ in range(2)
        ]
        found = await asyncio.gather(*(replicas[i % 2].clusters() for i in range(50)))
        assert _listed(up) == 1
    assert {tuple(c.uuid for c in f) for f in found} == {(PROD_A["uuid"],)}


async def test_the_list_is_read_again_once_its_time_is_up():
    now = [0.0]
    async with simulated(DEMO, retries=0, transport="asgi") as up:
        directory = ClusterDirectory(up.runai, ttl_s=60, clock=lambda: now[0])
        await directory.clusters()
        now[0] = 30.0
        await directory.clusters()
        assert _listed(up) == 1
        now[0] = 61.0
        await directory.clusters()
        assert _listed(up) == 2
