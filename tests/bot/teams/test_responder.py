"""The Teams responder: rebuilt from its serializable target, private replies, no raising."""

from __future__ import annotations

import json

import httpx
from pydantic import SecretStr

from bot.conversation import Notice, ReportReply
from bot.render.sparkline import memory_sparkline
from bot.teams.connector import TeamsConnector
from bot.teams.responder import ReplyTarget, TeamsResponder
from bot.teams.token import BotToken
from diagnosis import Category, Outcome, Report
from tests.bot.teams.adaptive import elements
from tests.bot.teams.fake_teams import APP_ID, BOT_ID, PASSWORD, TENANT, FakeTeams
from tests.bot.teams.figures import MEMORY

BASE = "http://teams.test"
CHART = "https://runai-why.example.com/teams/charts/signed.png?exp=1&sig=x"
TARGET = ReplyTarget(
    service_url=BASE,
    conversation_id="19:room@thread.tacv2;messageid=100",
    reply_to="100",
    user_id="29:u1",
    aad_object_id="aad-1",
    tenant_id=TENANT,
    bot_id=BOT_ID,
)


def _connector(teams: FakeTeams) -> TeamsConnector:
    http = httpx.AsyncClient(transport=httpx.ASGITransport(app=teams.app()), base_url=BASE)
    token = BotToken(
        login_url=f"{BASE}/token", app_id=APP_ID, password=SecretStr(PASSWORD), http=http
    )
    return TeamsConnector(http, token)


async def test_a_responder_is_rebuilt_from_its_json_spec():
    teams = FakeTeams(url=BASE)
    spec = json.loads(json.dumps(TARGET.model_dump()))  # as a queued work item carries it
    responder = TeamsResponder.from_target(_connector(teams), spec, runai_url=None)
    assert responder.target == TARGET
    assert responder.thread() is None
    ref = await responder.post(Notice("Diagnosing…", progress=True))
    await responder.update(ref, Notice("done"))
    [sent] = teams.of("send")
    assert (sent.conversation, sent.body["replyToId"]) == (TARGET.conversation_id, "100")
    assert teams.of("update")[0].activity_id == ref
    assert responder.public


async def test_private_notices_share_one_personal_chat_and_tell_never_raises():
    teams = FakeTeams(url=BASE)
    responder = TeamsResponder(_connector(teams), TARGET, runai_url=None)
    await responder.tell("first")
    await responder.tell("second")
    assert len(teams.of("create")) == 1
    assert [c.conversation for c in teams.of("send")] == ["a:personal-29:u1"] * 2
    assert not responder.public

    failing = FakeTeams(url=BASE)
    failing.fail_next("create", 403)
    await TeamsResponder(_connector(failing), TARGET, runai_url=None).tell("lost")
    assert failing.of("send") == []


async def test_an_answer_shows_the_chart_the_bot_hosts():
    teams = FakeTeams(url=BASE)
    asked = []

    async def chart_url(report):
        asked.append(report)
        return CHART

    responder = TeamsResponder(_connector(teams), TARGET, runai_url=None, chart_url=chart_url)
    report = Report(
        outcome=Outcome.DIAGNOSED, category=Category.OOM_KILLED, headline="h", memory=MEMORY
    )
    await responder.update("act-1", ReportReply(report, "24h"))
    await responder.update("act-1", Notice("not an answer: no chart"))
    await responder.post(ReportReply(report, "24h", private=True))  # to the asker's 1:1 chat
    assert asked == [report, report]
    [answered, noticed] = teams.of("update")
    [privately] = teams.of("send")
    assert privately.conversation == "a:personal-29:u1"
    for shown in (answered, privately):
        [image] = [e for e in elements(shown.body) if e["type"] == "Image"]
        assert image["url"] == CHART
    assert "attachments" not in noticed.body


async def test_without_a_chart_host_an_answer_shows_the_sparkline():
    teams = FakeTeams(url=BASE)
    responder = TeamsResponder(_connector(teams), TARGET, runai_url=None)
    report = Report(outcome=Outcome.DIAGNOSED, category=Category.OOM_KILLED, memory=MEMORY)
    await responder.update("act-1", ReportReply(report, "24h"))
    [answered] = teams.of("update")
    assert not [e for e in elements(answered.body) if e["type"] == "Image"]
    assert memory_sparkline(MEMORY) in answered.texts
