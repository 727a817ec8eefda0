"""The fast lane answers a warm `/runai-why` exactly as Bolt would, and leaves the rest to Bolt.

Each row is one situation the command's listener can meet; the same signed form goes once
through Bolt's dispatch and once through the lane, each with a fresh queue in that
situation, and both must give the same status, content type and body, queue the same item,
and log the same events.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
import structlog
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation import Incoming, MemoryStore, ThreadKey
from bot.durable.connect import connect_redis
from bot.slack.app import build_slack_app
from bot.slack.authorize import AuthTest
from bot.slack.deps import SlackDeps
from bot.slack.fastlane import FastLane
from bot.slack.payloads import check_body
from bot.slack.response_urls import ResponseUrls
from bot.work import Enqueued, MemoryWorkQueue, RedisWorkQueue, WorkItem, WorkQueue, new_item
from tests.bot.slack.fake_slack import FakeSlack
from tests.bot.slack.harness import SECRET, running_bots
from tests.bot.slack.signing import FORM, signed_headers, slash_command_body
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


@dataclass(frozen=True)
class Row:
    name: str
    queue: Callable[[WorkQueue], Awaitable[WorkQueue]]
    response_url: str
    status: int
    says: str | None  # the start of the private ack text, or None for an empty ack
    replay: bool = False


ROWS = [
    Row("taken", _taken, "https://hooks.slack.com/commands/T1/1/a", 200, None),
    Row("a replay", _taken, "https://hooks.slack.com/commands/T1/1/a", 200, None, replay=True),
    Row("queue full", _full, "https://hooks.slack.com/commands/T1/1/a", 200, "I am answering"),
    Row("redis down", _redis_down, "https://hooks.slack.com/commands/T1/1/a", 200, "I can"),
    Row("a bug", _broken, "https://hooks.slack.com/commands/T1/1/a", 500, None),
    Row("foreign response_url", _taken, "http://169.254.169.254/latest", 200, None),
]


@dataclass
class Seen:
    status: int
    content_type: str
    body: str
    queued: list[dict[str, Any]]
    events: list[str]


async def _through(*, lane: bool, row: Row, client: AsyncWebClient, auth_test: AuthTest) -> Seen:
    queue = await row.queue(MemoryWorkQueue(max_items=10))
    deps = SlackDeps(engine=None, store=MemoryStore(), queue=queue)  # type: ignore[arg-type]
    app = build_slack_app(client=client, signing_secret=SECRET, deps=deps, auth_test=auth_test)
    fast = FastLane(deps, auth_test, ResponseUrls.for_api(str(client.base_url)))
    body = slash_command_body("why did x fail", trigger_id="trig-1", response_url=row.response_url)
    sends = 2 if row.replay else 1
    with structlog.testing.capture_logs() as logs:
        for _ in range(sends):
            checked = check_body(FORM, body)
            if lane:
                assert fast.takes(checked)
                response = await fast.answer(checked.data, None)
                seen = Seen(
                    response.status_code,
                    response.headers["content-type"],
                    bytes(response.body).decode(),
                    [],
                    [],
                )
            else:
                headers: dict[str, str | Sequence[str]] = {**signed_headers(SECRET, body)}
                request = AsyncBoltRequest(body=body.decode(), headers=headers)
                bolt = await app.async_dispatch(request)
                content_type = bolt.first_headers()["content-type"]
                seen = Seen(bolt.status, content_type, bolt.body, [], [])
    if isinstance(queue, MemoryWorkQueue):
        seen.queued = [
            {"responder": d.item.responder, "text": d.item.incoming.text}
            for d in await queue.take("c", count=10, block_s=0)
            if d.item is not None
        ]
    if isinstance(queue, RedisWorkQueue):
        await queue._redis.aclose()  # the client this test made for it
    seen.events = [e["event"] for e in logs if e["log_level"] in {"warning", "error"}]
    return seen


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
async def test_the_lane_acknowledges_as_bolt_does(row: Row, fake_slack: FakeSlack):
    client = AsyncWebClient(token="xoxb-e2e-token", base_url=fake_slack.base_url)
    auth_test = AuthTest(client)
    await auth_test.answer()  # a warm process
    by_bolt = await _through(lane=False, row=row, client=client, auth_test=auth_test)
    by_lane = await _through(lane=True, row=row, client=client, auth_test=auth_test)
    assert by_lane == by_bolt
    assert by_lane.status == row.status
    if row.says is None:
        assert by_lane.body == ""
    else:
        assert by_lane.body.startswith(f'{{"text": "{row.says}')
        assert by_lane.body.endswith('"response_type": "ephemeral"}')


async def test_a_foreign_response_url_never_reaches_the_queue(fake_slack: FakeSlack):
    client = AsyncWebClient(token="xoxb-e2e-token", base_url=fake_slack.base_url)
    auth_test = AuthTest(client)
    await auth_test.answer()
    seen = await _through(lane=True, row=ROWS[-1], client=client, auth_test=auth_test)
    assert [q["responder"]["response_url"] for q in seen.queued] == [None]
    assert seen.events == ["slack_response_url_refused"]


def _checked(**changes: Any) -> Any:
    body = slash_command_body("help", response_url="https://hooks.slack.com/c/1", **changes)
    return check_body(FORM, body)


async def test_only_a_warm_process_s_runai_why_takes_the_lane(fake_slack: FakeSlack):
    client = AsyncWebClient(token="xoxb-e2e-token", base_url=fake_slack.base_url)
    auth_test = AuthTest(client)
    deps = SlackDeps(engine=None, store=MemoryStore(), queue=MemoryWorkQueue(max_items=1))  # type: ignore[arg-type]
    lane = FastLane(deps, auth_test, ResponseUrls.for_api(fake_slack.base_url))
    assert not lane.takes(_checked()), "cold: Bolt asks auth.test and reports its failure"
    await auth_test.answer()
    assert lane.takes(_checked())
    assert not lane.takes(_checked(command="/other")), "another app's command: Bolt's 404"
    assert not lane.takes(check_body(FORM, b"ssl_check=1&token=x"))
    assert not lane.takes(check_body("application/json", b'{"type": "url_verification"}'))


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
