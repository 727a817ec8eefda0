"""The Slack clients of a process share one keep-alive session, closed once after the last call.

Over real HTTP against the fake Slack, which records each call's client address and port
(`Call.peer`): calls over one kept-alive connection share it; a session per call (slack_sdk
without one) shows a new port every call.
"""

from __future__ import annotations

import asyncio

import pytest
from pydantic import SecretStr
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.app.runtime import build_runtime
from bot.slack.app import build_web_client
from bot.slack.authorize import tokenless_twin
from bot.slack.responder import SlackResponder
from bot.slack.session import SLACK_TIMEOUT_S, SharedSessionClient, SlackSession
from tests.bot.slack.fake_slack import UPLOAD, FakeSlack
from tests.bot.slack.harness import _settings, running_bots
from tests.bot.slack.signing import slash_command_body

TOKEN = "xoxb-e2e-token"


def _peers(fake: FakeSlack, method: str | None = None) -> set[tuple[str, int] | None]:
    return {call.peer for call in fake.calls(method)}


async def test_calls_one_after_another_reuse_one_connection(fake_slack: FakeSlack):
    client = build_web_client(TOKEN, fake_slack.base_url)
    try:
        posted = await client.chat_postMessage(channel="C1", text="working on it")
        await client.chat_update(channel="C1", ts=posted["ts"], text="the answer")
        await client.files_upload_v2(content=b"png", filename="c.png", channel="C1")
        await client.auth_test()
    finally:
        await client.shared.aclose()
    methods = [call.method for call in fake_slack.calls()]
    assert UPLOAD in methods  # the upload URL's bytes go through the session too
    assert len(methods) == 6
    assert len(_peers(fake_slack)) == 1, fake_slack.calls()


async def test_private_replies_through_response_url_share_the_session(fake_slack: FakeSlack):
    client = build_web_client(TOKEN, fake_slack.base_url)
    url = fake_slack.response_url("r9")
    try:
        responder = SlackResponder(
            client, channel="C1", thread_ts=None, user="U1", response_url=url
        )
        for text in ("you are third in line", "you are second in line"):
            await responder.tell(text)
    finally:
        await client.shared.aclose()
    assert len(fake_slack.calls("response_url")) == 2
    assert len(_peers(fake_slack, "response_url")) == 1


async def test_without_the_shared_session_every_call_opens_a_connection(fake_slack: FakeSlack):
    """What the shared session saves: slack_sdk's own behaviour, a connection per call."""
    client = AsyncWebClient(token=TOKEN, base_url=fake_slack.base_url)
    for text in ("one", "two", "three"):
        await client.chat_postMessage(channel="C1", text=text)
    assert len(_peers(fake_slack)) == 3


async def test_the_bolt_twin_and_bolts_copies_call_through_the_same_session(
    fake_slack: FakeSlack,
):
    client = build_web_client(TOKEN, fake_slack.base_url)
    twin = tokenless_twin(client)
    try:
        await client.auth_test()
        assert twin.token is None
        assert twin.session is client.session is not None
        # What Bolt builds for each request (`AsyncApp._init_context`), from its client:
        copy = AsyncWebClient(token=TOKEN, base_url=twin.base_url, session=twin.session)
        await copy.chat_postMessage(channel="C1", text="from a listener")
    finally:
        await client.shared.aclose()
    assert len(_peers(fake_slack)) == 1


@pytest.mark.parametrize(
    ("status", "retry_after"), [(429, 0), (500, None), (503, None)], ids=["429", "500", "503"]
)
async def test_slacks_retries_still_happen_on_the_shared_session(
    fake_slack: FakeSlack, status: int, retry_after: int | None
):
    client = build_web_client(TOKEN, fake_slack.base_url)
    fake_slack.fail_next("chat.postMessage", status=status, retry_after=retry_after)
    try:
        answer = await client.chat_postMessage(channel="C1", text="again")
    finally:
        await client.shared.aclose()
    assert answer["ok"]
    assert [c.status for c in fake_slack.calls("chat.postMessage")] == [status, 200]


async def test_closing_closes_the_session_and_a_later_call_still_goes_out(
    fake_slack: FakeSlack,
):
    client = build_web_client(TOKEN, fake_slack.base_url)
    await client.auth_test()
    session = client.session
    assert session is not None
    opened = client.shared.opened
    await client.shared.aclose()
    await client.shared.aclose()  # a second close is nothing
    assert session.closed
    assert (opened, client.shared.opened) == (True, False)
    assert client.session is None  # never opened again: nothing would close it
    await client.auth_test()  # slack_sdk's session of its own, closed after the call
    assert len(fake_slack.calls("auth.test")) == 2


def test_outside_a_running_loop_there_is_no_session_to_share():
    """The clients are built before `serve`'s loop runs; the session opens in the loop."""
    shared = SlackSession(timeout_s=SLACK_TIMEOUT_S)
    client = SharedSessionClient(shared, token=TOKEN)
    assert client.session is None
    assert not shared.opened
    with pytest.raises(ValueError, match="SlackSession"):
        client.session = object()  # type: ignore[assignment]


async def test_each_event_loop_has_a_session_of_its_own(fake_slack: FakeSlack):
    client = build_web_client(TOKEN, fake_slack.base_url)
    await client.auth_test()
    first = client.session

    async def elsewhere() -> bool:
        answer = await client.auth_test()  # in a loop of its own, on another thread
        theirs = client.session
        assert theirs is not None
        await theirs.close()  # a session is closed in its own loop
        return bool(answer["ok"]) and theirs is not first

    assert await asyncio.to_thread(asyncio.run, elsewhere())
    assert client.session is first  # this loop's session was not replaced meanwhile
    await client.auth_test()
    await client.shared.aclose()
    assert first is not None
    assert first.closed
    assert len(fake_slack.calls("auth.test")) == 3


async def test_the_session_times_out_as_the_client_does(fake_slack: FakeSlack):
    client = build_web_client(TOKEN, fake_slack.base_url)
    try:
        session = client.session
        assert session is not None
        assert session.timeout.total == client.timeout == SLACK_TIMEOUT_S
    finally:
        await client.shared.aclose()


async def test_the_runtime_closes_the_slack_session_and_leaves_no_task(
    fake_slack: FakeSlack, redis_url: str
):
    runtime = build_runtime(_settings(fake_slack, "http://127.0.0.1:9", redis_url))
    assert runtime.slack is not None
    before = asyncio.all_tasks()
    try:
        assert await runtime.slack.team()  # `auth.test` through the shared session
        session = runtime.slack.session.get()
        assert session is not None
    finally:
        await runtime.aclose()
    assert session.closed
    assert asyncio.all_tasks() <= before


async def test_socket_mode_opens_its_socket_through_the_shared_session(
    fake_slack: FakeSlack, redis_url: str
):
    """Socket Mode's `apps.connections.open` goes through the Bolt twin: the same session."""
    settings = _settings(
        fake_slack, "http://127.0.0.1:9", redis_url, slack_app_token=SecretStr("xapp-1")
    )
    runtime = build_runtime(settings, socket_mode=True)
    assert runtime.slack is not None
    handler = AsyncSocketModeHandler(runtime.slack.app, "xapp-1")
    try:
        await runtime.slack.team()
        with pytest.raises(SlackApiError, match="invalid_auth"):  # it knows bot tokens only
            await handler.client.web_client.apps_connections_open(app_token="xapp-1")
    finally:
        await handler.close_async()
        await runtime.aclose()
    [opened] = fake_slack.calls("apps.connections.open")
    assert opened.headers["authorization"] == "Bearer xapp-1"
    assert len(_peers(fake_slack)) == 1


@pytest.mark.e2e
async def test_an_answer_reuses_connections_across_its_slack_calls(
    fake_slack: FakeSlack, redis_url: str, redis_client
):
    """Placeholder, update, the chart's three calls and the lookups: far fewer connections."""
    ask = "why did training-job-42 in ml-team fail on cluster prod-a?"
    async with running_bots(fake_slack, redis_url) as [bot]:
        body = slash_command_body(ask, response_url=fake_slack.response_url())
        assert (await bot.send(body)).status_code == 200
        await fake_slack.wait_for_async("files.completeUploadExternal")
    web_api = [c for c in fake_slack.calls() if c.key is None or c.method == UPLOAD]
    assert len(web_api) >= 6, [c.method for c in web_api]
    assert len({c.peer for c in web_api}) <= len(web_api) // 2, [
        (c.method, c.peer) for c in web_api
    ]
