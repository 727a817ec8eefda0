"""The Teams poster addresses a channel's new post and its thread, or a chat; else nothing."""

from __future__ import annotations

import httpx
import pytest
from pydantic import SecretStr

from bot.conversation import Incoming, ThreadKey
from bot.push import Target
from bot.teams.activity import CHAT_THREAD, Inbound
from bot.teams.connector import TeamsConnector
from bot.teams.push import TeamsPoster, chat, place
from bot.teams.responder import TeamsResponder
from bot.teams.token import BotToken
from bot.teams.turns import current_inbound, thread_key


async def _nothing(_: str) -> None:
    return None


@pytest.fixture
def poster() -> TeamsPoster:
    http = httpx.AsyncClient()
    token = BotToken(
        login_url="https://login.example/t", app_id="app", password=SecretStr("p"), http=http
    )
    return TeamsPoster(TeamsConnector(http, token), app_id="app", runai_url=None)


def test_a_new_post_goes_to_the_channel_a_reply_to_its_thread(poster: TeamsPoster):
    target = Target(
        platform="teams",
        team="tenant",
        channel="19:c@thread.tacv2",
        service_url="https://smba.example/",
    )
    root = poster.responder(target, None, _nothing)
    reply = poster.responder(target, "1700", _nothing)
    assert isinstance(root, TeamsResponder)
    assert isinstance(reply, TeamsResponder)
    assert (root.target.conversation_id, root.target.reply_to) == ("19:c@thread.tacv2", None)
    assert (reply.target.conversation_id, reply.target.reply_to) == (
        "19:c@thread.tacv2;messageid=1700",
        "1700",
    )
    assert root.target.bot_id == "28:app"


def test_without_a_service_url_there_is_no_teams_responder(poster: TeamsPoster):
    with pytest.raises(ValueError, match="service URL"):
        poster.responder(Target(platform="teams", channel="19:c@thread.tacv2"), None, _nothing)


def test_outside_a_teams_turn_a_command_has_no_place():
    assert place(Incoming(ThreadKey("teams", "t", "c", "1"), "29:u")) == {}


def _target(channel: str, conversation_type: str | None = None) -> Target:
    return Target(
        platform="teams",
        team="tenant",
        channel=channel,
        service_url="https://smba.example/",
        conversation_type=conversation_type,
    )


@pytest.mark.parametrize(
    ("channel", "conversation_type", "kind"),
    [
        ("19:c@thread.tacv2", "channel", "channel"),
        ("19:c@thread.tacv2", None, "channel"),
        ("19:c@thread.skype", None, "channel"),
        ("19:g@thread.v2", "groupChat", "chat"),
        ("19:g@thread.v2", None, "chat"),
        ("a:1xyz", "personal", "chat"),
        ("a:1xyz", None, "chat"),
        ("19:odd", "channel", "channel"),  # as the subscribing activity said
    ],
)
def test_a_chat_is_what_its_activity_said_else_what_its_id_looks_like(
    channel: str, conversation_type: str | None, kind: str
):
    assert chat(_target(channel, conversation_type)) is (kind == "chat")


@pytest.mark.parametrize(
    ("target", "thread", "posted", "clicked"),
    [
        (_target("19:c@thread.tacv2", "channel"), None, ("19:c@thread.tacv2", None), None),
        (
            _target("19:c@thread.tacv2", "channel"),
            "17",
            ("19:c@thread.tacv2;messageid=17", "17"),
            "17",
        ),
        (_target("a:1xyz", "personal"), None, ("a:1xyz", None), CHAT_THREAD),
        (_target("a:1xyz", "personal"), "17", ("a:1xyz", "17"), CHAT_THREAD),
        (_target("19:g@thread.v2", "groupChat"), "17", ("19:g@thread.v2", "17"), CHAT_THREAD),
    ],
)
def test_a_chat_s_posts_go_to_the_chat_and_a_click_on_any_continues_its_conversation(
    poster: TeamsPoster,
    target: Target,
    thread: str | None,
    posted: tuple[str, str | None],
    clicked: str | None,
):
    """A click in a chat is keyed `CHAT_THREAD` (`bot.teams.activity`): the push keeps it there."""
    responder = poster.responder(target, thread, _nothing)
    assert isinstance(responder, TeamsResponder)
    assert (responder.target.conversation_id, responder.target.reply_to) == posted
    assert poster.click_thread(target, thread) == clicked


def test_a_command_in_a_group_chat_places_the_watch_in_a_chat():
    inbound = Inbound(
        activity_id="1",
        service_url="https://smba.example/",
        conversation_id="19:g@thread.v2",
        channel="19:g@thread.v2",
        thread=CHAT_THREAD,
        conversation_type="groupChat",
        tenant_id="tenant",
        user_id="29:u",
        aad_object_id=None,
        bot_id="28:app",
        text="watch ml-team on prod-a",
        directed=True,
    )
    token = current_inbound.set(inbound)
    try:
        where = place(Incoming(thread_key(inbound), "29:u"))
    finally:
        current_inbound.reset(token)
    assert where == {"service_url": "https://smba.example/", "conversation_type": "groupChat"}
    assert chat(Target.model_validate({"platform": "teams", "channel": "19:g", **where}))
