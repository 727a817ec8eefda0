"""A claimed Teams turn when things fail: the asker is told privately, truthfully, once.

The turn runs on the real engine, authorizer and Run:ai client (against the simulator) and
the real Bot Connector client (against the fake), in-process over ASGI transports.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import pytest
import redis.asyncio as redis
from pydantic import SecretStr

from bot.app.engines import serving_engine
from bot.authz import Authorizer
from bot.config import Settings
from bot.conversation import MemoryStore, Notice, RedisStore, StateStore
from bot.conversation.messages import BUSY, CRASHED, STORE_DOWN
from bot.ops.audit import LogAuditSink
from bot.teams.activity import read_activity
from bot.teams.messages import to_teams
from bot.teams.responder import ReplyTarget, TeamsResponder
from bot.teams.runtime import TeamsRuntime, build_teams
from bot.teams.turns import thread_key
from diagnosis import RunaiClient
from runai_sim.app import Simulator
from tests.bot.teams.fake_teams import APP_ID, BOT_ID, PASSWORD, TENANT, FakeTeams
from tests.bot.teams.harness import ALLOWED_EMAIL, DEMO

pytestmark = pytest.mark.e2e  # a real Redis (and a dead one) over sockets

BASE = "http://teams.test"


@asynccontextmanager
async def _teams(store: StateStore, fake: FakeTeams) -> AsyncIterator[TeamsRuntime]:
    settings = Settings(
        _env_file=None,
        teams_app_id=APP_ID,
        teams_app_password=SecretStr(PASSWORD),
        teams_tenant_id=TENANT,
        teams_login_url=f"{BASE}/token",
        runai_url="http://runai.test",
        runai_client_id="runai-why-demo",
        runai_client_secret=SecretStr("demo-secret"),
        runai_retries=0,
    )
    sim = httpx.ASGITransport(app=Simulator(DEMO).app)
    async with RunaiClient(settings.runai.config(), transport=sim) as runai:
        make_engine = functools.partial(
            serving_engine,
            settings,
            runai=runai,
            kube=None,
            store=store,
            authorizer=Authorizer.from_settings(settings, runai, None),
            audit=LogAuditSink(),
            clock=lambda: DEMO.now,
            flights=None,
            max_concurrent=settings.diagnosis.concurrency(dedicated=False),
        )
        runtime = build_teams(
            settings,
            make_engine=make_engine,
            redis_client=None,
            transport=httpx.ASGITransport(app=fake.app()),
        )
        try:
            yield runtime
        finally:
            await runtime.aclose()


def _personal(text: str):
    fake = FakeTeams(url=BASE)
    fake.members["29:u1"] = {"email": ALLOWED_EMAIL, "tenantId": TENANT}
    inbound = read_activity(
        {
            "type": "message",
            "id": "m-1",
            "serviceUrl": BASE,
            "from": {"id": "29:u1"},
            "recipient": {"id": BOT_ID},
            "conversation": {"id": "a:chat", "conversationType": "personal", "tenantId": TENANT},
            "text": text,
        }
    )
    return fake, inbound


def _shown(text: str) -> list[str]:
    """What the asker sees of the notice `text`: one markdown message, escaped for Teams."""
    [notice] = to_teams(Notice(text, private=True), runai_url=None)
    assert notice["textFormat"] == "markdown"
    return [notice["text"]]


async def _run(runtime: TeamsRuntime, inbound) -> None:
    responder = TeamsResponder(runtime.connector, ReplyTarget.of(inbound), runai_url=None)
    await runtime.turns.run(inbound, responder)


async def test_a_connector_failure_mid_turn_is_told_as_a_crash():
    fake, inbound = _personal("why did training-job-42 in ml-team fail?")
    fake.fail_next("send", 500)  # the question cannot be posted
    async with _teams(MemoryStore(), fake) as runtime:
        await _run(runtime, inbound)
    [_, told] = fake.of("send")
    assert told.texts == _shown(CRASHED)


async def test_an_unreachable_store_is_told_as_nothing_processed():
    fake, inbound = _personal("why did training-job-42 in ml-team fail?")
    dead = redis.Redis.from_url("redis://127.0.0.1:9/0", socket_connect_timeout=1)
    async with _teams(RedisStore(dead), fake) as runtime:
        await _run(runtime, inbound)
    await dead.aclose()
    [told] = fake.of("send")
    assert told.texts == _shown(STORE_DOWN)


async def test_a_thread_held_by_another_replica_is_busy(redis_client):
    fake, inbound = _personal("why did training-job-42 in ml-team fail?")
    store = RedisStore(redis_client, lock_timeout_s=0.5)
    held = redis_client.lock(thread_key(inbound).redis_key("lock"), timeout=30)
    assert await held.acquire()
    try:
        async with _teams(store, fake) as runtime:
            await _run(runtime, inbound)
    finally:
        await held.release()
    [told] = fake.of("send")
    assert told.texts == _shown(BUSY)


async def test_a_thread_reply_while_a_replica_holds_the_thread_is_busy(redis_client):
    fake, inbound = _personal("prod-a")
    plain = dataclasses.replace(inbound, directed=False)
    store = RedisStore(redis_client, lock_timeout_s=0.5)
    held = redis_client.lock(thread_key(plain).redis_key("lock"), timeout=30)
    assert await held.acquire()
    try:
        async with _teams(store, fake) as runtime:
            await _run(runtime, plain)
    finally:
        await held.release()
    [told] = fake.of("send")
    assert told.texts == _shown(BUSY)
