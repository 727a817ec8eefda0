"""The dependency chain of one answered OOM ask through the bot, cold and warm.

Every Run:ai request the simulator logs (at a fixed latency) between the slash command and
the answer is placed on its chain level with the benchmark's function
(`bench.stats.chain_levels`): the figure is how many upstream round trips an answer waits
on one after another. Cold: a fresh bot (token, cluster list, the asker's access, then the
diagnosis); warm: the same ask again with nothing reused but the token and caches.
Only the structure is asserted, never a duration.
"""

from __future__ import annotations

import pytest

from bench.chain import logged
from bench.stats import Timed, chain_levels
from runai_sim.app import Simulator
from tests.bot.slack.fake_slack import FakeSlack
from tests.bot.slack.harness import DEMO, running_bots
from tests.bot.slack.signing import slash_command_body

pytestmark = pytest.mark.e2e

#: Long enough that concurrent calls always overlap, and that the bot's own work between
#: them (the asker's Slack profile, Redis) never outlasts a call, even on a busy machine.
LATENCY_MS = 300
JOB_42 = "f0658dcc-8ddb-493b-b983-99894f206aea"  # training-job-42, OOM
EVAL = "fcfaaec8-47fa-404b-a64e-169ccc4af8e8"  # eval-harness, the same project


def _kind(path: str) -> str:
    if path.endswith("/token"):
        return "token"
    if path.startswith("/api/v1/clusters"):
        return "clusters"
    if any(p in path for p in ("/authorization/", "/users", "/roles", "/org-unit/")):
        return "access"
    if path in {f"/api/v1/workloads/{JOB_42}", f"/api/v1/workloads/{EVAL}"}:
        return "status"
    if path == "/api/v1/workloads":
        return "earlier runs"
    if "/trainings/" in path:
        return "spec"
    return path.rsplit("/", 1)[-1]


def _levels(calls: list[Timed]) -> dict[str, set[int]]:
    placed: dict[str, set[int]] = {}
    for call in calls:
        level = 1 + chain_levels([c for c in calls if c.end <= call.start])
        placed.setdefault(_kind(call.path), set()).add(level)
    return placed


#: (name, workload ID, levels, the level of each kind of call), asked in this order.
CHAINS: list[tuple[str, str, int, dict[str, set[int]]]] = [
    # Cold: a fresh bot. The token first; then, together, the cluster list (the cluster is
    # named), the workload's status (asked for by ID) and the asker's grants (a tenant-wide
    # reader: no project lookup); then, once the status authorizes the asker, the evidence.
    (
        "cold-oom", JOB_42, 3,
        {"token": {1}, "clusters": {2}, "status": {2}, "access": {2}, "events": {3},
         "pods": {3}, "history": {3}, "metrics": {3}, "spec": {3}, "earlier runs": {3}},
    ),
    # Warm: the same bot and asker, another workload of the project: token, clusters and
    # the access decision are known; the status, then everything else.
    (
        "warm", EVAL, 2,
        {"status": {1}, "events": {2}, "pods": {2}, "history": {2}, "spec": {2},
         "earlier runs": {2}},
    ),
]  # fmt: skip


async def test_an_answer_waits_on_few_run_ai_levels_cold_and_warm(
    fake_slack: FakeSlack, redis_url, redis_client
):
    sim = Simulator(DEMO.model_copy(update={"latency_ms": LATENCY_MS}))
    found = []
    async with running_bots(fake_slack, redis_url, simulator=sim) as [bot]:
        for n, (_, workload, _, _) in enumerate(CHAINS, start=1):
            with logged(sim) as calls:
                ask = f"why did {workload} fail on cluster prod-a?"
                body = slash_command_body(ask, response_url=bot.slack.response_url())
                assert (await bot.send(body)).status_code == 200
                await bot.slack.wait_for_async("chat.update", n)
            found.append(calls)
    for calls, (name, _, levels, placed) in zip(found, CHAINS, strict=True):
        assert chain_levels(calls) == levels, (name, _levels(calls))
        got = _levels(calls)
        assert {k: got.get(k) for k in placed} == placed, name
