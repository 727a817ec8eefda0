"""Cluster names as people type them: whole names in any case, never a partial or a guess."""

from __future__ import annotations

import pytest

from bot.backends import simulated
from bot.conversation.clusters import ClusterDirectory
from bot.scenarios import bundled_scenario

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
