"""`watch`, `unwatch` and `watches`: who may subscribe a channel, and what everyone is told."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.app.backends import simulated
from bot.push import MemoryKv
from bot.watch.subscriptions import Subscriptions
from tests.bot.push.chat import Chat
from tests.bot.push.scenes import DEMO


async def test_subscribing_is_public_and_says_who_and_that_everyone_sees(chat: Chat):
    said = await chat.say("watch nlp on prod-a with preemptions")
    assert said == (
        "runai-why> bob@acme.ai subscribed this channel to failures and preemptions of project "
        "nlp on prod-a. Everyone in this channel will see those answers, whatever their own "
        "Run:ai access. `unwatch nlp on prod-a` stops it.\n"
    )
    [kept] = await chat.subscriptions.stored()
    assert (kept.project, kept.cluster_name, kept.preemptions, kept.subscribed_by) == (
        "nlp",
        "prod-a",
        True,
        "bob@acme.ai",
    )
    assert "already watches" in await chat.say("watch nlp on 2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92")
    listing = await chat.say("watches")
    assert "- project nlp on prod-a (by bob@acme.ai, " in listing
    assert ", with preemptions)" in listing
    assert "- project vision on prod-a (the WATCHES setting)" in listing


async def test_someone_who_cannot_read_the_project_is_refused_privately(chat: Chat):
    said = await chat.say("watch nlp on prod-a", as_email="alice@acme.ai")
    assert said.startswith(
        "runai-why> (only you) You don't have read access to workloads in project nlp on prod-a"
    )
    assert await chat.subscriptions.stored() == []
    assert "(only you)" in await chat.say("unwatch nlp on prod-a", as_email="alice@acme.ai")


async def test_unwatch(chat: Chat):
    await chat.say("watch nlp on prod-a")
    assert await chat.say("unwatch nlp on prod-a") == (
        "runai-why> bob@acme.ai unsubscribed this channel from project nlp on prod-a.\n"
    )
    assert await chat.subscriptions.stored() == []
    assert "does not watch project nlp" in await chat.say("unwatch nlp on prod-a")
    assert "because the `WATCHES` setting says so" in await chat.say("unwatch vision on prod-a")
    assert "project vision" in await chat.say("watches")  # declared ones stay


@pytest.mark.parametrize(
    ("text", "kwargs", "says"),
    [
        (
            "watch nlp on prod-z",
            {},
            "(only you) I know no cluster named `prod-z` that you may read; nothing changed.",
        ),
        (
            "watch nlp on prod-a",
            {"postable": ()},
            "(only you) I cannot post unasked answers on console yet",
        ),
        (
            "watch nlp on prod-a",
            {"channel_projects": {"console": ["vision"]}},
            "(only you) This channel does not discuss project nlp on prod-a publicly",
        ),
    ],
)
async def test_what_changes_nothing_is_said_privately(
    chat: Chat, text: str, kwargs: dict[str, Any], says: str
):
    assert says in await chat.say(text, **kwargs)
    assert await chat.subscriptions.stored() == []


async def test_a_failing_cluster_list_is_said_privately(chat: Chat):
    async with simulated(
        DEMO.model_copy(update={"faults": [{"path": "/api/v1/clusters", "status": 503}]}),
        transport="asgi",
        retries=0,
    ) as broken:
        failing = Chat(broken.runai, chat.subscriptions, [])
        said = await failing.say("watch nlp on prod-a")
    assert said.startswith("runai-why> (only you) ")
    assert await chat.subscriptions.stored() == []


async def test_no_watch_is_listed_as_none(chat: Chat):
    chat.subscriptions.declared = ()
    assert "This channel watches no project." in await chat.say("watches")


async def test_anything_else_is_a_question_for_the_engine(chat: Chat):
    said = await chat.say("help")
    assert "(only you)" in said
    assert await chat.subscriptions.stored() == []


PROD_A = "2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92"
PROD_B = "6a0f3c1e-7d2b-4e8a-9c5f-1b2d3e4f5a6b"


@pytest.fixture
async def two_clusters() -> AsyncIterator[Chat]:
    world = DEMO.model_copy(deep=True)
    world.clusters.append({**world.clusters[0], "uuid": PROD_B, "name": "prod-b"})
    async with simulated(world, transport="asgi") as up:
        yield Chat(up.runai, Subscriptions(MemoryKv()), [])


@pytest.mark.parametrize(
    ("as_email", "text", "says"),
    [
        ("nobody@acme.ai", "watch nlp on prod-z", "You don't have read access to workloads on any"),
        (
            "nobody@acme.ai",
            f"watch nlp on {PROD_A}",
            "You don't have read access to workloads on any",
        ),
        (  # removing looks up no cluster: it answers with what the channel's watches say
            "nobody@acme.ai",
            f"unwatch nlp on {PROD_A}",
            f"This channel does not watch project nlp on {PROD_A}.",
        ),
        (
            "alice@acme.ai",
            "watch ml-team on prod-b",
            "I know no cluster named `prod-b` that you may",
        ),
        ("alice@acme.ai", f"watch ml-team on {PROD_B}", f"I know no cluster named `{PROD_B}` that"),
        (
            "alice@acme.ai",
            "watch ml-team on prod-z",
            "I know no cluster named `prod-z` that you may",
        ),
    ],
    ids=[
        "no access: an unknown name",
        "no access: a cluster's ID is not turned into its name",
        "no access: unwatch",
        "a cluster they may not read, by name: as if absent",
        "a cluster they may not read, by ID: never named",
        "an unknown name",
    ],
)
async def test_nothing_names_a_cluster_the_asker_may_not_read(
    two_clusters: Chat, as_email: str, text: str, says: str
):
    said = await two_clusters.say(text, as_email=as_email, channel_projects={"console": ["x"]})
    assert said.startswith(f"runai-why> (only you) {says}")
    assert "prod-a" not in said
    assert ("prod-b" in said) is ("prod-b" in text)
    assert await two_clusters.subscriptions.stored() == []
