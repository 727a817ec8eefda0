"""The failover scenario: a replica killed with kill -9 mid-storm, and what its askers heard."""

from __future__ import annotations

import asyncio
import time

from bench.driver import wait_until
from bench.scenarios import Rows, ask_for
from bench.stats import Figure, Target
from bench.world import World
from bot.config import QueueSettings

__all__ = ["failover"]

#: How long a dead worker's items wait before another takes them (`QUEUE_CLAIM_IDLE_S`'s
#: default, which the replicas run with).
CLAIM_IDLE_S: float = QueueSettings.model_fields["claim_idle_s"].default


async def failover(world: World, count: int = 60, settle_s: float = 90.0) -> Rows:
    """4: two replicas on one Redis, one killed with kill -9 mid-storm: lost, twice, spinning."""
    world.reset()
    first, second = await world.serve(2)
    ids = world.scenario.workload_ids[200 : 200 + count]
    asks = [
        ask_for(world, "fo", i, w, (first if i % 2 else second).name) for i, w in enumerate(ids)
    ]
    victims = [a for a in asks if a.replica == first.name]
    await world.send(asks)
    # Mid-storm: once the victim has shown something for some of its asks, but not answered all.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = await wait_until(world.slack, victims, timeout_s=0, quiet_s=0)
        heard = sum(1 for a in victims if found[a.key].first_word_at is not None)
        answered = sum(1 for a in victims if found[a.key].answered_at is not None)
        if heard >= 5 and answered < len(victims):  # noqa: PLR2004
            break
        await asyncio.sleep(0.05)
    killed_at = time.monotonic()
    first.kill()
    # The killed replica's items wait out the claim idle time, then up to half as long again
    # for a survivor's next look (it reclaims every half of it): Slack hears nothing
    # meanwhile, and that silence is no sign that the rest are lost.
    quiet_s = 1.5 * CLAIM_IDLE_S + 15
    found = await wait_until(world.slack, asks, timeout_s=settle_s, quiet_s=quiet_s)
    acked = [a for a in asks if a.status == 200]  # noqa: PLR2004
    lost = [a for a in acked if found[a.key].answered_at is None and not found[a.key].private]
    twice = [a for a in acked if found[a.key].answers > 1]
    spinning = sum(found[a.key].spinning for a in acked)
    answered_before = sum(
        1 for a in victims if (t := found[a.key].answered_at) is not None and t <= killed_at
    )
    return [
        Target(
            "5. failover: lost / acknowledged",
            len(lost),
            len(acked),
            0.0,
            detail=f"{sum(1 for a in lost if a.replica == first.name)} of the killed replica's",
        ),
        Target("   failover: answered twice / acknowledged", len(twice), len(acked), 0.0),
        Target("   failover: placeholders left spinning", spinning, len(acked), 0.0),
        Figure(
            "   failover: the killed replica",
            f"{len(victims)} asks, {answered_before} answered before kill -9, "
            f"{sum(1 for a in victims if a.status == 200)} acknowledged",  # noqa: PLR2004
        ),
    ]
