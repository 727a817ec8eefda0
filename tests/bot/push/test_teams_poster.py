"""The Teams poster addresses a channel's new post and its thread; without an address, nothing."""

from __future__ import annotations

import httpx
import pytest
from pydantic import SecretStr

from bot.conversation import Incoming, ThreadKey
from bot.push import Target
from bot.teams.connector import TeamsConnector
from bot.teams.push import TeamsPoster, place
from bot.teams.responder import TeamsResponder
from bot.teams.token import BotToken


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
