"""One token request per token lifetime per process, however many calls run at once."""

from __future__ import annotations

import asyncio

import httpx

from bot.app.demo.scenarios import bundled_scenario
from diagnosis import RunaiClient, RunaiConfig
from runai_sim.app import Simulator

DEMO = bundled_scenario("demo")
JOB_42 = next(w.workload["id"] for w in DEMO.workloads if w.workload["name"] == "training-job-42")
LIFETIME_S = 600.0


def _tokens(simulator: Simulator) -> int:
    return sum(r.method == "POST" and r.path == "/api/v1/token" for r in simulator.requests)


async def test_two_hundred_concurrent_calls_share_one_token_per_lifetime():
    now = [1_800_000_000.0]
    simulator = Simulator(DEMO, token_ttl_s=LIFETIME_S, clock=lambda: now[0])
    config = RunaiConfig(
        url="http://runai-sim.invalid",
        client_id=DEMO.credentials.client_id,
        client_secret=DEMO.credentials.client_secret,
        retries=0,
    )
    transport = httpx.ASGITransport(app=simulator.app)
    async with RunaiClient(config, transport=transport, clock=lambda: now[0]) as runai:
        first = await asyncio.gather(*(runai.get_workload(JOB_42) for _ in range(200)))
        assert _tokens(simulator) == 1
        now[0] += LIFETIME_S / 2  # within the lifetime: the same token serves
        await asyncio.gather(*(runai.get_workload(JOB_42) for _ in range(200)))
        assert _tokens(simulator) == 1
        now[0] += LIFETIME_S  # past it: exactly one new token, however many ask at once
        last = await asyncio.gather(*(runai.get_workload(JOB_42) for _ in range(200)))
        assert _tokens(simulator) == 2
    assert {w.id for w in [*first, *last]} == {JOB_42}
    refused = [r for r in simulator.requests if r.status == 401]
    assert not refused, "no call ever went out with an expired token"
