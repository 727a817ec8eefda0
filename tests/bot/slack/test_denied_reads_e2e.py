"""A refused asker causes no evidence read, so none can reach a reply, log, Redis or metric.

The diagnosis authorizes on the status (its project and kind) before it reads events,
pods, history, spec or metrics (`diagnosis.pipeline`); these tests hold it to that over the
simulator's request log, then look for the evidence everywhere the bot writes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis.asyncio
import structlog
from prometheus_client import generate_latest

from bot.ops.metrics import REGISTRY
from runai_sim.app import Simulator
from tests.bot.slack.fake_slack import BOT_USER_ID, FakeSlack
from tests.bot.slack.harness import DEMO, running_bots, settle
from tests.bot.slack.signing import app_mention_event, event_body

pytestmark = pytest.mark.e2e

ALICE = "U5"  # alice@acme.ai reads ml-team and vision, not nlp
T5 = next(w for w in DEMO.workloads if w.workload["name"] == "t5-distill")
T5_ID = str(T5.workload["id"])
#: What only its events and pods say (its status, read to authorize, names neither).
EVIDENCE = ("dgx-a100-05", "Successfully assigned pod runai-nlp/t5-distill")


def _asked_about(sim: Simulator) -> list[str]:
    return sorted({r.path for r in sim.requests if T5_ID in r.path or T5_ID in str(r.query)})


async def _everything_in_redis(client: redis.asyncio.Redis) -> str:
    """Every key and value in the database, as one text."""
    out: list[str] = []
    async for key in client.scan_iter():
        kind = await client.type(key)
        value: Any = None
        if kind == "string":
            value = await client.get(key)
        elif kind == "hash":
            value = await client.hgetall(key)
        elif kind == "list":
            value = await client.lrange(key, 0, -1)
        elif kind == "zset":
            value = await client.zrange(key, 0, -1)
        elif kind == "stream":
            value = await client.xrange(key)
        out.append(f"{key} {value!r}")
    return "\n".join(out)


@pytest.mark.parametrize("allowed", [False, True], ids=["refused", "allowed"])
async def test_only_the_status_is_read_before_access_is_granted(
    fake_slack: FakeSlack,
    redis_url,
    redis_client,
    allowed: bool,  # noqa: FBT001 - a parameter of the test table
):
    fake_slack.users[ALICE] = {"profile": {"display_name": "alice", "email": "alice@acme.ai"}}
    user = "U1" if allowed else ALICE  # U1: bob@acme.ai reads every project
    sim = Simulator(DEMO)
    with structlog.testing.capture_logs() as logs:
        async with running_bots(fake_slack, redis_url, simulator=sim) as [bot]:
            text = f"<@{BOT_USER_ID}> why did {T5_ID} fail on cluster prod-a?"
            event = app_mention_event(text, user=user, channel="C1", ts="1700007100.000100")
            assert (await bot.send(event_body(event))).status_code == 200
            if allowed:
                await fake_slack.wait_for_async("chat.update")
            else:
                await fake_slack.wait_for_async("chat.postEphemeral")
            await settle(bot)
            stored = await _everything_in_redis(redis_client)
    status = f"/api/v1/workloads/{T5_ID}"
    if allowed:  # the control: these reads do happen once access is granted
        assert {f"{status}/events", f"{status}/pods", f"{status}/history"} <= set(_asked_about(sim))
        return
    assert _asked_about(sim) == [status], "nothing but the status before access is granted"
    said = json.dumps([c.body for c in fake_slack.calls()])
    logged = json.dumps(logs, default=str)
    metrics = generate_latest(REGISTRY).decode()
    for where, text in (("slack", said), ("logs", logged), ("redis", stored), ("metrics", metrics)):
        assert [e for e in EVIDENCE if e in text] == [], where
