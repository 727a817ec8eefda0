"""A storm of identical requests on two replicas costs exactly one diagnosis upstream."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

from bot.conversation import Notice, ReportReply
from diagnosis import Category
from runai_sim.app import Simulator
from tests.bot.durable.flight.replicas import (
    BY_NAME,
    DEMO,
    JOB_42,
    MALLORY,
    replicas,
    shared,
    upstream_calls,
)

PROD_A = DEMO.clusters[0]["uuid"]
BY_ID = f"why did {JOB_42} fail on cluster {PROD_A}?"
#: The cluster list, kept for a minute whatever the report cache time.
CLUSTERS = Counter({("GET", "/api/v1/clusters"): 1})


async def _one_alone(redis_url: str, text: str) -> Any:
    async with replicas(redis_url, count=1) as (sim, [replica]):
        report = (await replica.ask(text)).last()
        assert isinstance(report, ReportReply)
        return upstream_calls(sim)


async def test_fifty_identical_requests_on_two_replicas_cost_one_diagnosis(redis_url, redis_client):
    """By name, with the cluster named: one cluster list, one resolution, one diagnosis."""
    alone = await _one_alone(redis_url, BY_NAME)
    await redis_client.flushdb()  # the storm starts cold, as after a deploy
    before = shared("flight") + shared("cache")
    async with replicas(redis_url) as (sim, pair):
        answers = await asyncio.gather(*(pair[i % 2].ask(BY_NAME) for i in range(50)))
        storm = upstream_calls(sim)
    assert storm == alone, "the storm's upstream calls are exactly those of one diagnosis"
    assert ("GET", "/api/v1/clusters") in storm
    reports = [a.last() for a in answers]
    assert all(isinstance(r, ReportReply) for r in reports), "everyone gets the answer"
    assert {r.report.category for r in reports if isinstance(r, ReportReply)} == {
        Category.OOM_KILLED
    }
    assert shared("flight") + shared("cache") - before == 49


async def test_by_id_the_resolution_is_shared_too(redis_url, redis_client):
    alone = await _one_alone(redis_url, BY_ID)
    await redis_client.flushdb()
    async with replicas(redis_url) as (sim, pair):
        answers = await asyncio.gather(*(pair[i % 2].ask(BY_ID) for i in range(20)))
        storm = upstream_calls(sim)
    assert storm == alone
    assert storm[("GET", f"/api/v1/workloads/{JOB_42}")] == 1
    assert all(isinstance(a.last(), ReportReply) for a in answers)


async def test_a_kept_report_is_reused_until_it_expires(redis_url, redis_client):
    async with replicas(redis_url, cache_ttl_s=30) as (sim, [first, second]):
        await first.ask(BY_ID)
        once = upstream_calls(sim)
        before = shared("cache")
        again = (await second.ask(BY_ID)).last()
        assert isinstance(again, ReportReply)
        assert shared("cache") - before == 1
        # Only the resolution (to know the workload's state) is read again, once it expired.
        status = ("GET", f"/api/v1/workloads/{JOB_42}")
        assert upstream_calls(sim) - once in ({}, {status: 1})
        # When the kept report expires, the next request diagnoses afresh.
        for key in await redis_client.keys("runai-why:flight:*"):
            await redis_client.delete(key)
        sim.clear_requests()
        await second.ask(BY_ID)
        assert upstream_calls(sim) == once - CLUSTERS, "(the cluster list is kept in-process)"


async def test_a_zero_cache_time_shares_only_between_concurrent_askers(redis_url, redis_client):
    async with replicas(redis_url, cache_ttl_s=0) as (sim, [first, second]):
        await first.ask(BY_ID)
        once = upstream_calls(sim)
        sim.clear_requests()
        await second.ask(BY_ID)
        again = upstream_calls(sim)
        assert again == once - CLUSTERS, "nothing kept: the second asker diagnoses again"


def _holding(app: Any, path_part: str, release: asyncio.Event, held: asyncio.Event) -> Callable:
    """`app`, with requests whose path contains `path_part` held until `release` is set."""

    async def held_app(
        scope: dict, receive: Callable, send: Callable[..., Awaitable[None]]
    ) -> None:
        if scope["type"] == "http" and path_part in scope["path"]:
            held.set()
            await release.wait()
        await app(scope, receive, send)

    return held_app


async def test_a_denied_asker_waiting_on_a_shared_flight_sees_nothing_of_it(
    redis_url, redis_client
):
    """Mallory asks by ID while Alice's diagnosis of it is in flight: only her denial."""
    release, held = asyncio.Event(), asyncio.Event()
    sim = Simulator(DEMO)
    app = _holding(sim.app, "/events", release, held)
    async with replicas(redis_url, authz=True, app=app, simulator=sim) as (_, pair):
        alice_side, mallory_side = pair
        alice = asyncio.create_task(alice_side.ask(BY_ID))
        await held.wait()  # Alice's diagnosis is reading the events: the flight is in the air
        before = shared("flight") + shared("cache")
        mallory = await mallory_side.ask(BY_ID, user=MALLORY)
        release.set()
        alice_answer = (await alice).last()
    assert isinstance(alice_answer, ReportReply)
    [(action, denial)] = mallory.log
    assert action == "post"
    assert isinstance(denial, Notice)
    assert denial.private
    assert "training-job-42" not in denial.text
    assert "OOM" not in denial.text
    assert shared("flight") + shared("cache") == before, "Mallory joined no flight"
