"""A conversation over the real engine, client and simulator, recorded reply by reply."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from bot.app.backends import simulated
from bot.app.demo.scenarios import bundled_scenario
from bot.authz import Authorizer, Identity
from bot.conversation import (
    Access,
    ConversationEngine,
    Incoming,
    MemoryStore,
    Reply,
    StateStore,
    ThreadKey,
    console_identity,
)
from bot.ops.audit_events import AuditEvent
from runai_sim.app import Simulator
from runai_sim.scenario import Scenario


@dataclass
class Sink:
    """An audit sink that keeps every event."""

    events: list[AuditEvent] = field(default_factory=list)

    async def record(self, event: AuditEvent) -> None:
        self.events.append(event)


@dataclass
class Recorder:
    """A Responder that keeps the conversation as a list of (action, reply)."""

    log: list[tuple[str, Reply]] = field(default_factory=list)

    def thread(self) -> str | None:
        return None

    async def post(self, reply: Reply) -> str:
        self.log.append(("post", reply))
        return str(len(self.log))

    async def update(self, ref: str, reply: Reply) -> None:
        self.log.append((f"update {ref}", reply))

    def last(self) -> Reply:
        return self.log[-1][1]

    def replies(self) -> list[Reply]:
        return [reply for _, reply in self.log]


@dataclass
class Harness:
    engine: ConversationEngine
    simulator: Simulator
    store: StateStore
    key: ThreadKey = field(default_factory=lambda: ThreadKey("test", "T1", "C1", "100.1"))

    async def say(
        self,
        text: str,
        *,
        user: str = "U1",
        directed: bool = True,
        bot_thread: bool = False,
        recorder: Recorder | None = None,
    ) -> Recorder:
        recorder = recorder or Recorder()
        incoming = Incoming(self.key, user, text=text, directed=directed, bot_thread=bot_thread)
        await self.engine.handle(incoming, recorder)
        return recorder

    async def click(
        self, value: str, *, user: str = "U1", message_ref: str | None = None
    ) -> Recorder:
        recorder = Recorder()
        incoming = Incoming(self.key, user, choice=value, message_ref=message_ref)
        await self.engine.handle(incoming, recorder)
        return recorder


async def harness(
    scenario: Scenario, *, store: StateStore | None = None, **engine_options: Any
) -> AsyncIterator[Harness]:
    """An engine over an in-process simulator of `scenario`, by default with a fresh store."""
    async with simulated(scenario, retries=0, transport="asgi") as up:
        assert up.simulator is not None
        store = store or MemoryStore()
        engine_options.setdefault(
            "access",
            Access(Authorizer(up.runai, mode="off"), console_identity("alice@acme.ai")),
        )
        engine = ConversationEngine(
            runai=up.runai,
            kube=up.kube,
            store=store,
            clock=lambda: scenario.now,
            **engine_options,
        )
        yield Harness(engine, up.simulator, store)


DEMO = bundled_scenario("demo")
#: The demo's people: alice may not read project nlp, bob reads everything.
PEOPLE = {"UA": "alice@acme.ai", "UB": "bob@acme.ai"}


async def _by_user(incoming: Incoming) -> Identity:
    return Identity.console(PEOPLE[incoming.user])


@asynccontextmanager
async def people(
    sink: Sink, channel_projects: Mapping[str, Sequence[str]] | None = None
) -> AsyncIterator[Harness]:
    """An engine over the demo that asks as `PEOPLE` (UA, UB), with the channel policy given."""
    async with simulated(DEMO, retries=0, transport="asgi") as up:
        assert up.simulator is not None
        access = Access(Authorizer(up.runai), _by_user, channel_projects=channel_projects or {})
        conversation = ConversationEngine(
            runai=up.runai,
            kube=up.kube,
            store=MemoryStore(),
            clock=lambda: DEMO.now,
            audit=sink,
            access=access,
        )
        yield Harness(conversation, up.simulator, MemoryStore())
