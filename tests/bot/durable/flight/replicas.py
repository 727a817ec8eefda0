"""Replicas of the conversation engine on one real Redis and one simulator, for flight tests."""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field

import httpx
import redis.asyncio

from bot.app.backends import ASGI_BASE_URL
from bot.app.demo.scenarios import bundled_scenario
from bot.authz import Authorizer, Identity
from bot.conversation import (
    Access,
    ConversationEngine,
    Incoming,
    RedisStore,
    ThreadKey,
)
from bot.durable.flight import Flights
from bot.ops.metrics import REGISTRY
from diagnosis import CallLimiter, RunaiClient, RunaiConfig
from runai_sim.app import Simulator
from runai_sim.scenario import Scenario
from tests.bot.conversation.harness import Recorder

DEMO = bundled_scenario("demo")
JOB_42 = "f0658dcc-8ddb-493b-b983-99894f206aea"
BY_NAME = "why did training-job-42 in ml-team fail on cluster prod-a?"
ALICE = "alice@acme.ai"
MALLORY = "mallory@acme.ai"
"""A demo user with no access rules at all: may see nothing."""
TOKEN_PATH = "/api/v1/token"


@dataclass
class Replica:
    """One replica: its own Redis connection pool, Run:ai client and engine."""

    engine: ConversationEngine
    runai: RunaiClient
    flights: Flights
    asked: int = field(default=0)

    async def ask(self, text: str, *, user: str = ALICE) -> Recorder:
        """`text` in a thread of its own; the recorder holds what the asker was shown."""
        self.asked += 1
        key = ThreadKey("test", "T1", "C1", f"{id(self)}.{self.asked}")
        recorder = Recorder()
        await self.engine.handle(Incoming(key, user, text=text, directed=True), recorder)
        return recorder


def upstream_calls(simulator: Simulator) -> Counter[tuple[str, str]]:
    """The Run:ai calls the simulator received, token requests left out (one per process)."""
    return Counter((r.method, r.path) for r in simulator.requests if r.path != TOKEN_PATH)


def shared(via: str) -> float:
    """`SHARED_DIAGNOSES{via}` so far."""
    return REGISTRY.get_sample_value("runai_why_shared_diagnoses_total", {"via": via}) or 0.0


async def _identify(incoming: Incoming) -> Identity:
    return Identity.console(incoming.user)


@asynccontextmanager
async def replicas(
    redis_url: str,
    *,
    count: int = 2,
    scenario: Scenario = DEMO,
    cache_ttl_s: float = 30.0,
    authz: bool = False,
    app: object | None = None,
    limiter: CallLimiter | None = None,
    simulator: Simulator | None = None,
) -> AsyncIterator[tuple[Simulator, list[Replica]]]:
    """`count` replicas against one simulator (reached in-process) and one Redis.

    `app` wraps the simulator's ASGI app (to hold or count requests); `authz` turns on
    per-user authorization, the asker's user ID being their e-mail (off by default).
    """
    sim = simulator or Simulator(scenario)
    transport = httpx.ASGITransport(app=app or sim.app)  # type: ignore[arg-type]
    creds = scenario.credentials
    config = RunaiConfig(
        url=ASGI_BASE_URL,
        client_id=creds.client_id,
        client_secret=creds.client_secret,
        retries=0,
    )
    async with AsyncExitStack() as stack:
        found = []
        for _ in range(count):
            client = redis.asyncio.Redis.from_url(redis_url, decode_responses=True)
            stack.push_async_callback(client.aclose)
            options = {} if limiter is None else {"limiter": limiter}
            runai = await stack.enter_async_context(
                RunaiClient(config, transport=transport, **options)  # type: ignore[arg-type]
            )
            # Reads kept as long as reports: a busy machine's slow storm still shares them.
            flights = Flights(
                client,
                report_ttl_s=cache_ttl_s,
                lookup_ttl_s=cache_ttl_s,
                lock_ttl_s=3.0,
                poll_s=0.2,
            )
            # Closed before the clients (the stack unwinds last in, first out): a flight or a
            # read ahead left running would use Redis after the test.
            stack.push_async_callback(flights.aclose)
            authorizer = Authorizer(runai, mode="runai" if authz else "off")
            stack.push_async_callback(authorizer.aclose)
            access = Access(authorizer, _identify)
            engine = ConversationEngine(
                runai=runai,
                store=RedisStore(client),
                access=access,
                clock=lambda: scenario.now,
                flights=flights,
            )
            stack.push_async_callback(engine.aclose)  # its reads ahead, before its flights
            found.append(Replica(engine, runai, flights))
        yield sim, found
