"""The Slack test doubles themselves, checked against slack_sdk and Bolt.

The fake Web API is driven by slack_sdk's real clients; the signed request builders are checked
with slack_sdk's verifier and by a real Bolt AsyncApp.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import parse_qs

import aiohttp
import httpx
import pytest
from slack_bolt.app.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.signature import SignatureVerifier
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.async_client import AsyncWebhookClient

from tests.bot.slack.fake_slack import (
    BOT_ID,
    BOT_USER_ID,
    RESPONSE_URL,
    TEAM_ID,
    FakeSlack,
    check_blocks,
)
from tests.bot.slack.signing import (
    app_mention_event,
    block_action_body,
    event_body,
    message_event,
    retry_headers,
    signed_headers,
    slash_command_body,
    ssl_check_body,
    url_verification_body,
)

SECRET = "test-signing-secret"
TOKEN = "xoxb-test"


def _client(fake: FakeSlack, token: str | None = TOKEN) -> AsyncWebClient:
    return AsyncWebClient(token=token, base_url=fake.base_url)


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text, "verbatim": True}}


GOOD_BLOCKS: list[dict[str, Any]] = [
    {"type": "header", "text": {"type": "plain_text", "text": "bert-train failed: OOMKilled"}},
    _section("*Why:* the container hit its 16Gi memory limit."),
    {"type": "divider"},
    {"type": "context", "elements": [{"type": "mrkdwn", "text": "cluster `prod`"}]},
    {
        "type": "actions",
        "elements": [
            {
                "type": "button",
                "action_id": "rediagnose",
                "text": {"type": "plain_text", "text": "Diagnose again"},
                "value": "3f1c",
            }
        ],
    },
]


# ---------------------------------------------------------------- the fake Web API


async def test_auth_test_identifies_the_bot(fake_slack: FakeSlack) -> None:
    assert fake_slack.base_url.endswith("/api/")
    response = await _client(fake_slack).auth_test()
    assert response["ok"] is True
    assert (response["user_id"], response["bot_id"], response["team_id"]) == (
        BOT_USER_ID,
        BOT_ID,
        TEAM_ID,
    )
    assert response["user"] == "runai-why"
    [call] = fake_slack.calls("auth.test")
    assert call.headers["authorization"] == f"Bearer {TOKEN}"
    assert call.http_method == "POST"


async def test_post_message_returns_increasing_ts_and_echoes_the_message(
    fake_slack: FakeSlack,
) -> None:
    client = _client(fake_slack)
    first = await client.chat_postMessage(channel="C1", text="one", blocks=GOOD_BLOCKS)
    second = await client.chat_postMessage(channel="C1", text="two", thread_ts=first["ts"])
    assert first["ts"] == "1700000000.000100"
    assert float(second["ts"]) > float(first["ts"])
    assert first["channel"] == "C1"
    assert first["message"]["text"] == "one"
    assert first["message"]["blocks"] == GOOD_BLOCKS
    assert first["message"]["bot_id"] == BOT_ID
    assert second["message"]["thread_ts"] == first["ts"]

    calls = fake_slack.calls("chat.postMessage")
    assert [c.body["text"] for c in calls] == ["one", "two"]
    assert calls[0].blocks == GOOD_BLOCKS
    assert calls[1].body["thread_ts"] == first["ts"]
    assert calls[0].headers["content-type"].startswith("application/json")
    assert fake_slack.violations == []


async def test_form_encoded_blocks_and_metadata_are_decoded(fake_slack: FakeSlack) -> None:
    metadata = {"event_type": "runai_why", "event_payload": {"workload": "bert"}}
    await _client(fake_slack).api_call(
        "chat.postMessage",
        data={
            "channel": "C1",
            "text": "hi",
            "blocks": json.dumps(GOOD_BLOCKS),
            "metadata": json.dumps(metadata),
        },
    )
    [call] = fake_slack.calls("chat.postMessage")
    assert call.headers["content-type"].startswith("application/x-www-form-urlencoded")
    assert call.blocks == GOOD_BLOCKS
    assert call.body["metadata"] == metadata


async def test_update_replaces_a_posted_message(fake_slack: FakeSlack) -> None:
    client = _client(fake_slack)
    posted = await client.chat_postMessage(channel="C1", text="working on it")
    updated = await client.chat_update(channel="C1", ts=posted["ts"], text="done")
    assert (updated["channel"], updated["ts"]) == ("C1", posted["ts"])
    [message] = fake_slack.messages("C1")
    assert message["text"] == "done"

    with pytest.raises(SlackApiError) as raised:
        await client.chat_update(channel="C1", ts="1.000000", text="nope")
    assert raised.value.response["error"] == "message_not_found"


async def test_other_methods(fake_slack: FakeSlack) -> None:
    client = _client(fake_slack)
    fake_slack.channels["C9"] = {"name": "ml-infra", "is_member": False}
    channel = await client.conversations_info(channel="C9")
    assert channel["channel"]["id"] == "C9"
    assert channel["channel"]["name"] == "ml-infra"
    assert channel["channel"]["is_member"] is False
    user = await client.users_info(user="U1")
    assert user["user"]["id"] == "U1"
    ephemeral = await client.chat_postEphemeral(channel="C1", user="U1", text="only you")
    assert ephemeral["message_ts"]
    assert (await client.reactions_add(channel="C1", timestamp="1.0", name="eyes"))["ok"]
    assert [c.method for c in fake_slack.calls()] == [
        "conversations.info",
        "users.info",
        "chat.postEphemeral",
        "reactions.add",
    ]
    assert fake_slack.calls("conversations.info")[0].http_method == "GET"
    assert fake_slack.calls("conversations.info")[0].body["channel"] == "C9"


async def test_conversations_replies_lists_the_thread(fake_slack: FakeSlack) -> None:
    fake_slack.seed_message("C1", "1699999999.000001", "why did bert fail?", user="U1")
    client = _client(fake_slack)
    await client.chat_postMessage(
        channel="C1", text="which cluster?", thread_ts="1699999999.000001"
    )
    await client.chat_postMessage(channel="C1", text="unrelated")
    replies = await client.conversations_replies(channel="C1", ts="1699999999.000001")
    assert [m["text"] for m in replies["messages"]] == ["why did bert fail?", "which cluster?"]


async def test_web_api_requires_a_bot_token(fake_slack: FakeSlack) -> None:
    with pytest.raises(SlackApiError) as missing:
        await _client(fake_slack, token=None).auth_test()
    assert missing.value.response["error"] == "not_authed"
    with pytest.raises(SlackApiError) as user_token:
        await _client(fake_slack, token="xoxp-user").auth_test()
    assert user_token.value.response["error"] == "invalid_auth"


async def test_scripted_429_carries_retry_after(fake_slack: FakeSlack) -> None:
    fake_slack.fail_next("chat.postMessage", status=429, retry_after=7)
    client = _client(fake_slack)
    with pytest.raises(SlackApiError) as raised:
        await client.chat_postMessage(channel="C1", text="hi")
    assert raised.value.response.status_code == 429
    assert raised.value.response.headers["Retry-After"] in (["7"], "7")
    assert raised.value.response["error"] == "ratelimited"
    # only the next call was scripted
    assert (await client.chat_postMessage(channel="C1", text="hi"))["ok"]


async def test_rate_limit_retry_handler_retries_after_429(fake_slack: FakeSlack) -> None:
    fake_slack.fail_next("chat.postMessage", retry_after=0, count=2)
    client = _client(fake_slack)
    client.retry_handlers.append(AsyncRateLimitErrorRetryHandler(max_retry_count=2))
    response = await client.chat_postMessage(channel="C1", text="eventually")
    assert response["ok"]
    assert [c.status for c in fake_slack.calls("chat.postMessage")] == [429, 429, 200]
    assert fake_slack.calls("chat.postMessage")[0].headers["authorization"] == f"Bearer {TOKEN}"


async def test_error_responses(fake_slack: FakeSlack) -> None:
    client = _client(fake_slack)
    fake_slack.fail_next("chat.postMessage", error="not_in_channel")
    fake_slack.fail_next("chat.postMessage", error="channel_not_found")
    for expected in ("not_in_channel", "channel_not_found"):
        with pytest.raises(SlackApiError) as raised:
            await client.chat_postMessage(channel="C1", text="hi")
        assert raised.value.response.status_code == 200
        assert raised.value.response["error"] == expected
    assert [c.ok for c in fake_slack.calls("chat.postMessage")] == [False, False]


async def test_server_error_then_retry(fake_slack: FakeSlack) -> None:
    fake_slack.fail_next("chat.update", status=500)
    client = _client(fake_slack)
    with pytest.raises(SlackApiError) as raised:
        await client.chat_update(channel="C1", ts="1.0", text="x")
    assert raised.value.response.status_code == 500

    posted = await client.chat_postMessage(channel="C1", text="x")
    fake_slack.fail_next("chat.update", status=503)
    client.retry_handlers.append(AsyncServerErrorRetryHandler(max_retry_count=1))
    assert (await client.chat_update(channel="C1", ts=posted["ts"], text="y"))["ok"]
    assert [c.status for c in fake_slack.calls("chat.update")] == [500, 503, 200]


def test_fail_next_needs_an_instruction() -> None:
    fake = FakeSlack()
    with pytest.raises(ValueError, match="say what to do"):
        fake.fail_next("chat.postMessage")


async def test_delayed_answer(fake_slack: FakeSlack) -> None:
    fake_slack.delay_next("auth.test", 0.3)
    started = time.monotonic()
    assert (await _client(fake_slack).auth_test())["ok"]
    assert time.monotonic() - started >= 0.3


async def test_response_url_posts_are_recorded(fake_slack: FakeSlack) -> None:
    url = fake_slack.response_url("cmd-1")
    assert url.startswith(fake_slack.root_url + "/response/")
    async with aiohttp.ClientSession() as session, session.post(url, json={"text": "a"}) as resp:
        assert resp.status == 200
        assert await resp.text() == "ok"
    async with httpx.AsyncClient() as client:
        answer = await client.post(url, json={"text": "b", "response_type": "in_channel"})
        assert answer.text == "ok"
    # what Bolt's respond() uses
    webhook = await AsyncWebhookClient(url).send(text="c", replace_original=True)
    assert (webhook.status_code, webhook.body) == (200, "ok")

    calls = fake_slack.calls(RESPONSE_URL)
    assert [(c.key, c.body["text"]) for c in calls] == [
        ("cmd-1", "a"),
        ("cmd-1", "b"),
        ("cmd-1", "c"),
    ]
    assert calls[1].body["response_type"] == "in_channel"
    assert "authorization" not in calls[0].headers


async def test_response_url_failure(fake_slack: FakeSlack) -> None:
    fake_slack.fail_next(RESPONSE_URL, error="expired_url")
    response = await AsyncWebhookClient(fake_slack.response_url("old")).send(text="late")
    assert (response.status_code, response.body) == (404, "expired_url")


async def test_block_kit_violations_are_recorded(fake_slack: FakeSlack) -> None:
    client = _client(fake_slack)
    await client.chat_postMessage(channel="C1", text="ok", blocks=GOOD_BLOCKS)
    assert fake_slack.violations == []

    too_many = [_section(f"row {i}") for i in range(51)]
    bad = [
        {"type": "header", "text": {"type": "plain_text", "text": "h" * 151}},
        _section("s" * 3001),
        {"type": "context", "elements": [{"type": "mrkdwn", "text": "c"}] * 11},
        {"type": "actions", "elements": [GOOD_BLOCKS[4]["elements"][0]] * 26},
        {"type": "no_such_block"},
    ]
    await client.chat_postMessage(channel="C1", text="many", blocks=too_many)
    await client.chat_postMessage(channel="C1", text="bad", blocks=bad, link_names=True)
    await client.chat_postMessage(channel="C1", text="parse", parse="full")
    problems = [str(v) for v in fake_slack.violations]
    assert all(p.startswith("chat.postMessage: ") for p in problems)
    joined = "\n".join(problems)
    for expected in (
        "51 blocks",
        "header text is 151 chars",
        "text is 3001 chars",
        "11 context elements",
        "26 actions elements",
        "unknown block type 'no_such_block'",
        "link_names=",
        "parse='full'",
    ):
        assert expected in joined
    fake_slack.violations.clear()  # provoked on purpose; the fixture checks the rest


async def test_response_url_blocks_are_validated_too(fake_slack: FakeSlack) -> None:
    async with httpx.AsyncClient() as client:
        await client.post(
            fake_slack.response_url(),
            json={
                "text": "x",
                "blocks": [{"type": "header", "text": {"type": "mrkdwn", "text": "h"}}],
            },
        )
    assert [v.method for v in fake_slack.violations] == [RESPONSE_URL]
    assert "plain_text" in fake_slack.violations[0].problem
    fake_slack.violations.clear()


def test_check_blocks_uses_slack_sdk_validation_for_nested_elements() -> None:
    assert check_blocks(GOOD_BLOCKS) == []
    assert check_blocks(json.dumps(GOOD_BLOCKS)) == []
    long_button = {
        "type": "actions",
        "elements": [
            {"type": "button", "action_id": "a", "text": {"type": "plain_text", "text": "b" * 76}}
        ],
    }
    [problem] = check_blocks([long_button])
    assert "slack_sdk rejects it" in problem
    assert check_blocks("{not json") == ["blocks is not valid JSON"]
    assert check_blocks({"type": "section"}) == ["blocks must be a JSON array, got dict"]


async def test_blocks_without_text_fallback_are_flagged(fake_slack: FakeSlack) -> None:
    async with httpx.AsyncClient() as client:
        await client.post(
            fake_slack.base_url + "chat.postMessage",
            headers={"Authorization": f"Bearer {TOKEN}"},
            json={"channel": "C1", "blocks": GOOD_BLOCKS},
        )
    assert ["text fallback" in v.problem for v in fake_slack.violations] == [True]
    fake_slack.violations.clear()


async def test_concurrent_posts_get_distinct_ts(fake_slack: FakeSlack) -> None:
    client = _client(fake_slack)
    responses = await asyncio.gather(
        *(client.chat_postMessage(channel="C1", text=f"m{i}") for i in range(20))
    )
    assert len({r["ts"] for r in responses}) == 20
    assert len(await fake_slack.wait_for_async("chat.postMessage", count=20, timeout=1)) == 20


async def test_wait_for_polls_and_explains_timeouts(fake_slack: FakeSlack) -> None:
    async def post_later() -> None:
        await asyncio.sleep(0.2)
        await _client(fake_slack).chat_postMessage(channel="C2", text="late")

    task = asyncio.create_task(post_later())
    [call] = await fake_slack.wait_for_async(
        "chat.postMessage", where=lambda c: c.body.get("channel") == "C2"
    )
    await task
    assert call.text == "late"
    # the blocking variant, for tests whose app runs in another thread
    assert len(await asyncio.to_thread(fake_slack.wait_for, "chat.postMessage")) == 1
    with pytest.raises(AssertionError, match=r"expected 2 matching chat.postMessage"):
        fake_slack.wait_for("chat.postMessage", count=2, timeout=0.1)
    fake_slack.clear()
    assert fake_slack.calls() == []


async def test_stop_closes_idle_keep_alive_connections() -> None:
    fake = FakeSlack().start()
    async with aiohttp.ClientSession() as session:
        async with session.post(
            fake.base_url + "auth.test", headers={"Authorization": f"Bearer {TOKEN}"}
        ) as resp:
            assert (await resp.json())["ok"]
        server = fake._server
        assert server is not None
        assert len(server._connections) == 1  # kept alive, its handler thread waiting
        started = time.monotonic()
        await asyncio.to_thread(fake.stop)
        assert time.monotonic() - started < 2
    assert not any(t.name == "fake-slack" for t in threading.enumerate())
    assert fake._server is None
    fake.stop()  # idempotent
    with pytest.raises(RuntimeError, match="not running"):
        _ = fake.base_url


# ---------------------------------------------------------------- signed requests


def test_signed_headers_pass_slack_sdk_verification() -> None:
    body = slash_command_body("why bert", response_url="http://127.0.0.1:1/response/r1")
    headers = signed_headers(SECRET, body)
    assert headers["Content-Type"] == "application/x-www-form-urlencoded"
    assert SignatureVerifier(SECRET).is_valid_request(body, headers)
    assert signed_headers(SECRET, event_body({"type": "app_mention"}))["Content-Type"] == (
        "application/json"
    )


def test_stale_timestamp_is_rejected() -> None:
    body = b"token=x&text=hi"
    stale = signed_headers(SECRET, body, timestamp=int(time.time()) - 6 * 60)
    assert not SignatureVerifier(SECRET).is_valid_request(body, stale)
    fresh_enough = signed_headers(SECRET, body, timestamp=int(time.time()) - 4 * 60)
    assert SignatureVerifier(SECRET).is_valid_request(body, fresh_enough)


def test_forged_requests_are_rejected() -> None:
    body = b"token=x&text=hi"
    forged = signed_headers("not-the-secret", body)
    assert not SignatureVerifier(SECRET).is_valid_request(body, forged)
    tampered = signed_headers(SECRET, body)
    assert not SignatureVerifier(SECRET).is_valid_request(b"token=x&text=bye", tampered)


def test_slash_command_body_has_every_field_slack_sends() -> None:
    body = slash_command_body(
        "why 3f1c", user="U7", channel="C7", response_url="http://x/response/r", trigger_id="t9"
    )
    fields = {k: v[0] for k, v in parse_qs(body.decode()).items()}
    assert set(fields) == {
        "token",
        "team_id",
        "team_domain",
        "channel_id",
        "channel_name",
        "user_id",
        "user_name",
        "command",
        "text",
        "api_app_id",
        "is_enterprise_install",
        "response_url",
        "trigger_id",
    }
    assert (fields["command"], fields["text"], fields["user_id"], fields["channel_id"]) == (
        "/runai-why",
        "why 3f1c",
        "U7",
        "C7",
    )


def test_event_builders() -> None:
    mention = app_mention_event("<@UBOT> why?", user="U1", channel="C1", ts="1.000001")
    envelope = json.loads(event_body(mention, event_id="Ev1"))
    assert envelope["type"] == "event_callback"
    assert envelope["event_id"] == "Ev1"
    assert envelope["event"] == mention
    assert envelope["authorizations"][0]["user_id"] == BOT_USER_ID
    assert (
        json.loads(event_body(mention))["event_id"] != json.loads(event_body(mention))["event_id"]
    )

    reply = message_event("cluster prod", user="U1", channel="C1", ts="2.0", thread_ts="1.000001")
    assert (reply["type"], reply["thread_ts"], reply["channel_type"]) == (
        "message",
        "1.000001",
        "channel",
    )
    own = message_event("result", user=BOT_USER_ID, channel="G1", ts="3.0", bot_id=BOT_ID)
    assert (own["bot_id"], own["channel_type"]) == (BOT_ID, "group")
    edited = message_event("new", user="U1", channel="C1", ts="2.0", subtype="message_changed")
    assert (edited["subtype"], edited["message"]["text"]) == ("message_changed", "new")
    assert retry_headers(2) == {"X-Slack-Retry-Num": "2", "X-Slack-Retry-Reason": "http_timeout"}


def test_block_action_body() -> None:
    body = block_action_body(
        "rediagnose",
        "3f1c",
        user="U1",
        channel="C1",
        message_ts="5.0",
        thread_ts="4.0",
        response_url="http://x/response/a",
    )
    payload = json.loads(parse_qs(body.decode())["payload"][0])
    assert payload["type"] == "block_actions"
    assert payload["container"] == {
        "type": "message",
        "message_ts": "5.0",
        "channel_id": "C1",
        "is_ephemeral": False,
        "thread_ts": "4.0",
    }
    assert payload["actions"][0]["action_id"] == "rediagnose"
    assert payload["actions"][0]["value"] == "3f1c"
    assert payload["message"]["thread_ts"] == "4.0"


# ---------------------------------------------------------------- Bolt accepts what we build


def _bolt_app(fake: FakeSlack) -> AsyncApp:
    return AsyncApp(
        name="fake-slack-test",  # else Bolt walks the call stack to name it
        client=_client(fake),
        signing_secret=SECRET,
        process_before_response=True,  # dispatch returns after the listener: deterministic
    )


async def _dispatch(app: AsyncApp, body: bytes, **extra: str) -> Any:
    headers: dict[str, str | Sequence[str]] = {**signed_headers(SECRET, body), **extra}
    return await app.async_dispatch(AsyncBoltRequest(body=body.decode(), headers=headers))


async def test_bolt_accepts_signed_slash_command_and_responds(fake_slack: FakeSlack) -> None:
    app = _bolt_app(fake_slack)
    seen: list[dict[str, Any]] = []

    @app.command("/runai-why")
    async def handle(ack: Any, command: dict[str, Any], respond: Any, say: Any) -> None:
        await ack()
        seen.append(command)
        await respond(text="looking", response_type="ephemeral")
        await say(text="diagnosis", blocks=GOOD_BLOCKS)

    body = slash_command_body("why bert", response_url=fake_slack.response_url("r1"))
    response = await _dispatch(app, body)
    assert response.status == 200
    assert seen[0]["text"] == "why bert"
    [respond_call] = fake_slack.calls(RESPONSE_URL)
    assert (respond_call.key, respond_call.body["text"]) == ("r1", "looking")
    [post] = fake_slack.calls("chat.postMessage")
    assert (post.body["channel"], post.blocks) == ("C1", GOOD_BLOCKS)

    stale: dict[str, str | Sequence[str]] = {
        **signed_headers(SECRET, body, timestamp=int(time.time()) - 600)
    }
    rejected = await app.async_dispatch(AsyncBoltRequest(body=body.decode(), headers=stale))
    assert rejected.status == 401


async def test_bolt_accepts_events_and_actions(fake_slack: FakeSlack) -> None:
    app = _bolt_app(fake_slack)
    mentions: list[dict[str, Any]] = []
    actions: list[dict[str, Any]] = []
    retries: list[Any] = []

    @app.event("app_mention")
    async def on_mention(
        event: dict[str, Any], context: Any, request: AsyncBoltRequest, say: Any
    ) -> None:
        mentions.append(event)
        retries.append(request.headers.get("x-slack-retry-num"))
        assert context.bot_user_id == BOT_USER_ID
        await say(text="which cluster?", thread_ts=event["ts"])

    @app.event("message")
    async def on_message() -> None:
        """Thread replies; nothing to do here."""

    @app.action("rediagnose")
    async def on_action(ack: Any, action: dict[str, Any]) -> None:
        await ack()
        actions.append(action)

    mention = app_mention_event(
        "<@UBOT> why bert?", user="U1", channel="C1", ts="1700000001.000001"
    )
    assert (await _dispatch(app, event_body(mention, event_id="Ev1"))).status == 200
    retried = event_body(mention, event_id="Ev1")
    assert (await _dispatch(app, retried, **retry_headers(1))).status == 200
    assert [m["ts"] for m in mentions] == ["1700000001.000001"] * 2
    assert retries == [None, ["1"]]  # Bolt lower-cases header names, values are lists
    posts = fake_slack.calls("chat.postMessage")
    assert [p.body["thread_ts"] for p in posts] == ["1700000001.000001"] * 2
    assert fake_slack.calls("auth.test"), "Bolt resolves the bot identity via auth.test"

    own = message_event("hi", user=BOT_USER_ID, channel="C1", ts="2.0", bot_id=BOT_ID)
    assert (await _dispatch(app, event_body(own))).status == 200

    click = block_action_body(
        "rediagnose",
        "3f1c",
        user="U1",
        channel="C1",
        message_ts=posts[0].response["ts"],
        thread_ts="1700000001.000001",
        response_url=fake_slack.response_url("a1"),
    )
    assert (await _dispatch(app, click)).status == 200
    assert actions[0]["value"] == "3f1c"

    challenge = await _dispatch(app, url_verification_body("c-123"))
    assert (challenge.status, json.loads(challenge.body)) == (200, {"challenge": "c-123"})
    assert (await _dispatch(app, ssl_check_body())).status == 200


async def test_a_response_url_takes_five_posts(fake_slack: FakeSlack) -> None:
    url = fake_slack.response_url("five")
    answers = [await AsyncWebhookClient(url).send(text=f"post {i}") for i in range(6)]
    assert [(a.status_code, a.body) for a in answers] == [(200, "ok")] * 5 + [(404, "used_url")]
    other = await AsyncWebhookClient(fake_slack.response_url("other")).send(text="first")
    assert other.status_code == 200  # counted per response_url
