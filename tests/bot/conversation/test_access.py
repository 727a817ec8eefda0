"""The engine's authorization: per-asker identities, private audited denials, channel policy."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager

from bot.audit import AUTHZ_DENIED_OUTCOME, AuditEvent
from bot.authz import Authorizer, Identity
from bot.backends import simulated
from bot.conversation import (
    PUBLISH,
    Access,
    ConversationEngine,
    EvidenceReply,
    Incoming,
    MemoryStore,
    Notice,
    Question,
    ReportReply,
    ThreadKey,
    console_identity,
)
from bot.scenarios import bundled_scenario
from tests.bot.conversation.harness import Harness

DEMO = bundled_scenario("demo")
PEOPLE = {"UA": "alice@acme.ai", "UB": "bob@acme.ai"}
ASK_NLP = "why did jupyter-alice in nlp fail on cluster prod-a"
DENIED = (
    "You don't have read access to workloads in project nlp on prod-a in Run:ai; "
    "ask your Run:ai administrator."
)


class Sink:
    """Keeps every audit event."""

    def __init__(self) -> None:
        self.events: list[AuditEvent] = []

    async def record(self, event: AuditEvent) -> None:
        self.events.append(event)


async def _by_user(incoming: Incoming) -> Identity:
    return Identity.console(PEOPLE[incoming.user])


@asynccontextmanager
async def engine(
    sink: Sink, channel_projects: Mapping[str, Sequence[str]] | None = None
) -> AsyncIterator[Harness]:
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


async def test_a_denial_is_private_audited_and_nothing_else_is_said():
    sink = Sink()
    async with engine(sink) as chat:
        replies = (await chat.say(ASK_NLP, user="UA")).replies()
    assert replies == [Notice(DENIED, private=True)]
    [event] = sink.events
    assert (event.outcome, event.user, event.project, event.reason) == (
        AUTHZ_DENIED_OUTCOME,
        "UA",
        "nlp",
        "no_read_access",
    )
    assert event.workload == "jupyter-alice"  # as typed, never anything read


async def test_evidence_is_only_for_someone_who_may_read_the_project():
    sink = Sink()
    async with engine(sink) as chat:
        answered = (await chat.say(ASK_NLP, user="UB")).last()
        assert isinstance(answered, ReportReply)
        refused = (await chat.say("@runai-why show logs", user="UA")).replies()
        shown = (await chat.say("@runai-why show logs", user="UB")).replies()
    assert [type(r) for r in refused] == [Notice]
    assert isinstance(refused[0], Notice)
    assert refused[0].private
    assert "jupyter-alice" not in refused[0].text
    assert [type(r) for r in shown] == [EvidenceReply]


async def test_a_mapped_channel_answers_privately_and_the_asker_may_post_it():
    sink = Sink()
    async with engine(sink, channel_projects={"C1": ["ml-team"]}) as chat:
        replies = (await chat.say(ASK_NLP, user="UB")).replies()
        [report, offer] = replies
        assert isinstance(report, ReportReply)
        assert report.private
        assert isinstance(offer, Question)
        assert offer.private
        assert [c.value for c in offer.choices] == [PUBLISH]
        someone_else = (await chat.click(PUBLISH, user="UA")).replies()
        posted = (await chat.click(PUBLISH, user="UB")).replies()
        again = (await chat.click(PUBLISH, user="UB")).replies()
    assert isinstance(someone_else[0], Notice)
    assert someone_else[0].private
    assert posted == [
        ReportReply(report.report, report.lookback, report.notes, cluster_name=report.cluster_name)
    ]
    assert isinstance(again[0], Notice)
    assert again[0].private  # posted once; a second click does not post it again


async def test_the_console_identity_asks_as_its_configured_email():
    identify = console_identity("carol@acme.ai")
    identity = await identify(Incoming(ThreadKey("console", "console", "C", "1"), "anyone"))
    assert (identity.platform, identity.email) == ("console", "carol@acme.ai")
