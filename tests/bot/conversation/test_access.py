"""The engine's authorization: per-asker identities, private audited denials, channel policy."""

from __future__ import annotations

from bot.app.backends import simulated
from bot.authz import Authorizer, Identity
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
    report_action,
)
from bot.conversation.messages import PRIVATE_QUESTION
from bot.ops.audit_events import AUTHZ_DENIED_OUTCOME
from tests.bot.authz.people import people_scenario
from tests.bot.conversation.harness import DEMO, PEOPLE, Harness, Sink, people

ASK_NLP = "why did jupyter-alice in nlp fail on cluster prod-a"
#: A Training in nlp that is still Running: asked by name, a question with candidates.
ASK_RUNNING = "why did t5-distill in nlp fail on cluster prod-a"
DENIED = (
    "No project called nlp on prod-a is readable by you. If it is the right name, ask your "
    "Run:ai administrator for read access."
)


async def test_a_denial_is_private_audited_and_nothing_else_is_said():
    sink = Sink()
    async with people(sink) as chat:
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
    async with people(sink) as chat:
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
    async with people(sink, channel_projects={"C1": ["ml-team"]}) as chat:
        replies = (await chat.say(ASK_NLP, user="UB")).replies()
        [report, offer] = replies
        assert isinstance(report, ReportReply)
        assert report.private
        assert isinstance(offer, Question)
        assert offer.private
        assert [report_action(c.value)[0] for c in offer.choices] == [PUBLISH]
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


async def _as(incoming: Incoming) -> Identity:
    return Identity.console({**PEOPLE, "UD": "dave@acme.ai"}[incoming.user])


async def test_a_private_question_is_answered_by_its_asker_only():
    """In a mapped channel bob's question (with its candidates) was his alone to see."""
    model = people_scenario()
    async with simulated(model, retries=0, transport="asgi") as up:
        assert up.simulator is not None
        access = Access(Authorizer(up.runai), _as, channel_projects={"C1": ["ml-team"]})
        conversation = ConversationEngine(
            runai=up.runai, store=MemoryStore(), clock=lambda: model.now, access=access
        )
        chat = Harness(conversation, up.simulator, MemoryStore())
        [asked] = (await chat.say(ASK_RUNNING, user="UB")).replies()
        assert isinstance(asked, Question)
        assert asked.private
        assert asked.choices
        huh = (await chat.say("@runai-why what?", user="UD")).replies()
        pick = (await chat.say("@runai-why 1", user="UD")).replies()
        thanks = (await chat.say("thanks", user="UD")).replies()
        picked = (await chat.say("1", user="UB")).replies()
    assert huh == pick == [Notice(PRIVATE_QUESTION, private=True)]
    assert thanks == []
    assert [type(r) for r in picked if not isinstance(r, Question)] == [ReportReply]  # bob picks


async def test_an_id_carried_over_from_someone_else_is_not_named_in_a_denial():
    jupyter = next(w.id for w in DEMO.workloads if w.workload["name"] == "jupyter-alice")
    sink = Sink()
    async with people(sink) as chat:
        answered = (await chat.say(f"why did {jupyter} fail on cluster prod-a", user="UB")).last()
        assert isinstance(answered, ReportReply)
        carried = (await chat.say("@runai-why on cluster prod-a", user="UA")).replies()
        typed = (await chat.say(f"@runai-why what about {jupyter}", user="UA")).replies()
    assert carried == [
        Notice(
            "You don't have read access to the workload this thread is about in Run:ai; "
            "ask your Run:ai administrator.",
            private=True,
        )
    ]
    assert typed == [
        Notice(
            f"You don't have read access to workload {jupyter} in Run:ai; "
            "ask your Run:ai administrator.",
            private=True,
        )
    ]
