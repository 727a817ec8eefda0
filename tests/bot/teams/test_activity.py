"""Reading verified activities: where, who, what, and whether it is meant for the bot."""

from __future__ import annotations

from typing import Any

import pytest

from bot.teams.activity import CHAT_THREAD, NotForUs, read_activity
from tests.bot.teams.fake_teams import BOT_ID, TENANT

CHANNEL = "19:room@thread.tacv2"
AT = {"type": "mention", "text": "<at>runai-why</at>", "mentioned": {"id": BOT_ID, "name": "r"}}


def _activity(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "type": "message",
        "id": "1001",
        "channelId": "msteams",
        "serviceUrl": "https://smba.example/teams/",
        "from": {"id": "29:u1", "aadObjectId": "aad-1"},
        "recipient": {"id": BOT_ID},
        "conversation": {"id": f"{CHANNEL};messageid=1000", "conversationType": "channel"},
        "channelData": {"tenant": {"id": TENANT}},
        "text": "<at>runai-why</at> why did x fail?",
        "entities": [AT],
    }
    return {**base, **fields}


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        pytest.param(
            {},
            {"thread": "1000", "channel": CHANNEL, "directed": True, "text": "why did x fail?"},
            id="channel-thread-mention",
        ),
        pytest.param(
            {"conversation": {"id": CHANNEL, "conversationType": "channel"}},
            {"thread": "1001", "conversation_id": f"{CHANNEL};messageid=1001"},
            id="new-channel-post",
        ),
        pytest.param(
            {"entities": [], "text": "prod-a", "replyToId": "1000"},
            {"thread": "1000", "directed": False, "text": "prod-a"},
            id="plain-thread-reply",
        ),
        pytest.param(
            {"conversation": {"id": "a:chat", "conversationType": "personal"}, "entities": []},
            {"thread": CHAT_THREAD, "directed": True, "personal": True},
            id="personal-chat",
        ),
        pytest.param(
            {"conversation": {"id": "19:g@thread.v2", "conversationType": "groupChat"}},
            {"thread": CHAT_THREAD, "directed": True, "conversation_id": "19:g@thread.v2"},
            id="group-chat-mention",
        ),
        pytest.param(
            {"value": {"runai_why": "choice", "value": "cluster:1"}, "replyToId": "card-1"},
            {"choice": "cluster:1", "card_id": "card-1", "text": ""},
            id="submit",
        ),
        pytest.param(
            {"value": {"something": "else"}, "entities": [], "text": "hi"},
            {"choice": None, "directed": False},
            id="foreign-card",
        ),
        pytest.param(
            {"conversation": {"id": "a:chat", "tenantId": "t-2"}, "channelData": None},
            {"tenant_id": "t-2", "thread": CHAT_THREAD},
            id="tenant-from-conversation",
        ),
    ],
)
def test_read_activity(fields: dict[str, Any], expected: dict[str, Any]):
    inbound = read_activity(_activity(**fields))
    assert {k: getattr(inbound, k) for k in expected} == expected
    assert inbound.user_id == "29:u1"
    assert inbound.bot_id == BOT_ID


def test_an_action_execute_invoke_is_a_click():
    body = _activity(
        type="invoke",
        name="adaptiveCard/action",
        replyToId="card-9",
        value={"action": {"type": "Action.Execute", "data": {"runai_why": "choice", "value": "v"}}},
    )
    inbound = read_activity(body)
    assert (inbound.choice, inbound.invoke, inbound.card_id) == ("v", True, "card-9")


@pytest.mark.parametrize(
    ("body", "why"),
    [
        pytest.param({"type": "conversationUpdate"}, "not handled", id="conversation-update"),
        pytest.param({"from": {"id": BOT_ID}}, "own activity", id="own"),
        pytest.param({"id": ""}, "no id", id="no-id"),
        pytest.param({"channelId": "webchat"}, "not a Teams activity", id="web-chat"),
        pytest.param({"conversation": "not an object"}, "not a Bot Framework", id="malformed"),
    ],
)
def test_activities_the_bot_ignores(body: dict[str, Any], why: str):
    with pytest.raises(NotForUs, match=why):
        read_activity(_activity(**body))


def _at(name: str, account: str = BOT_ID) -> dict[str, Any]:
    return {"type": "mention", "text": f"<at>{name}</at>", "mentioned": {"id": account}}


@pytest.mark.parametrize(
    ("text", "entities", "expected"),
    [
        pytest.param(
            "<at>runai-why</at> why did x fail? <at>runai-why</at>",
            [AT, AT],
            "why did x fail?",
            id="twice",
        ),
        pytest.param(
            "<at>bot</at> ask <at>Ann</at> about x",
            [_at("bot"), _at("Ann", "29:ann")],
            "ask <at>Ann</at> about x",
            id="only-ours",
        ),
        pytest.param(
            " ".join(f"<at>m{i}</at>" for i in range(1000)) + " why did x fail?",
            [_at(f"m{i}") for i in range(1000)],
            " ".join(f"<at>m{i}</at>" for i in range(4, 1000)) + " why did x fail?",
            id="a-thousand-made-up-mentions-of-the-bot",
        ),
    ],
)
def test_the_bots_mentions_are_stripped_a_few_at_most(text: str, entities: list, expected: str):
    """One pass over the text per different mention of the bot, and at most four of them."""
    assert read_activity(_activity(text=text, entities=entities)).text == expected


def test_a_link_teams_titled_keeps_its_url_from_the_html_mirror():
    """The composer turned a pasted Run:ai URL into a titled link: the URL is only in HTML."""
    url = "https://acme.run.ai/workloads?clusterId=c&amp;workloadId=w"
    mirror = (
        '<div><span itemtype="http://schema.skype.com/Mention" itemid="0">runai-why</span>'
        f'&nbsp;why did <a href="{url}" title="Run:ai">Workloads | Run:ai</a> fail?'
        '<a href="https://acme.run.ai/workloads?clusterId=c&amp;workloadId=w">again</a></div>'
    )
    inbound = read_activity(
        _activity(
            text="<at>runai-why</at> why did Workloads | Run:ai fail?",
            attachments=[{"contentType": "text/html", "content": mirror}],
        )
    )
    assert inbound.text == (
        "why did Workloads | Run:ai fail?\nhttps://acme.run.ai/workloads?clusterId=c&workloadId=w"
    )


def test_a_message_without_a_mirror_is_its_text():
    inbound = read_activity(_activity(attachments=[{"contentType": "image/png", "content": "x"}]))
    assert inbound.text == "why did x fail?"
