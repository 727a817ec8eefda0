"""Which cluster? No cluster is named to someone before their access is known.

The real engine and client over the simulated control plane of the authorization tests
(`tests/bot/authz/model.py`: clusters prod-a and prod-b, departments and projects), with
one person whose rules each case sets.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import pytest

from bot.app.backends import simulated
from bot.authz import Authorizer, Identity
from bot.conversation import Access, ConversationEngine, MemoryStore, Notice, Question
from bot.ops.audit_events import AUTHZ_DENIED_OUTCOME
from tests.bot.authz.model import ALICE, NAMES, Rule, scenario
from tests.bot.authz.people import NOWHERE
from tests.bot.conversation.harness import Harness, Sink

U = "user"
ASK = "why did train-bert in nlp fail?"


async def _alice(_: Any) -> Identity:
    return Identity.console(ALICE)


@asynccontextmanager
async def chat(
    rules: Sequence[Rule], *, sink: Sink | None = None, mode: str = "runai", **options: Any
) -> AsyncIterator[Harness]:
    model = scenario(rules=rules)
    async with simulated(model, retries=0, transport="asgi") as up:
        assert up.simulator is not None
        authorizer = Authorizer(up.runai, mode=mode)  # type: ignore[arg-type]
        engine = ConversationEngine(
            runai=up.runai,
            store=MemoryStore(),
            clock=lambda: model.now,
            access=Access(authorizer, _alice),
            audit=sink or Sink(),
            **options,
        )
        yield Harness(engine, up.simulator, MemoryStore())


def _buttons(reply: Any) -> list[str]:
    assert isinstance(reply, Question)
    return [c.label for c in reply.choices]


def _text(reply: Any) -> str:
    assert isinstance(reply, Notice | Question)
    return reply.text


#: id: (rules, the clusters the question offers)
OFFERED: dict[str, tuple[list[Rule], list[str]]] = {
    "tenant-wide: every cluster": ([(U, ALICE, 2, "tenant", "tenant")], ["prod-a", "prod-b"]),
    "one cluster": ([(U, ALICE, 2, "cluster", "B")], ["prod-b"]),
    "a department's cluster": ([(U, ALICE, 3, "department", "d-research-b")], ["prod-b"]),
    "a project's cluster": ([(U, ALICE, 4, "project", "p-vision")], ["prod-a"]),
}


@pytest.mark.parametrize(("rules", "offered"), OFFERED.values(), ids=OFFERED.keys())
async def test_the_cluster_question_offers_only_where_the_asker_reads(rules, offered):
    async with chat(rules) as talk:
        [question] = (await talk.say(ASK)).replies()
    assert not question.private
    assert _text(question) == "Which Run:ai cluster is it on?"
    assert _buttons(question) == offered


async def test_someone_who_reads_nothing_anywhere_is_told_privately_and_no_cluster_is_named():
    sink = Sink()
    async with chat([(U, ALICE, 5, "tenant", "tenant")], sink=sink) as talk:
        replies = (await talk.say(ASK)).replies()
    assert replies == [Notice(NOWHERE, private=True)]
    [event] = sink.events
    assert (event.outcome, event.reason, event.cluster_id, event.project) == (
        AUTHZ_DENIED_OUTCOME,
        "no_read_access",
        "",
        "",
    )
    assert event.workload is None


async def test_an_unknown_cluster_name_is_answered_with_the_readable_clusters_only():
    async with chat([(U, ALICE, 2, "project", "p-nlp-b")]) as talk:
        [question] = (await talk.say(f"{ASK} on cluster prod-z")).replies()
    assert _text(question).startswith("I don't know a cluster called 'prod-z'")
    assert _buttons(question) == ["prod-b"]


async def test_an_unknown_cluster_name_from_someone_without_access_names_no_cluster():
    async with chat([]) as talk:
        replies = (await talk.say(f"{ASK} on cluster prod-z")).replies()
    assert replies == [Notice(NOWHERE, private=True)]


async def test_a_typed_cluster_that_exists_goes_on_to_the_project_check():
    async with chat([]) as talk:
        [denied] = (await talk.say(f"{ASK} on cluster prod-b")).replies()
    assert denied == Notice(  # none of their projects: said without telling it exists
        "No project called nlp on prod-b is readable by you. If it is the right name, ask "
        "your Run:ai administrator for read access.",
        private=True,
    )


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        ([], NOWHERE),
        ([(U, ALICE, 2, "cluster", "B")], "Which project is `train-bert` in?"),
    ],
    ids=["no access: denied first", "access elsewhere: the default is used"],
)
async def test_a_channels_default_cluster_is_used_only_after_the_access_decision(rules, expected):
    async with chat(rules, channel_defaults={"C1": NAMES["A"]}) as talk:
        [reply] = (await talk.say("why did train-bert fail?")).replies()
    assert _text(reply) == expected
    assert reply.private is (expected == NOWHERE)


async def test_failed_access_lookups_fail_closed_with_the_unchecked_wording():
    async with chat([(U, ALICE, 2, "tenant", "tenant")]) as talk:
        talk.simulator.add_fault({"path": "/api/v1/authorization/roles", "status": 503})
        # `in nlp` alone may be a cluster's name, which the list (naming nothing) would tell
        replies = (await talk.say("why did train-bert in project nlp fail?")).replies()
        listed = [r for r in talk.simulator.requests if r.path == "/api/v1/clusters"]
    assert replies == [
        Notice(
            "Your read access to workloads on any cluster could not be checked in Run:ai, so "
            "nothing is shown; try again in a few minutes, or ask your Run:ai administrator "
            "if it keeps failing.",
            private=True,
        )
    ]
    assert listed == []  # decided before the cluster list was even read


async def test_with_authorization_off_every_cluster_is_offered():
    async with chat([], mode="off") as talk:
        [question] = (await talk.say(ASK)).replies()
    assert _buttons(question) == ["prod-a", "prod-b"]
