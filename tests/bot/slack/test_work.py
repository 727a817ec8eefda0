"""The Slack handler of queued items: what a retry after a public post tells, and keeps."""

from __future__ import annotations

import asyncio
import contextlib
from typing import cast

import pytest
import redis.asyncio
from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation import (
    ConversationEngine,
    Incoming,
    Notice,
    ReportReply,
    Responder,
    StateStore,
    StoreUnavailable,
    ThreadKey,
)
from bot.conversation.messages import STATE_NOT_SAVED
from bot.slack.deps import SlackDeps
from bot.slack.intake import ResponderSpec, submit
from bot.slack.orphans import tag
from bot.slack.work import SlackWork
from bot.work import Intake, RedisWorkQueue, ShownPost, Worker
from diagnosis import Report
from tests.bot.render.reports import report
from tests.bot.slack.fake_slack import RESPONSE_URL, FakeSlack
from tests.bot.work.chat import until

CLICK = "act:C1:1.1:prod-a:U1"  # the key a click on a question's button is taken under


class _StoreDown:
    """The engine's surface the handler uses; its state store fails at the thread's lock."""

    store = None

    async def asker(self, key: ThreadKey) -> str:
        del key
        return "U1"

    async def handle(self, incoming: Incoming, responder: object) -> None:
        del incoming, responder
        raise StoreUnavailable("Redis is unavailable (lock: ConnectionError)")


async def test_a_retry_after_a_public_post_is_not_told_nothing_was_done(
    fake_slack: FakeSlack, redis_client: redis.asyncio.Redis
):
    """The first attempt posted "Diagnosing …" and died; the second meets a Redis failure.

    Something is in the channel, so the asker is told it may not be remembered, never "I did
    not process this request", and the click stays taken: clicked again, it is a duplicate.
    """
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url)
    queue = RedisWorkQueue(redis_client, max_items=10, journal_ttl_s=60)
    spec = ResponderSpec(channel="C1", thread_ts="1.1", user="U1")
    click = Incoming(ThreadKey("slack", "T1", "C1", "1.1"), "U1", choice="prod-a", message_ref="2")

    async def ask() -> Intake:
        taken = await submit(
            queue,
            kind="click",
            incoming=click,
            spec=spec,
            dedupe=CLICK,
            dedupe_ttl_s=600,
            deadline_s=300,
            repeatable=True,
        )
        return taken.intake

    assert await ask() is Intake.ACCEPTED
    [delivery] = await queue.take("died", 1, 0)
    assert delivery.item is not None
    journal = queue.journal(delivery.item.id)
    await journal.begin(delivery.entry_id)
    posted = await client.chat_postMessage(
        channel="C1",
        thread_ts="1.1",
        text="Diagnosing …",
        metadata=tag(delivery.item.id, progress=True),
    )
    await journal.record_post(0, ShownPost(str(posted["ts"]), progress=True), None)

    engine = cast("ConversationEngine", _StoreDown())
    deps = SlackDeps(engine=engine, store=cast("StateStore", None), queue=queue)
    worker = Worker(
        queue, {"slack": SlackWork(deps, client)}, concurrency=1, claim_idle_s=0.3, max_deliveries=3
    )
    worker.start()
    await until(lambda: fake_slack.calls("chat.postEphemeral"))
    await until(lambda: worker.inflight == 0)
    await worker.stop(1)
    told = [call.body.get("text") for call in fake_slack.calls("chat.postEphemeral")]
    assert told == [STATE_NOT_SAVED]
    assert await ask() is Intake.DUPLICATE


class _Answers:
    """The engine's turn as it shows an answer: "Diagnosing …", then the report in its place."""

    def __init__(self, answer: Report) -> None:
        self._answer = answer

    async def handle(self, incoming: Incoming, responder: Responder) -> None:
        del incoming
        ref = await responder.post(Notice("Diagnosing …", progress=True))
        await responder.update(ref, ReportReply(self._answer, "24h"))


async def test_a_queued_answer_through_a_response_url_leaves_the_listener_its_post(
    fake_slack: FakeSlack,
):
    """Not in the channel, the bot answers through the request's `response_url` (five posts).

    The listener told the asker their place in the queue there first, so the worker's answer
    fits the four posts left, and its last page (what it left out) reaches the asker.
    """
    fake_slack.fail_next("chat.postMessage", error="not_in_channel", count=50)
    fake_slack.fail_next("chat.postEphemeral", error="not_in_channel", count=50)
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url)
    url = fake_slack.response_url("r")
    spec = ResponderSpec(channel="C1", thread_ts="1.1", user="U1", response_url=url)
    await spec.responder(client, runai_url=None).tell("I am busy: 1 request is ahead of yours.")
    long = report(recommendations=tuple(f"rec {i} " + "y" * 900 for i in range(40)))
    worker = spec.responder(client, runai_url=None, queued=True)
    await _Answers(long).handle(Incoming(ThreadKey("slack", "T1", "C1", "1.1"), "U1"), worker)
    posts = fake_slack.calls(RESPONSE_URL)
    assert [call.status for call in posts] == [200] * 5
    assert "left out" in str(posts[-1].body.get("blocks"))
    fake_slack.violations.clear()  # the not_in_channel failures asked for above


class _Hangs:
    """The engine's turn as a worker killed mid-answer leaves it: "Diagnosing …", then nothing."""

    async def handle(self, incoming: Incoming, responder: Responder) -> None:
        del incoming
        await responder.post(Notice("Diagnosing …", progress=True))
        await asyncio.Event().wait()


async def test_a_retried_answer_through_a_response_url_knows_the_posts_spent_before(
    fake_slack: FakeSlack, redis_client: redis.asyncio.Redis
):
    """An attempt posted "Diagnosing …" through the `response_url` and its worker died.

    The next attempt takes the journal's count of the posts spent there (the listener's
    notice and the placeholder), shows no second "Diagnosing …", and fits the answer into
    the three posts left, its last page included, without the note on inviting the bot
    again. It used to count from the listener's one post: a second placeholder, and a
    sixth post Slack refused.
    """
    client, queue, spec = await _asked_outside_the_channel(fake_slack, redis_client)
    await spec.responder(client, runai_url=None).tell("I am busy: 1 request is ahead of yours.")

    def work(engine: object) -> SlackWork:
        return _work(engine, queue, client)

    first = await _first_attempt(queue, work(_Hangs()))
    await until(lambda: len(fake_slack.calls(RESPONSE_URL)) == 2)
    first.cancel()  # killed with its placeholder shown

    long = report(recommendations=tuple(f"rec {i} " + "y" * 900 for i in range(40)))
    worker = Worker(
        queue, {"slack": work(_Answers(long))}, concurrency=1, claim_idle_s=0.3, max_deliveries=3
    )
    worker.start()
    try:
        await until(lambda: "left out" in str(fake_slack.calls(RESPONSE_URL)[-1].body))
    finally:
        await worker.stop(1)
    posts = fake_slack.calls(RESPONSE_URL)
    assert [call.status for call in posts] == [200] * 5
    assert ["Diagnosing" in str(call.body) for call in posts] == [False, True, False, False, False]
    assert ["/invite" in str(call.body) for call in posts] == [False, True, False, False, False]
    fake_slack.violations.clear()  # the not_in_channel failures asked for above


class _AnswersThenDies:
    """The engine's turn with no placeholder: the answer, then the worker dies before finishing."""

    def __init__(self, answer: Report) -> None:
        self._answer = answer

    async def handle(self, incoming: Incoming, responder: Responder) -> None:
        del incoming
        await responder.post(ReportReply(self._answer, "24h"))
        await asyncio.Event().wait()


class _AnswersAtOnce:
    """The engine's turn with no placeholder: the answer, posted."""

    def __init__(self, answer: Report) -> None:
        self._answer = answer

    async def handle(self, incoming: Incoming, responder: Responder) -> None:
        del incoming
        await responder.post(ReportReply(self._answer, "24h"))


class _Done:
    """An engine's turn, and whether it has run to its end."""

    def __init__(self, inner: _Answers | _AnswersAtOnce) -> None:
        self._inner, self.done = inner, False

    async def handle(self, incoming: Incoming, responder: Responder) -> None:
        await self._inner.handle(incoming, responder)
        self.done = True


@pytest.mark.parametrize("retry", [_Answers, _AnswersAtOnce], ids=["placeholder", "answer"])
async def test_an_answer_out_through_a_response_url_is_not_posted_again_by_the_retry(
    fake_slack: FakeSlack, redis_client: redis.asyncio.Redis, retry: type
):
    """The answer went out through the `response_url`, then the worker died (saving state).

    Nothing there can be replaced, so the next attempt leaves that answer as it is, whether
    its turn posts "Diagnosing …" first or the answer at once. It used to post it again.
    """
    client, queue, _ = await _asked_outside_the_channel(fake_slack, redis_client)

    def work(engine: object) -> SlackWork:
        return _work(engine, queue, client)

    answer = report(headline="THE-ANSWER")
    first = await _first_attempt(queue, work(_AnswersThenDies(answer)))
    await until(lambda: len(fake_slack.calls(RESPONSE_URL)) == 1)
    first.cancel()  # killed after its answer was out
    with contextlib.suppress(asyncio.CancelledError):
        await first

    engine = _Done(retry(answer))
    worker = Worker(
        queue, {"slack": work(engine)}, concurrency=1, claim_idle_s=0.3, max_deliveries=3
    )
    worker.start()
    try:
        await until(lambda: engine.done)
    finally:
        await worker.stop(1)
    posts = fake_slack.calls(RESPONSE_URL)
    assert ["THE-ANSWER" in str(call.body) for call in posts] == [True]
    fake_slack.violations.clear()  # the not_in_channel failures asked for above


async def _asked_outside_the_channel(
    fake_slack: FakeSlack, redis_client: redis.asyncio.Redis
) -> tuple[AsyncWebClient, RedisWorkQueue, ResponderSpec]:
    """A slash command queued where the bot is not a member: it answers via `response_url`."""
    fake_slack.fail_next("chat.postMessage", error="not_in_channel", count=50)
    fake_slack.fail_next("chat.postEphemeral", error="not_in_channel", count=50)
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url)
    queue = RedisWorkQueue(redis_client, max_items=10, journal_ttl_s=60)
    spec = ResponderSpec(
        channel="C1", thread_ts="1.1", user="U1", response_url=fake_slack.response_url("r")
    )
    ask = Incoming(ThreadKey("slack", "T1", "C1", "1.1"), "U1", text="why did it fail")
    taken = await submit(
        queue, kind="turn", incoming=ask, spec=spec, dedupe="m1", dedupe_ttl_s=600, deadline_s=300
    )
    assert taken.intake is Intake.ACCEPTED
    return client, queue, spec


def _work(engine: object, queue: RedisWorkQueue, client: AsyncWebClient) -> SlackWork:
    deps = SlackDeps(
        engine=cast("ConversationEngine", engine), store=cast("StateStore", None), queue=queue
    )
    return SlackWork(deps, client)


async def _first_attempt(queue: RedisWorkQueue, work: SlackWork) -> asyncio.Task[object]:
    """The queued item's first attempt, running (a test kills it by cancelling the task)."""
    [delivery] = await queue.take("died", 1, 0)
    assert delivery.item is not None
    journal = queue.journal(delivery.item.id)
    begun = await journal.begin(delivery.entry_id)
    return asyncio.create_task(work.run(delivery.item, journal, begun))
