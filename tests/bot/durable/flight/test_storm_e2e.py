"""Over HTTP: a storm of signed slash commands on two replicas costs one diagnosis upstream."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
import redis.asyncio

from runai_sim.app import Simulator
from tests.bot.durable.flight.replicas import BY_NAME, DEMO, upstream_calls
from tests.bot.slack.fake_slack import FakeSlack
from tests.bot.slack.harness import Bot, first_line, running_bots
from tests.bot.slack.signing import slash_command_body

pytestmark = pytest.mark.e2e


async def _storm(bots: list[Bot], count: int) -> None:
    bodies = [
        slash_command_body(
            BY_NAME, trigger_id=f"t{i}", response_url=bots[0].slack.response_url(f"r{i}")
        )
        for i in range(count)
    ]
    sent = await asyncio.gather(*(bots[i % len(bots)].send(b) for i, b in enumerate(bodies)))
    assert {r.status_code for r in sent} == {200}
    await bots[0].slack.wait_for_async("chat.update", count=count, timeout=120)


async def _upstream(
    fake_slack: FakeSlack, redis_url: str, *, replicas: int, count: int
) -> Counter[tuple[str, str]]:
    simulator = Simulator(DEMO)
    # One person asking `count` times at once: their lookups are shared, and their own cap
    # on the queue (QUEUE_MAX_PER_ASKER) is raised to let every ask in.
    async with running_bots(
        fake_slack, redis_url, replicas=replicas, simulator=simulator, queue_max_per_asker=count
    ) as bots:
        await _storm(bots, count)
    return upstream_calls(simulator)


async def test_twenty_slash_commands_on_two_replicas_cost_what_one_does(
    fake_slack: FakeSlack, redis_url: str, redis_client: redis.asyncio.Redis
):
    """With per-user authorization on (the default): its lookups are shared too."""
    alone = await _upstream(fake_slack, redis_url, replicas=1, count=1)
    await redis_client.flushdb()
    fake_slack.clear()
    storm = await _upstream(fake_slack, redis_url, replicas=2, count=20)
    assert storm == alone
    updates = fake_slack.calls("chat.update")
    assert len(updates) == 20, "everyone is answered, once, in their own message"
    assert {first_line(u).split()[0] for u in updates} == {"OOM_KILLED"}
    assert len({u.body["ts"] for u in updates}) == 20
    assert len(fake_slack.calls("auth.test")) == 2, "once per replica"
