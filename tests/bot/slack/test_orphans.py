"""Posts a cut-short attempt made but never journaled are found again by their item ID."""

from __future__ import annotations

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.intake import ResponderSpec
from bot.slack.orphans import adopt, tag
from bot.work import JournalState, MemoryWorkQueue, ShownPost
from tests.bot.slack.fake_slack import FakeSlack
from tests.bot.work.items import item


def _client(fake: FakeSlack) -> AsyncWebClient:
    return AsyncWebClient(token="xoxb-test", base_url=fake.base_url)


async def _post(client: AsyncWebClient, thread: str | None, text: str, metadata=None) -> str:
    sent = await client.chat_postMessage(
        channel="C1", thread_ts=thread, text=text, metadata=metadata
    )
    return str(sent["ts"])


@pytest.mark.parametrize("threaded", [True, False], ids=["slash command", "direct message"])
async def test_a_slash_commands_unrecorded_posts_are_adopted_from_the_channel(
    fake_slack: FakeSlack,
    threaded: bool,  # noqa: FBT001 - a parameter of the table
):
    work, other = item("U1"), item("U2")
    client = _client(fake_slack)
    await _post(client, None, "someone else's", tag(other.id, progress=True))
    await _post(client, None, "a person's message")
    ours = await _post(client, None, "Diagnosing …", tag(work.id, progress=True))
    queue = MemoryWorkQueue(max_items=3)
    journal = queue.journal(work.id)
    spec = ResponderSpec(channel="C1", thread_ts=None, user="U1", threaded=threaded)
    state = await adopt(client, work, spec, journal, JournalState(retried=True))
    assert state.posts == (ShownPost(ours, progress=True),)
    assert state.thread == (ours if threaded else None)
    recorded = await journal.load()
    assert (recorded.posts, recorded.thread) == (state.posts, state.thread)


async def test_in_a_known_thread_only_the_posts_not_journaled_are_adopted(fake_slack: FakeSlack):
    work = item("U1")
    client = _client(fake_slack)
    root = await _post(client, None, "Which cluster?", tag(work.id, progress=False))
    placeholder = await _post(client, root, "Diagnosing …", tag(work.id, progress=True))
    known = JournalState((ShownPost(root, progress=False),), thread=root, attempts=2, retried=True)
    spec = ResponderSpec(channel="C1", thread_ts=None, user="U1")
    state = await adopt(client, work, spec, None, known)
    assert state.posts == (ShownPost(root, progress=False), ShownPost(placeholder, progress=True))
    assert (state.thread, state.attempts, state.retried) == (root, 2, True)  # the rest kept


async def test_nothing_found_or_slack_failing_leaves_the_state_as_it_was(fake_slack: FakeSlack):
    work = item("U1")
    client = _client(fake_slack)
    spec = ResponderSpec(channel="C1", thread_ts=None, user="U1")
    before = JournalState(retried=True)
    assert await adopt(client, work, spec, None, before) == before
    fake_slack.fail_next("conversations.history", error="ratelimited")
    assert await adopt(client, work, spec, None, before) == before
