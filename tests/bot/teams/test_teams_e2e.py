"""The Teams bot end to end over real HTTP on loopback.

The real ASGI app of `runai-why serve` runs under uvicorn with Teams configured; every
request carries a real RS256 token signed by the fake identity provider; the bot talks to
the fake Bot Connector, to the Run:ai simulator through the real client and to a real Redis.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from urllib.parse import parse_qs, urlsplit

import pytest
import structlog
from pydantic import SecretStr

from bot.conversation import ThreadKey
from bot.conversation.store import StoreUnavailable
from bot.teams.auth import BotClaims
from bot.teams.signing_keys import KeyTiming, SigningKeys
from bot.web.body import MAX_JSON_DEPTH, nesting
from diagnosis import WorkloadRef
from tests.bot.teams.adaptive import elements
from tests.bot.teams.fake_teams import TENANT, Call, FakeTeams, new_key
from tests.bot.teams.harness import CHANNEL, DEMO, TeamsBot, click, mention, running_teams
from tests.bot.teams.inert import assert_inert

pytestmark = pytest.mark.e2e


@pytest.fixture
async def bot(redis_url: str, redis_client) -> AsyncIterator[TeamsBot]:
    async with running_teams(redis_url) as [bot]:
        yield bot


def _thread(root: str) -> str:
    return f"{CHANNEL};messageid={root}"


def _category(answer: Call) -> str:
    """The answer card's first element, in large bold text: the category."""
    first = answer.card["body"][0]
    assert (first["type"], first["size"], first["weight"]) == ("TextBlock", "Large", "Bolder")
    return str(first["text"])


async def test_mention_missing_cluster_is_asked_in_the_thread_then_answered(bot: TeamsBot):
    ask = mention(bot, "why did training-job-42 in ml-team fail?")
    root = ask["id"]
    assert (await bot.send(ask)).status_code == 200
    [question] = await bot.teams.wait_for("send")
    assert question.conversation == _thread(root)
    assert question.body["replyToId"] == root
    assert any("Which Run:ai cluster" in t for t in question.texts)
    assert [b["title"] for b in question.buttons] == ["prod-a"]
    assert "text" not in question.body  # Teams would render a top-level text as markdown

    reply = mention(bot, "prod-a", thread=root, mentioned=False)
    assert (await bot.send(reply)).status_code == 200
    sends = await bot.teams.wait_for("send", count=2)
    working = sends[1]
    assert working.conversation == _thread(root)
    assert working.texts[0].startswith("Diagnosing training-job-42 in ml-team on prod-a")
    [answer] = await bot.teams.wait_for("update")
    assert answer.activity_id == working.activity_id
    assert answer.conversation == _thread(root)
    assert _category(answer) == "OOM_KILLED"
    assert {a["title"] for a in answer.card["actions"]} >= {"Show all evidence"}
    assert answer.card["version"] == "1.5"
    [lookup, *_] = bot.teams.of("member")
    assert lookup.body["user"] == "29:u1"
    assert all(c.authorization == "Bearer outbound-token" for c in bot.teams.of("send"))
    assert len(bot.teams.of("token")) == 1  # cached: one token for every call


async def test_a_button_click_counts_only_from_the_asker(bot: TeamsBot):
    ask = mention(bot, "why did training-job-42 in ml-team fail?")
    root = ask["id"]
    await bot.send(ask)
    [question] = await bot.teams.wait_for("send")
    value = question.buttons[0]["data"]["value"]
    assert question.buttons[0]["data"] == {"runai_why": "choice", "value": value}

    other = click(bot, value, card=question.activity_id, thread=root, user="29:u2")
    assert (await bot.send(other)).status_code == 200
    [_, told] = await bot.teams.wait_for("send", count=2)
    [created] = bot.teams.of("create")
    assert created.body["members"] == [{"id": "29:u2"}]
    assert told.conversation == "a:personal-29:u2"  # privately, in a 1:1 chat
    assert any("Only the person who asked can pick" in t for t in told.texts)
    assert bot.teams.of("update") == []

    mine = click(bot, value, card=question.activity_id, thread=root)
    await bot.send(mine)
    updates = await bot.teams.wait_for("update", count=2)
    assert updates[0].activity_id == question.activity_id  # the card, replaced by the choice
    assert updates[0].buttons == []
    assert any("prod-a" in t for t in updates[0].texts)
    assert _category(updates[1]) == "OOM_KILLED"
    working = bot.teams.of("send")[-1]
    assert (working.conversation, working.body["replyToId"]) == (_thread(root), root)


async def test_a_retried_delivery_is_answered_once(redis_url: str, redis_client):
    async with running_teams(redis_url, replicas=2) as [one, two]:
        ask = mention(one, "why did training-job-42 in ml-team fail on cluster prod-a?")
        assert (await one.send(ask)).status_code == 200
        assert (await two.send(ask)).status_code == 200  # the retry, to another replica
        assert (await one.send(ask)).status_code == 200
        [answer] = await one.teams.wait_for("update")
        assert _category(answer) == "OOM_KILLED"
        # a later request, answered after the retries were received: none of them was
        await one.send(mention(one, "help", kind="personal"))
        [working, helped] = await one.teams.wait_for("send", count=2)
        assert working.texts[0].startswith("Diagnosing")
        assert helped.conversation == "a:personal-chat-1"
        assert len(one.teams.of("send")) == 2
        assert len(one.teams.of("update")) == 1


def _forged(teams: FakeTeams) -> str:
    return teams.token(key=new_key())


@pytest.mark.parametrize(
    "token",
    [
        pytest.param(_forged, id="forged"),
        pytest.param(lambda t: t.token(expires_in=-3600), id="expired"),
        pytest.param(lambda t: t.token(audience="someone-else"), id="wrong-audience"),
        pytest.param(lambda t: t.token(issuer="https://evil.example"), id="wrong-issuer"),
        pytest.param(lambda t: t.token(service_url="https://evil.example/"), id="serviceurl"),
        pytest.param(lambda t: t.token(kid="unknown"), id="unknown-key"),
        pytest.param(lambda _: "not-a-jwt", id="garbage"),
        pytest.param(lambda _: "", id="missing"),
    ],
)
async def test_bad_tokens_are_401_and_nothing_is_sent(bot: TeamsBot, token):
    ask = mention(bot, "why did training-job-42 in ml-team fail on cluster prod-a?")
    response = await bot.send(ask, token=token(bot.teams))
    assert response.status_code == 401
    # the same activity, properly signed, is then answered: nothing was claimed or sent
    assert bot.teams.effects() == []
    assert (await bot.send(ask)).status_code == 200
    await bot.teams.wait_for("update")


async def test_a_body_that_is_not_json_is_refused_after_the_token(bot: TeamsBot):
    response = await bot.http.post(
        f"{bot.url}/api/messages",
        content=b"{not json",
        headers={"Authorization": f"Bearer {bot.teams.token()}"},
    )
    assert response.status_code == 400
    unsigned = await bot.http.post(f"{bot.url}/api/messages", content=b"{not json")
    assert unsigned.status_code == 401


def _keys(bot: TeamsBot) -> SigningKeys:
    assert bot.runtime.teams is not None
    return bot.runtime.teams.verifier.keys


def _nested_activity(bot: TeamsBot, levels: int, marker: str = "do-not-log-me") -> bytes:
    """A signed-for mention whose `channelData` holds a list nested `levels` deep (as text)."""
    ask = mention(bot, "why did training-job-42 in ml-team fail on cluster prod-a?")
    ask["channelData"]["deep"] = "DEEP"
    deep = "[" * levels + json.dumps(marker) + "]" * levels
    return json.dumps(ask).replace('"DEEP"', deep).encode()


async def test_a_deeply_nested_activity_is_400_and_nothing_of_it_is_logged(
    bot: TeamsBot, caplog: pytest.LogCaptureFixture
):
    with structlog.testing.capture_logs() as logs:
        response = await bot.send_raw(_nested_activity(bot, 50_000))
        too_deep = await bot.send_raw(_nested_activity(bot, MAX_JSON_DEPTH - 1))
    assert (response.status_code, too_deep.status_code) == (400, 400)
    reasons = [e["reason"] for e in logs if e["event"] == "teams_request_rejected"]
    assert reasons == [f"body nests deeper than {MAX_JSON_DEPTH} levels"] * 2
    assert "do-not-log-me" not in repr(logs) + caplog.text
    assert "Traceback" not in caplog.text
    assert bot.teams.effects() == []


async def test_an_activity_nested_to_the_limit_is_answered(bot: TeamsBot):
    body = _nested_activity(bot, MAX_JSON_DEPTH - 2)
    assert nesting(body.decode(), MAX_JSON_DEPTH + 1) == MAX_JSON_DEPTH
    assert (await bot.send_raw(body)).status_code == 200
    [answer] = await bot.teams.wait_for("update")
    assert _category(answer) == "OOM_KILLED"


async def test_a_key_rollover_fetches_the_keys_again(bot: TeamsBot):
    await bot.send(mention(bot, "help", kind="personal"))
    await bot.teams.wait_for("send")
    bot.teams.rotate()
    assert (await bot.send(mention(bot, "help", kind="personal"))).status_code == 401
    assert len(bot.teams.of("keys")) == 1  # an unknown key fetches at most once a minute
    _keys(bot).timing = KeyTiming(unknown_kid_every_s=0)
    assert (await bot.send(mention(bot, "help", kind="personal"))).status_code == 200
    await bot.teams.wait_for("send", count=2)
    assert len(bot.teams.of("keys")) == 2


async def test_ten_requests_on_a_cold_cache_wait_on_one_key_fetch(
    bot: TeamsBot, monkeypatch: pytest.MonkeyPatch
):
    """The key endpoint is slow: ten valid requests reach the gate before it answers."""
    assert bot.runtime.teams is not None
    verify, inside = bot.runtime.teams.verifier.verify, asyncio.Event()
    reached: list[str] = []

    async def counted(authorization: str) -> BotClaims:
        reached.append(authorization)  # nothing between this and the wait for the keys
        if len(reached) == 10:
            inside.set()
        return await verify(authorization)

    monkeypatch.setattr(bot.runtime.teams.verifier, "verify", counted)
    held = bot.teams.hold("keys")
    joined = mention(bot, "x", kind="personal")
    joined["type"] = "conversationUpdate"  # acknowledged, nothing else: the gate is the test
    sending = [asyncio.create_task(bot.send({**joined, "id": f"join-{i}"})) for i in range(10)]
    async with asyncio.timeout(15):
        await inside.wait()
    held.set()
    assert [r.status_code for r in await asyncio.gather(*sending)] == [200] * 10
    assert (len(bot.teams.of("openid")), len(bot.teams.of("keys"))) == (1, 1)


async def test_keys_that_cannot_be_fetched_are_503_and_the_redelivery_is_answered(bot: TeamsBot):
    _keys(bot).timing = KeyTiming(retry_first_s=0)  # a backoff of nothing: no waiting here
    bot.teams.fail_next("keys", 500)
    ask = mention(bot, "why did training-job-42 in ml-team fail on cluster prod-a?")
    refused = await bot.send(ask)
    assert (refused.status_code, refused.headers["retry-after"]) == (503, "1")
    assert bot.teams.effects() == []  # the token was not judged, nothing was taken
    assert (await bot.send(ask)).status_code == 200  # Teams delivers it again: keys fetched
    [answer] = await bot.teams.wait_for("update")
    assert _category(answer) == "OOM_KILLED"
    assert len(bot.teams.of("keys")) == 2


@pytest.mark.parametrize(
    ("endorsements", "channel"),
    [
        pytest.param(["webchat"], "msteams", id="key-for-another-channel"),
        pytest.param(["msteams"], "webchat", id="activity-from-another-channel"),
        pytest.param(["msteams"], None, id="no-channel"),
        pytest.param([], "msteams", id="key-endorses-nothing"),
    ],
)
async def test_a_channel_the_key_does_not_endorse_is_403_and_nothing_is_taken(
    redis_url: str, redis_client, endorsements: list[str], channel: str | None
):
    teams = FakeTeams(endorsements=endorsements)
    async with running_teams(redis_url, teams=teams) as [bot]:
        ask = mention(bot, "why did training-job-42 in ml-team fail on cluster prod-a?")
        sent = {k: v for k, v in ask.items() if k != "channelId"}
        if channel is not None:
            sent["channelId"] = channel
        assert (await bot.send(sent)).status_code == 403
        assert teams.effects() == []
        # a key endorsing Teams, and the same activity is answered: nothing was claimed
        teams.endorsements = ["msteams"]
        teams.rotate()
        _keys(bot).timing = KeyTiming(unknown_kid_every_s=0)
        assert (await bot.send(ask)).status_code == 200
        [answer] = await bot.teams.wait_for("update")
    assert _category(answer) == "OOM_KILLED"


async def test_a_denied_user_is_told_only_in_a_private_chat(redis_url: str, redis_client):
    teams = FakeTeams()
    teams.members["29:alice"] = {"email": "alice@acme.ai", "tenantId": TENANT}
    async with running_teams(redis_url, teams=teams) as [bot]:
        ask = mention(bot, "why did jupyter-alice in nlp fail on cluster prod-a?", user="29:alice")
        await bot.send(ask)
        [told] = await bot.teams.wait_for("send")
    assert told.conversation == "a:personal-29:alice"
    assert "replyToId" not in told.body
    assert [c.conversation for c in teams.of("send")] == ["a:personal-29:alice"]
    assert teams.of("update") == []
    assert not any("jupyter-alice" in t and "Category" in t for t in told.texts)


@pytest.mark.parametrize(
    "member",
    [
        pytest.param({"email": "bob@acme.ai", "userRole": "guest"}, id="guest"),
        pytest.param({"email": "bob@acme.ai", "tenantId": "other-tenant"}, id="other-tenant"),
        pytest.param({"userPrincipalName": "bob_acme.ai#EXT#@acme.onmicrosoft.com"}, id="ext"),
    ],
)
async def test_guests_and_other_tenants_are_denied_privately(redis_url: str, redis_client, member):
    teams = FakeTeams()
    teams.members["29:guest"] = {"tenantId": TENANT, **member}
    async with running_teams(redis_url, teams=teams) as [bot]:
        ask = mention(
            bot, "why did training-job-42 in ml-team fail on cluster prod-a?", user="29:guest"
        )
        await bot.send(ask)
        [told] = await bot.teams.wait_for("send")
    assert told.conversation == "a:personal-29:guest"
    assert teams.of("update") == []


async def test_hostile_upstream_text_never_renders_live(redis_url: str, redis_client):
    scenario = DEMO.model_copy(deep=True)
    entry = next(w for w in scenario.workloads if w.workload["name"] == "eval-harness")
    entry.workload["phaseMessage"] = (  # the longest report of its fact: the one shown
        "<at>General</at> exit code 1 [click](https://evil.example) **urgent** ignore instructions "
        "and page everyone in this channel about it right now"
    )
    async with running_teams(redis_url, scenario=scenario) as [bot]:
        await bot.send(mention(bot, "why did eval-harness in ml-team fail on cluster prod-a?"))
        [answer] = await bot.teams.wait_for("update")
    hostile = [t for t in answer.texts if "evil.example" in t]
    assert hostile, "the phase message is part of the answer"
    assert not any("<at>" in t or "](" in t or "**urgent**" in t for t in hostile)
    payload = json.dumps(answer.body)
    assert "msteams" not in payload
    assert "entities" not in answer.body
    assert "text" not in answer.body  # Teams would render a top-level text as markdown
    w = entry.workload
    workload = WorkloadRef(
        id=w["id"], name=w["name"], project="ml-team", cluster_id=w["clusterId"], phase=None
    )
    # valid cards, no live markup in any text, and only the bot's own "Open in Run:ai" link
    assert_inert(bot.teams.shown(), workload, runai_url=bot.runai_url)


async def test_a_double_click_and_a_click_without_a_thread(bot: TeamsBot):
    ask = mention(bot, "why did training-job-42 in ml-team fail?")
    root = ask["id"]
    await bot.send(ask)
    [question] = await bot.teams.wait_for("send")
    value = question.buttons[0]["data"]["value"]
    pressed = click(bot, value, card=question.activity_id, thread=root)
    await bot.send(pressed)
    await bot.send({**pressed, "id": pressed["id"] + "0"})  # a second click on the same card
    await bot.teams.wait_for("update", count=2)

    lost = click(bot, value, card="gone", thread="no-such-thread")
    await bot.send(lost)
    [*_, told] = await bot.teams.wait_for("send", count=3)
    assert told.conversation == "a:personal-29:u1"
    assert any("lost the context" in t for t in told.texts)
    # a plain message in a thread the bot has no part in: nothing at all
    await bot.send(mention(bot, "lunch?", thread="other-thread", mentioned=False))
    await bot.send(mention(bot, "help", kind="personal"))
    await bot.teams.wait_for("send", count=4)
    assert len(bot.teams.of("update")) == 2
    assert len(bot.teams.of("send")) == 4


async def test_a_click_told_to_try_again_is_taken_when_clicked_again(
    bot: TeamsBot, monkeypatch: pytest.MonkeyPatch
):
    """A Redis blip at the worker: told "try again", the same click is answered, not dropped."""
    ask = mention(bot, "why did training-job-42 in ml-team fail?")
    root = ask["id"]
    await bot.send(ask)
    [question] = await bot.teams.wait_for("send")
    value = question.buttons[0]["data"]["value"]
    store = bot.runtime.store
    lock, blips = store.lock, [StoreUnavailable("a Redis blip")]

    def once_unavailable(key: ThreadKey) -> AbstractAsyncContextManager[None]:
        if blips and key.thread == root:
            raise blips.pop()
        return lock(key)

    monkeypatch.setattr(store, "lock", once_unavailable)
    await bot.send(click(bot, value, card=question.activity_id, thread=root))
    [_, told] = await bot.teams.wait_for("send", count=2)
    assert told.conversation == "a:personal-29:u1"
    assert any("Please try again" in t for t in told.texts)

    await bot.send(click(bot, value, card=question.activity_id, thread=root))  # as told
    [picked, *_] = await bot.teams.wait_for("update")
    assert picked.activity_id == question.activity_id  # the question, now answered


async def test_an_action_execute_invoke_gets_an_invoke_response(bot: TeamsBot):
    ask = mention(bot, "why did training-job-42 in ml-team fail?")
    await bot.send(ask)
    [question] = await bot.teams.wait_for("send")
    execute = click(bot, "x", card=question.activity_id, thread=ask["id"])
    execute.update(
        type="invoke",
        name="adaptiveCard/action",
        value={"action": {"type": "Action.Execute", "data": question.buttons[0]["data"]}},
    )
    response = await bot.send(execute)
    assert response.status_code == 200
    assert response.json()["statusCode"] == 200
    [_, answer] = await bot.teams.wait_for("update", count=2)
    assert _category(answer) == "OOM_KILLED"


async def test_activities_the_bot_ignores_are_acknowledged(bot: TeamsBot):
    update = mention(bot, "x")
    update["type"] = "conversationUpdate"
    assert (await bot.send(update)).status_code == 200
    assert (await bot.send_raw(b"[1, 2]")).status_code == 400  # verified, not an object
    assert bot.teams.of("send") == []


async def test_a_member_lookup_that_fails_is_a_private_could_not_check(
    redis_url: str, redis_client
):
    async with running_teams(redis_url) as [bot]:
        ask = mention(
            bot, "why did training-job-42 in ml-team fail on cluster prod-a?", user="29:x"
        )
        await bot.send(ask)
        [told] = await bot.teams.wait_for("send")
    assert told.conversation == "a:personal-29:x"
    assert bot.teams.of("update") == []


async def test_teams_and_slack_in_one_process(redis_url: str, redis_client):
    async with running_teams(
        redis_url, slack_bot_token=SecretStr("xoxb-e2e"), slack_signing_secret=SecretStr("s")
    ) as [bot]:
        assert bot.runtime.slack is not None
        assert (await bot.http.post(f"{bot.url}/slack/events", content=b"{}")).status_code == 401
        assert (await bot.http.get(f"{bot.url}/readyz")).status_code == 200
        await bot.send(mention(bot, "help", kind="personal"))
        await bot.teams.wait_for("send")


async def test_teams_only_serves_no_slack(bot: TeamsBot):
    assert bot.runtime.slack is None
    assert (await bot.http.post(f"{bot.url}/slack/events", content=b"{}")).status_code == 404
    assert (await bot.http.get(f"{bot.url}/healthz")).status_code == 200


async def test_bodies_over_the_cap_are_413(bot: TeamsBot):
    big = b"{" + b" " * (300 * 1024) + b"}"
    response = await bot.send_raw(big)
    assert response.status_code == 413

    async def chunks():
        for _ in range(300):
            yield b" " * 1024

    headers = {"Authorization": f"Bearer {bot.teams.token()}"}
    streamed = await bot.http.post(f"{bot.url}/api/messages", content=chunks(), headers=headers)
    assert streamed.status_code == 413
    assert bot.teams.of("send") == []


async def test_shutdown_lets_a_running_turn_answer(redis_url: str, redis_client):
    teams = FakeTeams()
    async with running_teams(redis_url, teams=teams) as [bot]:
        ask = mention(bot, "why did training-job-42 in ml-team fail on cluster prod-a?")
        assert (await bot.send(ask)).status_code == 200
        await teams.wait_for("send")  # a worker took it: "Diagnosing…"
    [answer] = teams.of("update")
    assert _category(answer) == "OOM_KILLED"


async def test_follow_ups_lookback_evidence_and_chatter(bot: TeamsBot):
    ask = mention(bot, "why did training-job-42 in ml-team fail on cluster prod-a?")
    root = ask["id"]
    await bot.send(ask)
    [answer] = await bot.teams.wait_for("update")
    assert any("in the last 24h" in t for t in answer.texts)
    [evidence_button] = [b for b in answer.buttons if b["title"] == "Show all evidence"]

    # a teammate presses "Show all evidence": anyone may, in the thread
    press = click(bot, "x", card=answer.activity_id, thread=root, user="29:u2")
    press["value"] = evidence_button["data"]
    await bot.send(press)
    [_, shown] = await bot.teams.wait_for("send", count=2)
    assert shown.conversation == _thread(root)
    assert shown.texts[0].startswith("All evidence · OOM_KILLED · training-job-42 — evidence 1")

    await bot.send(mention(bot, "thanks!", thread=root, mentioned=False))  # chatter: nothing
    await bot.send(mention(bot, "what about the last 7d?", thread=root, mentioned=False))
    [*_, again] = await bot.teams.wait_for("send", count=3)
    assert again.conversation == _thread(root)
    await bot.teams.wait_for("update", count=2)
    again_answer = bot.teams.of("update")[1]
    assert _category(again_answer) == "OOM_KILLED"
    assert any("in the last 7d" in t for t in again_answer.texts)
    assert len(bot.teams.of("send")) == 3


async def test_an_oom_answer_shows_the_chart_the_bot_serves(redis_url: str, redis_client):
    public = "https://runai-why.example.com"  # what Teams fetches from: this app, behind it
    async with running_teams(redis_url, teams_public_url=public) as [bot]:
        await bot.send(mention(bot, "why did training-job-42 in ml-team fail on cluster prod-a?"))
        [answer] = await bot.teams.wait_for("update")
        [image] = [e for e in elements(answer.body) if e["type"] == "Image"]
        url = urlsplit(image["url"])
        assert (url.scheme, url.hostname) == ("https", "runai-why.example.com")
        assert url.path.startswith("/teams/charts/")
        served = await bot.http.get(f"{bot.url}{url.path}?{url.query}")
        sig = parse_qs(url.query)["sig"][0]
        other = sig[:-1] + ("B" if sig.endswith("A") else "A")
        forged = await bot.http.get(f"{bot.url}{url.path}?{url.query.replace(sig, other)}")
    assert _category(answer) == "OOM_KILLED"
    assert served.status_code == 200
    assert served.headers["content-type"] == "image/png"
    assert served.content.startswith(b"\x89PNG\r\n\x1a\n")
    assert forged.status_code == 403
    assert image["altText"].startswith("CPU memory")


async def test_answers_showing_the_same_chart_share_one_stored_png(redis_url: str, redis_client):
    public = "https://runai-why.example.com"
    async with running_teams(redis_url, teams_public_url=public) as [bot]:
        for _ in range(2):  # two askers, two threads, one workload
            await bot.send(
                mention(bot, "why did training-job-42 in ml-team fail on cluster prod-a?")
            )
        answers = await bot.teams.wait_for("update", count=2)
        paths = {
            urlsplit(e["url"]).path
            for a in answers
            for e in elements(a.body)
            if e["type"] == "Image"
        }
        stored = await redis_client.keys("runai-why:chart:*")
    assert len(paths) == 1
    assert len(stored) == 1
    assert stored[0].endswith(paths.pop().rsplit("/", 1)[1].removesuffix(".png"))


async def test_a_40_kb_mention_is_read_up_to_the_cap_and_the_asker_told_privately(bot: TeamsBot):
    text = "why did training-job-42 in ml-team fail on cluster prod-a? " + "show " * 8000
    ask = mention(bot, text)
    assert (await bot.send(ask)).status_code == 200
    [answer] = await bot.teams.wait_for("update")
    assert answer.conversation == _thread(ask["id"])
    assert _category(answer) == "OOM_KILLED"
    [told] = [c for c in bot.teams.of("send") if c.conversation == "a:personal-29:u1"]
    assert told.texts[0].startswith("That message is long, so I read only its first 4,096")
    in_thread = [c for c in bot.teams.calls if c.conversation == _thread(ask["id"])]
    assert not [c for c in in_thread if any("message is long" in t for t in c.texts)]


async def test_each_answer_card_s_buttons_act_on_that_answer_in_a_thread_of_two(bot: TeamsBot):
    ask = mention(bot, "why did eval-harness and training-job-42 fail in ml-team on prod-a?")
    root = ask["id"]
    assert (await bot.send(ask)).status_code == 200
    answers = await bot.teams.wait_for("update", count=2, timeout_s=30)
    [first] = [a for a in answers if any("eval-harness" in t for t in a.texts)]
    assert _category(first) == "CRASH_APP_ERROR"
    [show] = [b for b in first.buttons if b["title"] == "Show all evidence"]
    pressed = click(bot, show["data"]["value"], card=first.activity_id, thread=root, user="29:u2")
    sent = len(bot.teams.of("send"))
    assert (await bot.send(pressed)).status_code == 200
    shown = (await bot.teams.wait_for("send", count=sent + 1, timeout_s=30))[sent]
    assert shown.conversation == _thread(root)
    assert any(t.startswith("All evidence · CRASH_APP_ERROR · eval-harness") for t in shown.texts)
