"""The fast lane answers a warm process's requests exactly as Bolt would; the rest go to Bolt.

Each row is one situation a listener can meet (commands, mentions, messages, clicks, the
message shortcut; taken, retried, refused, Redis down, a bug). The same signed body goes
once through Bolt's dispatch and once through the lane, each with a fresh queue in that
situation, and both must give the same status, content type and body, queue the same items,
make the same Slack calls and log the same warnings.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote_plus

import pytest
import structlog
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation import Incoming, MemoryStore, ThreadKey
from bot.durable.connect import connect_redis
from bot.render.actions import OPEN_IN_RUNAI, RERUN, SHOW_ALL_EVIDENCE
from bot.slack.app import build_slack_app
from bot.slack.authorize import AuthTest
from bot.slack.deps import SlackDeps
from bot.slack.fastlane import FastLane
from bot.slack.messages import CHOICE_ACTION
from bot.slack.payloads import Checked, check_body
from bot.slack.response_urls import ResponseUrls
from bot.work import Enqueued, MemoryWorkQueue, RedisWorkQueue, WorkItem, WorkQueue, new_item
from tests.bot.slack.fake_slack import BOT_USER_ID, FakeSlack
from tests.bot.slack.harness import SECRET, running_bots
from tests.bot.slack.signing import (
    FORM,
    JSON,
    app_mention_event,
    block_action_body,
    event_body,
    message_event,
    message_shortcut_body,
    signed_headers,
    slash_command_body,
)
from tests.ports import free_port

pytestmark = pytest.mark.e2e


class _Broken(MemoryWorkQueue):
    """A queue whose `enqueue` fails with a bug, not an outage."""

    async def enqueue(self, item: WorkItem, *, dedupe: str, dedupe_ttl_s: int) -> Enqueued:  # noqa: ARG002
        raise RuntimeError("a bug in the queue")


async def _taken(queue: WorkQueue) -> WorkQueue:
    return queue


async def _full(queue: WorkQueue) -> WorkQueue:
    assert isinstance(queue, MemoryWorkQueue)
    full = MemoryWorkQueue(max_items=1)
    await full.enqueue(_item(), dedupe="earlier", dedupe_ttl_s=60)
    return full


async def _redis_down(_: WorkQueue) -> WorkQueue:
    nowhere = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    client = connect_redis(nowhere, pool_timeout_s=1)
    return RedisWorkQueue(client, max_items=10, journal_ttl_s=60)


async def _broken(_: WorkQueue) -> WorkQueue:
    return _Broken(max_items=10)


def _item() -> WorkItem:
    key = ThreadKey("slack", "T1", "C9", "cmd-earlier")
    incoming = Incoming(key, "U9", text="help")
    return new_item(platform="slack", kind="turn", incoming=incoming, responder={}, deadline_s=60)


#: Stands for the fake Slack's own `response_url` in a row's body (put in by `_through`).
HOOK = "https://hooks.slack.com/commands/T1/1/row"
MENTION = app_mention_event("<@UBOT> why did x fail", user="U1", channel="C1", ts="1700.000100")
THREAD = "1700.000001"


def _command(response_url: str = HOOK) -> bytes:
    return slash_command_body("why did x fail", trigger_id="trig-1", response_url=response_url)


def _message(**kw: Any) -> bytes:
    text, channel, user = kw.pop("text", "and now?"), kw.pop("channel", "C1"), kw.pop("user", "U1")
    return event_body(message_event(text, user=user, channel=channel, ts="1700.000200", **kw))


def _click(action_id: str, value: str) -> bytes:
    return block_action_body(
        action_id, value, user="U1", channel="C1", message_ts=THREAD, response_url=HOOK
    )


def _shortcut(response_url: str) -> bytes:
    alert = {"text": "training-job-42 failed on prod-a", "ts": THREAD, "user": "U2"}
    return message_shortcut_body(alert, user="U1", channel="C1", response_url=response_url)


@dataclass(frozen=True)
class Row:
    name: str
    body: bytes
    status: int
    says: str | None = None  # the start of a command's private ack text
    queue: Callable[[WorkQueue], Awaitable[WorkQueue]] = _taken
    sends: tuple[str | None, ...] = (None,)  # each delivery's X-Slack-Retry-Num
    queued: int = 0
    bot_in_thread: bool = False
    slack: tuple[str, ...] = ()  # the Slack API calls it made
    logged: tuple[str, ...] = ()  # the warnings and errors it logged


FOREIGN = "http://169.254.169.254/latest"
TOLD, REPLIES, HOOKED = "chat.postEphemeral", "conversations.replies", "response_url"
FULL, FAILED, REFUSED = "work_queue_full", "slack_listener_failed", "slack_response_url_refused"
AGAIN = "slack_event_not_taken"
DOWN, BUG, IN_THREAD = _redis_down, _broken, _message(thread_ts=THREAD)

ROWS = [
    Row("command taken", _command(), 200, queued=1),
    Row("command replayed", _command(), 200, sends=(None, None), queued=1),
    Row("command, queue full", _command(), 200, "I am answering", _full, logged=(FULL,)),
    Row("command, Redis down", _command(), 200, "I can", DOWN),
    Row("command, a bug", _command(), 500, queue=BUG, logged=(FAILED,)),
    Row("command, foreign response_url", _command(FOREIGN), 200, queued=1, logged=(REFUSED,)),
    Row("mention taken", event_body(MENTION), 200, queued=1),
    Row("mention and its retry", event_body(MENTION), 200, sends=(None, "1"), queued=1),
    Row(
        "mention, Redis down", event_body(MENTION), 500, queue=DOWN, slack=(TOLD,), logged=(AGAIN,)
    ),
    Row(
        "mention, Redis down, retry",
        event_body(MENTION),
        500,
        queue=DOWN,
        sends=("2",),
        logged=(AGAIN,),
    ),
    Row("mention, a bug", event_body(MENTION), 500, queue=BUG, logged=(FAILED,)),
    Row("direct message", _message(channel="D1"), 200, queued=1),
    Row(
        "thread reply, bot took part",
        IN_THREAD,
        200,
        queued=1,
        bot_in_thread=True,
        slack=(REPLIES,),
    ),
    Row("thread reply among people", IN_THREAD, 200, slack=(REPLIES,)),
    Row("thread reply mentioning the bot", _message(thread_ts=THREAD, text="<@UBOT> hi"), 200),
    Row("top-level chatter", _message(), 200),
    Row("from an app", _message(channel="D1", bot_id="B9"), 200),
    Row("from the bot's own user", _message(channel="D1", user=BOT_USER_ID), 200),
    Row("an edit", _message(channel="D1", subtype="message_changed"), 200),
    Row("choice click", _click(f"{CHOICE_ACTION}_0", "prod-a"), 200, queued=1),
    Row(
        "choice click, Redis down",
        _click(f"{CHOICE_ACTION}_1", "b"),
        200,
        queue=DOWN,
        slack=(HOOKED,),
    ),
    Row("choice click, a bug", _click(f"{CHOICE_ACTION}_1", "b"), 500, queue=BUG, logged=(FAILED,)),
    Row("show all evidence", _click(SHOW_ALL_EVIDENCE, "x"), 200, queued=1),
    Row("check again", _click(RERUN, "x"), 200, queued=1),
    Row("open in Run:ai", _click(OPEN_IN_RUNAI, "x"), 200),
    Row("message shortcut", _shortcut(HOOK), 200, queued=1),
    Row(
        "message shortcut, foreign response_url",
        _shortcut(FOREIGN),
        200,
        queued=1,
        logged=(REFUSED,),
    ),
]


@dataclass
class Seen:
    status: int
    content_type: str
    body: str
    queued: list[dict[str, Any]]
    events: list[str]
    slack: list[str]


async def _through(
    *, lane: bool, row: Row, slack: FakeSlack, client: AsyncWebClient, auth_test: AuthTest
) -> Seen:
    queue = await row.queue(MemoryWorkQueue(max_items=10))
    deps = SlackDeps(engine=None, store=MemoryStore(), queue=queue)  # type: ignore[arg-type]
    app = build_slack_app(client=client, signing_secret=SECRET, deps=deps, auth_test=auth_test)
    fast = FastLane(deps, client, auth_test, ResponseUrls.for_api(str(client.base_url)))
    slack.clear()
    if row.bot_in_thread:
        slack.seed_message("C1", THREAD, "an answer", user=BOT_USER_ID)
    hook = slack.response_url("row")  # a real one, on 127.0.0.1
    body = row.body.replace(quote_plus(HOOK).encode(), quote_plus(hook).encode())
    content = JSON if body.startswith(b"{") else FORM
    seen = Seen(0, "", "", [], [], [])
    with structlog.testing.capture_logs() as logs:
        for retry in row.sends:
            checked = check_body(content, body)
            if lane:
                route = fast.route_for(checked)
                assert route is not None
                response = await fast.answer(route, checked, retry)
                seen.status, seen.body = response.status_code, bytes(response.body).decode()
                seen.content_type = response.headers["content-type"]
            else:
                headers: dict[str, str | Sequence[str]] = {**signed_headers(SECRET, body)}
                if retry is not None:
                    headers["x-slack-retry-num"] = retry
                bolt = await app.async_dispatch(
                    AsyncBoltRequest(body=body.decode(), headers=headers)
                )
                seen.status, seen.body = bolt.status, bolt.body
                seen.content_type = bolt.first_headers()["content-type"]
        await deps.notices.drain(5)
    if isinstance(queue, MemoryWorkQueue):
        seen.queued = [
            {"kind": d.item.kind, "responder": d.item.responder, "text": d.item.incoming.text}
            for d in await queue.take("c", count=10, block_s=0)
            if d.item is not None and d.item.incoming.text != "help"  # `_full`'s own item
        ]
    if isinstance(queue, RedisWorkQueue):
        await queue._redis.aclose()  # the client this test made for it
    seen.events = [e["event"] for e in logs if e["log_level"] in {"warning", "error"}]
    seen.slack = [c.method for c in slack.calls() if c.method != "auth.test"]
    return seen


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
async def test_the_lane_answers_as_bolt_does(row: Row, fake_slack: FakeSlack):
    client = AsyncWebClient(token="xoxb-e2e-token", base_url=fake_slack.base_url)
    auth_test = AuthTest(client)
    await auth_test.answer()  # a warm process
    both = {"slack": fake_slack, "client": client, "auth_test": auth_test}
    by_bolt = await _through(lane=False, row=row, **both)  # type: ignore[arg-type]
    by_lane = await _through(lane=True, row=row, **both)  # type: ignore[arg-type]
    assert by_lane == by_bolt
    assert (by_lane.status, len(by_lane.queued)) == (row.status, row.queued)
    assert (by_lane.slack, by_lane.events) == (list(row.slack), list(row.logged))
    if row.says is None:
        assert by_lane.body == ""
    else:
        assert by_lane.body.startswith(f'{{"text": "{row.says}')
        assert by_lane.body.endswith('"response_type": "ephemeral"}')


async def test_a_foreign_response_url_never_reaches_the_queue(fake_slack: FakeSlack):
    client = AsyncWebClient(token="xoxb-e2e-token", base_url=fake_slack.base_url)
    auth_test = AuthTest(client)
    await auth_test.answer()
    row = next(r for r in ROWS if r.name == "command, foreign response_url")
    seen = await _through(lane=True, row=row, slack=fake_slack, client=client, auth_test=auth_test)
    assert [q["responder"]["response_url"] for q in seen.queued] == [None]
    assert seen.events == ["slack_response_url_refused"]


def taken(lane: FastLane, checked: Checked) -> bool:
    return lane.route_for(checked) is not None


def _checked(**changes: Any) -> Any:
    body = slash_command_body("help", response_url="https://hooks.slack.com/c/1", **changes)
    return check_body(FORM, body)


async def test_only_a_warm_process_s_runai_why_takes_the_lane(fake_slack: FakeSlack):
    client = AsyncWebClient(token="xoxb-e2e-token", base_url=fake_slack.base_url)
    auth_test = AuthTest(client)
    deps = SlackDeps(engine=None, store=MemoryStore(), queue=MemoryWorkQueue(max_items=1))  # type: ignore[arg-type]
    lane = FastLane(deps, client, auth_test, ResponseUrls.for_api(fake_slack.base_url))
    assert not taken(lane, _checked()), "cold: Bolt asks auth.test and reports its failure"
    await auth_test.answer()
    assert taken(lane, _checked())
    assert not taken(lane, _checked(command="/other")), "another app's command: Bolt's 404"
    assert not taken(lane, check_body(FORM, b"ssl_check=1&token=x"))
    ssl_check_with_command = b"ssl_check=1&token=x&command=%2Frunai-why"
    assert not taken(lane, check_body(FORM, ssl_check_with_command)), "Bolt answers ssl_check"
    assert not taken(lane, check_body(JSON, b'{"type": "url_verification", "challenge": "c"}'))
    assert taken(lane, check_body(JSON, event_body(MENTION)))
    reaction = {"type": "reaction_added", "user": "U1", "reaction": "eyes", "event_ts": "1.2"}
    unlistened = check_body(JSON, event_body(reaction))
    assert unlistened.problem is None
    assert not taken(lane, unlistened), "no listener for it: Bolt answers as it does"
    assert taken(lane, check_body(FORM, _click(SHOW_ALL_EVIDENCE, "x")))
    assert taken(lane, check_body(FORM, _shortcut(HOOK)))
    assert not taken(lane, check_body(FORM, _click("someone_elses_button", "x")))


async def test_a_warm_gate_sends_runai_why_past_bolt(
    fake_slack: FakeSlack, redis_url: str, monkeypatch: pytest.MonkeyPatch
):
    """Over HTTP, in the real process: only the first, cold command goes through Bolt."""
    dispatched: list[str] = []

    def spying(**kwargs: Any) -> Any:
        app = build_slack_app(**kwargs)
        original = app.async_dispatch

        async def dispatch(request: AsyncBoltRequest) -> Any:
            dispatched.append(str(request.body.get("command")))
            return await original(request)

        app.async_dispatch = dispatch  # type: ignore[method-assign,assignment]
        return app

    monkeypatch.setattr("bot.slack.frontend.build_slack_app", spying)
    async with running_bots(fake_slack, redis_url) as [bot]:
        for n in range(3):
            body = slash_command_body(
                "help", trigger_id=f"t{n}", response_url=fake_slack.response_url(f"k{n}")
            )
            assert (await bot.send(body)).status_code == 200
        await fake_slack.wait_for_async("response_url", count=3)  # each got its help
    assert dispatched == ["/runai-why"]
