"""A Teams activity as a work item: its dedupe key, and its JSON round trip through the queue."""

from __future__ import annotations

import dataclasses

import pytest

from bot.conversation import RERUN, SHOW_EVIDENCE
from bot.teams.activity import Inbound
from bot.teams.endpoint import _Refusals
from bot.teams.intake import PLATFORM, TeamsSpec, dedupe_key, incoming_of
from bot.teams.responder import ReplyTarget
from bot.teams.turns import thread_key
from bot.work import WorkItem, new_item

MESSAGE = Inbound(
    activity_id="1700000000001",
    service_url="https://smba.example/teams/",
    conversation_id="19:room@thread.tacv2;messageid=1700000000000",
    channel="19:room@thread.tacv2",
    thread="1700000000000",
    conversation_type="channel",
    tenant_id="tenant-acme",
    user_id="29:u1",
    aad_object_id="aad-u1",
    bot_id="28:bot",
    text="why did training-job-42 fail?",
    directed=True,
)
CLICK = dataclasses.replace(
    MESSAGE, activity_id="1700000000002", text="", choice="prod-a", card_id="act-9"
)
QUESTION = thread_key(MESSAGE).redis_key("q")


@pytest.mark.parametrize(
    ("inbound", "key"),
    [
        pytest.param(
            MESSAGE, "teams:activity:tenant-acme:19:room@thread.tacv2:1700000000001", id="message"
        ),
        pytest.param(
            CLICK, f"teams:click:{QUESTION}:act-9:prod-a:29:u1", id="a click on a question"
        ),
        pytest.param(
            dataclasses.replace(CLICK, activity_id="1700000000003"),
            f"teams:click:{QUESTION}:act-9:prod-a:29:u1",
            id="the same click again (a double click): the same key",
        ),
        pytest.param(
            dataclasses.replace(CLICK, user_id="29:u2"),
            f"teams:click:{QUESTION}:act-9:prod-a:29:u2",
            id="a teammate's click: a key of its own",
        ),
        pytest.param(
            dataclasses.replace(CLICK, card_id=None),
            "teams:activity:tenant-acme:19:room@thread.tacv2:1700000000002",
            id="a click on no known card: the activity",
        ),
        pytest.param(
            dataclasses.replace(CLICK, choice=SHOW_EVIDENCE),
            "teams:activity:tenant-acme:19:room@thread.tacv2:1700000000002",
            id="show all evidence: may be pressed again",
        ),
        pytest.param(
            dataclasses.replace(CLICK, choice=RERUN),
            "teams:activity:tenant-acme:19:room@thread.tacv2:1700000000002",
            id="check again: may be pressed again",
        ),
        pytest.param(
            dataclasses.replace(
                CLICK, choice=f'{SHOW_EVIDENCE} {{"cluster_id":"c","workload_id":"w"}}'
            ),
            "teams:activity:tenant-acme:19:room@thread.tacv2:1700000000002",
            id="show all evidence on its answer: may be pressed again",
        ),
        pytest.param(
            dataclasses.replace(CLICK, choice=f'{RERUN} {{"cluster_id":"c","workload_id":"w"}}'),
            "teams:activity:tenant-acme:19:room@thread.tacv2:1700000000002",
            id="check again on its answer: may be pressed again",
        ),
    ],
)
def test_dedupe_keys(inbound: Inbound, key: str):
    assert dedupe_key(inbound) == key


@pytest.mark.parametrize("inbound", [MESSAGE, CLICK], ids=["message", "click"])
def test_an_item_carries_the_activity_and_its_target_through_json(inbound: Inbound):
    spec = TeamsSpec(inbound=inbound, target=ReplyTarget.of(inbound))
    item = new_item(
        platform=PLATFORM,
        kind="message",
        incoming=incoming_of(inbound),
        responder=spec.model_dump(mode="json"),
        deadline_s=60,
    )
    read = WorkItem.model_validate_json(item.model_dump_json())  # what a worker reads
    again = TeamsSpec.model_validate(read.responder)
    assert again.inbound == inbound
    assert again.target == ReplyTarget.of(inbound)
    assert read.incoming == incoming_of(inbound)
    assert (read.incoming.choice, read.incoming.message_ref) == (inbound.choice, inbound.card_id)


def test_refusals_told_are_remembered_each_for_a_while_and_at_most_a_bound_of_them():
    told = _Refusals(ttl_s=60, limit=2)
    firsts = [told.first(key) for key in ("a", "a", "b", "c", "b", "a")]
    assert firsts == [True, False, True, True, False, True]  # "a", the oldest, made room
    expired = _Refusals(ttl_s=0)
    assert [expired.first("a"), expired.first("a")] == [True, True]  # its time was up
