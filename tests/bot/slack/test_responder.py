"""`SlackResponder` through a request's `response_url`: five posts, each checked, nothing lost.

When the bot is not in the channel every reply goes through the `response_url`, which Slack
takes five times (the fake Slack refuses the sixth, as Slack does).
"""

from __future__ import annotations

import pytest
from slack_sdk.web.async_client import AsyncWebClient
from structlog.testing import capture_logs

from bot.conversation import Notice, ReportReply
from bot.slack.responder import INVITE_HINT, SlackResponder
from bot.slack.webhook import ResponseUrlRefused
from tests.bot.render.reports import report
from tests.bot.slack.fake_slack import RESPONSE_URL, RESPONSE_URL_USES, FakeSlack

#: An answer that needs every one of its three thread replies.
LONG = report(recommendations=tuple(f"rec {i} " + "y" * 900 for i in range(40)))
SENT = "slack_replied_via_response_url"


@pytest.fixture
def client(fake_slack: FakeSlack) -> AsyncWebClient:
    """A client of a bot that is not in the channel."""
    fake_slack.fail_next("chat.postMessage", error="not_in_channel", count=50)
    return AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url)


def _responder(client: AsyncWebClient, fake: FakeSlack) -> SlackResponder:
    url = fake.response_url("r")
    return SlackResponder(client, channel="C1", thread_ts=None, user="U1", response_url=url)


def _posts(fake: FakeSlack) -> list[tuple[int, str]]:
    return [(call.status, str(call.body["blocks"])) for call in fake.calls(RESPONSE_URL)]


@pytest.mark.parametrize(
    ("told", "pages", "left_out"),
    [
        (0, 3, False),  # placeholder (with the invite note) + the answer and its 3 replies
        (1, 2, True),
        (2, 1, True),
        (3, 0, True),  # the answer alone, saying what it leaves out and how to see it
    ],
)
async def test_a_reply_fits_the_posts_left_and_says_what_it_leaves_out(
    client, fake_slack, told, pages, left_out
):
    responder = _responder(client, fake_slack)
    for i in range(told):
        await responder.tell(f"you are number {i + 2} in line")
    await responder.post(Notice("Diagnosing …", progress=True))
    with capture_logs() as logs:
        await responder.update("", ReportReply(LONG, "24h"))
    posts = _posts(fake_slack)
    assert len(posts) == RESPONSE_URL_USES
    assert all(status == 200 for status, _ in posts)
    answer = posts[told + 1 :]
    assert len(answer) == 1 + pages
    assert sum("(continued)" in blocks for _, blocks in answer) == pages
    assert ("left out to keep the thread short" in answer[-1][1]) is left_out
    assert sum(INVITE_HINT.split(",")[0] in blocks for _, blocks in posts) == 1
    assert [e["posts"] for e in logs if e["event"] == SENT] == [1 + pages]


async def test_a_report_that_is_the_first_reply_carries_the_invite_note(client, fake_slack):
    responder = _responder(client, fake_slack)
    assert await responder.post(ReportReply(LONG, "24h")) == ""
    posts = _posts(fake_slack)
    assert len(posts) == 4  # the answer and its three replies; the note joined onto the last
    assert INVITE_HINT.split(",")[0] in posts[-1][1]


async def test_no_post_left_is_a_failure_never_a_reply(client, fake_slack):
    responder = _responder(client, fake_slack)
    for i in range(RESPONSE_URL_USES - 1):
        await responder.tell(f"notice {i}")
    await responder.post(Notice("Diagnosing …", progress=True))
    with capture_logs() as logs, pytest.raises(ResponseUrlRefused):
        await responder.update("", ReportReply(LONG, "24h"))
    events = [e["event"] for e in logs]
    assert "slack_response_url_used_up" in events
    assert SENT not in events
    assert len(_posts(fake_slack)) == RESPONSE_URL_USES


@pytest.mark.parametrize("error", ["expired_url", "used_url"])
async def test_a_refused_post_is_raised_and_nothing_follows_it(client, fake_slack, error):
    responder = _responder(client, fake_slack)
    fake_slack.fail_next(RESPONSE_URL, error=error)
    with capture_logs() as logs, pytest.raises(ResponseUrlRefused, match=error):
        await responder.update("", ReportReply(LONG, "24h"))
    assert [status for status, _ in _posts(fake_slack)] == [404]  # not the three replies
    refused = [e for e in logs if e["event"] == "slack_response_url_post_refused"]
    assert [(e["status"], e["answer"]) for e in refused] == [(404, error)]
    assert SENT not in [e["event"] for e in logs]


async def test_private_notices_go_by_post_ephemeral_once_the_url_is_refused(client, fake_slack):
    responder = _responder(client, fake_slack)
    fake_slack.fail_next(RESPONSE_URL, error="expired_url")
    await responder.tell("first")  # refused: told by chat.postEphemeral instead
    await responder.tell("second")  # the refused URL is not tried again
    assert len(fake_slack.calls(RESPONSE_URL)) == 1
    told = [call.body["text"] for call in fake_slack.calls("chat.postEphemeral")]
    assert told == ["first", "second"]


async def test_a_note_that_fits_no_message_takes_a_post_of_its_own(client, fake_slack, monkeypatch):
    monkeypatch.setattr("bot.slack.responder.fold", lambda *_: None)
    responder = _responder(client, fake_slack)
    await responder.post(ReportReply(LONG, "24h"))
    posts = _posts(fake_slack)
    assert len(posts) == RESPONSE_URL_USES  # the answer and three replies, then the note
    assert INVITE_HINT.split(",")[0] in posts[-1][1]
    assert sum("(continued)" in blocks for _, blocks in posts) == 3
