"""The bot posts to a request's `response_url` only when it is Slack's; anything else is dropped.

The table is the rule; the end-to-end tests send, signed, each surface that carries a
`response_url` (slash command, message shortcut, button click) naming a second fake Slack on
another port: it must see nothing, the asker gets the private reply through
`chat.postEphemeral`, and the log says which host was refused, never the URL's path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
import structlog
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

from bot.slack.messages import CHOICE_ACTION
from bot.slack.response_urls import ResponseUrls
from tests.bot.slack.fake_slack import FakeSlack
from tests.bot.slack.harness import Bot
from tests.bot.slack.signing import block_action_body, message_shortcut_body, slash_command_body

SLACK = ResponseUrls.for_api("https://slack.com/api/")
FAKE = ResponseUrls.for_api("http://127.0.0.1:5000/api/")
GOV = ResponseUrls.for_api("https://slack-gov.com/api/")
HOOK = "https://hooks.slack.com/commands/T1/1234/abcdef"


@pytest.mark.parametrize(
    ("urls", "url", "permitted"),
    [
        (SLACK, HOOK, True),
        (SLACK, "https://hooks.slack.com:443/actions/T1/1/x", True),
        (SLACK, "HTTPS://HOOKS.SLACK.COM/actions/T1/1/x", True),
        (SLACK, "https://slack.com/api/x", True),  # the configured API origin
        (GOV, "https://hooks.slack-gov.com/commands/T1/1/x", True),
        (GOV, HOOK, True),
        (FAKE, "http://127.0.0.1:5000/response/r1", True),
        (SLACK, "http://hooks.slack.com/commands/T1/1/x", False),  # not https
        (SLACK, "https://hooks.slack.com:8443/commands/T1/1/x", False),
        (SLACK, "https://hooks.slack.com.evil.example/commands", False),
        (SLACK, "https://evil.example/hooks.slack.com/commands", False),
        (SLACK, "https://hooks.slack.com@evil.example/commands", False),
        (SLACK, "https://user:pw@hooks.slack.com/commands", False),
        (SLACK, "https://evil.example\\@hooks.slack.com/commands", False),
        (SLACK, "https://hooks.slack.com/commands/x y", False),
        (SLACK, "https://hooks.slack.com/commands#x", False),
        (SLACK, "https://hooks.slack.com", False),  # no path
        (SLACK, "https://[::1/commands", False),  # unparseable
        (SLACK, "https://hooks.slack.com/c/\u00e9", False),
        (SLACK, "https://metadata.google.internal/computeMetadata/v1/", False),
        (SLACK, "http://169.254.169.254/latest/meta-data/", False),
        (SLACK, "file:///etc/passwd", False),
        (SLACK, "", False),
        (SLACK, 42, False),
        (FAKE, "http://127.0.0.1:5001/response/r1", False),  # another port
        (FAKE, "https://127.0.0.1:5000/response/r1", False),  # another scheme
        (FAKE, "http://localhost:5000/response/r1", False),
        (FAKE, HOOK, True),
        (GOV, "https://hooks.slack.com.slack-gov.com/x", False),
        (ResponseUrls.for_api("not a url"), "/commands/T1/1/x", False),  # no origin of its own
        (ResponseUrls.for_api("not a url"), HOOK, True),
    ],
)
def test_only_slack_hosts_are_permitted(urls: ResponseUrls, url: object, *, permitted: bool):
    assert urls.permits(url) is permitted


@pytest.fixture
def elsewhere() -> Iterator[FakeSlack]:
    """Another fake Slack, on a port that is not the configured API's: it must hear nothing."""
    with FakeSlack() as fake:
        yield fake


def _command(foreign: str) -> bytes:
    return slash_command_body("help", user="U1", channel="C1", response_url=foreign)


def _shortcut(foreign: str) -> bytes:
    message = {"ts": "1700006000.000100", "user": "U3", "text": "help"}
    return message_shortcut_body(message, user="U1", channel="C1", response_url=foreign)


def _click(foreign: str) -> bytes:  # on a question the bot no longer remembers
    return block_action_body(
        f"{CHOICE_ACTION}_0",
        "prod-a",
        user="U1",
        channel="C1",
        message_ts="1.1",
        response_url=foreign,
    )


@pytest.mark.e2e
@pytest.mark.parametrize(
    "surface", [_command, _shortcut, _click], ids=["command", "shortcut", "click"]
)
async def test_a_foreign_response_url_is_never_posted_to(
    bot: Bot, elsewhere: FakeSlack, surface: Callable[[str], bytes]
):
    foreign = elsewhere.response_url("secret-path-do-not-log")
    with structlog.testing.capture_logs() as logs:
        assert (await bot.send(surface(foreign))).status_code == 200
        [private] = await bot.slack.wait_for_async("chat.postEphemeral")
    assert (private.body["channel"], private.body["user"]) == ("C1", "U1")
    assert elsewhere.calls() == []
    [refused] = [e for e in logs if e["event"] == "slack_response_url_refused"]
    assert (refused["scheme"], refused["host"]) == ("http", "127.0.0.1")
    assert "secret-path-do-not-log" not in repr(logs)


@pytest.mark.parametrize(
    ("url", "logged"),
    [
        ("https://evil.example/secret-path", {"scheme": "https", "host": "evil.example"}),
        ("https://[::1/secret-path", {"scheme": None, "host": None}),  # unparseable
        ("https://evil.example/secret path", {"scheme": None, "host": None}),
        (42, {"scheme": None, "host": None}),
    ],
)
async def test_over_socket_mode_too_the_url_is_removed_before_any_listener(
    url: object, logged: dict[str, str | None]
):
    request = AsyncBoltRequest(
        body={"type": "block_actions", "response_url": url}, mode="socket_mode"
    )
    seen: list[dict[str, object]] = []

    async def listener() -> BoltResponse:
        seen.append(dict(request.body))
        return BoltResponse(status=200)

    with structlog.testing.capture_logs() as logs:
        await SLACK.middleware()(req=request, next=listener)
    assert seen == [{"type": "block_actions"}]
    assert request.context.response_url is None
    assert [(e["event"], e["scheme"], e["host"]) for e in logs] == [
        ("slack_response_url_refused", logged["scheme"], logged["host"])
    ]
    assert "secret" not in repr(logs)


async def test_slacks_own_url_is_left_as_it_is():
    request = AsyncBoltRequest(
        body={"type": "message_action", "response_url": HOOK}, mode="socket_mode"
    )

    async def listener() -> BoltResponse:
        return BoltResponse(status=200)

    await SLACK.middleware()(req=request, next=listener)
    assert request.body["response_url"] == request.context.response_url == HOOK
