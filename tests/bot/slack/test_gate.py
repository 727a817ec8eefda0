"""Forged, stale, oversized and malformed requests never reach Bolt, a listener or Slack.

Each row is one request as an attacker (or a broken proxy) could send it, over real HTTP to
the running bot. It asserts the status code and that the fake Slack saw no call because of
it: after the row's request, a signed probe (`/runai-why help`, answered privately through
its own response_url) is sent and awaited, and the only calls Slack saw must be the probe's.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlencode

import pytest
import structlog

from bot.slack.verify import MAX_BODY_BYTES
from bot.web.body import MAX_JSON_DEPTH, nesting
from tests.bot.slack.fake_slack import BOT_ID, FakeSlack
from tests.bot.slack.harness import SECRET, Bot, first_line
from tests.bot.slack.signing import (
    BOT_USER_ID,
    FORM,
    JSON,
    app_mention_event,
    event_body,
    message_event,
    message_shortcut_body,
    signed_headers,
    slash_command_body,
)

pytestmark = pytest.mark.e2e

PROBE = "probe"
MENTION = app_mention_event(
    f"<@{BOT_USER_ID}> why did eval-harness in ml-team fail on cluster prod-a",
    user="U1",
    channel="C1",
    ts="1700000900.000100",
)


def _event(**changes: Any) -> bytes:
    envelope = json.loads(event_body(MENTION))
    envelope.update(changes)
    return json.dumps(envelope).encode()


def _mention(**changes: Any) -> bytes:
    return event_body({**MENTION, **changes})


def _form(**fields: str) -> bytes:
    return urlencode(fields).encode()


def _command(**changes: str) -> bytes:
    body = slash_command_body("help", response_url="http://127.0.0.1:9/r").decode()
    fields = {k: v[0] for k, v in parse_qs(body).items()} | changes
    return urlencode({k: v for k, v in fields.items() if v != "<drop>"}).encode()


def _payload(payload: object) -> bytes:
    return _form(payload=json.dumps(payload))


def _shortcut(**changes: object) -> bytes:
    """A message shortcut's payload with only the fields the bot reads, then `changes`."""
    payload = {
        "type": "message_action",
        "callback_id": "runai_why_message",
        "user": {"id": "U1"},
        "team": {"id": "T1"},
        "channel": {"id": "C1"},
        "message": {"ts": "1.1", "text": "why did eval-harness fail"},
        "trigger_id": "1.T1.shortcut",
    } | changes
    return _payload({k: v for k, v in payload.items() if v != "<drop>"})


#: Deep enough to be a `RecursionError` in `json.loads` on any Python, small enough for any cap.
DEEP = 50_000
SECRET_WORDS = "do-not-log-me"


def _nested(levels: int) -> str:
    """A JSON array nested `levels` deep around a string (built as text: no encoder recurses)."""
    return "[" * levels + f'"{SECRET_WORDS}"' + "]" * levels


def _deep_event(levels: int) -> bytes:
    mention = _mention(blocks="PLACEHOLDER").decode()
    return mention.replace('"PLACEHOLDER"', _nested(levels)).encode()


def _deep_payload(levels: int) -> bytes:
    click = '"type": "block_actions", "user": {"id": "U1"}, "actions": []'
    return _form(payload=f'{{{click}, "deep": {_nested(levels)}}}')


def _headers_for(body: bytes, **override: str) -> dict[str, str]:
    headers = signed_headers(SECRET, body)
    headers.update(override)
    return {k: v for k, v in headers.items() if v != "<drop>"}


def _hmac_signed(body: bytes, content_type: str) -> dict[str, str]:
    """Signed by hand: slack_sdk's signer only takes bodies that decode as UTF-8."""
    ts = str(int(time.time()))
    digest = hmac.new(SECRET.encode(), b"v0:" + ts.encode() + b":" + body, hashlib.sha256)
    return {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": f"v0={digest.hexdigest()}",
    }


@dataclass(frozen=True)
class Row:
    """One request: its body and headers (built from the body), and the expected status."""

    id: str
    body: bytes
    headers: Callable[[bytes], dict[str, str]]
    status: int


def signed(**override: str) -> Callable[[bytes], dict[str, str]]:
    """Headers signed for the body with the right secret, then `override` (`<drop>` removes)."""
    return lambda b: _headers_for(b, **override)


NOW = int(time.time())
ROWS = [
    # --- not from Slack: 401 before anything is parsed
    Row("no-headers", _mention(), lambda _: {"Content-Type": JSON}, 401),
    Row("timestamp-abc", _mention(), signed(**{"X-Slack-Request-Timestamp": "abc"}), 401),
    Row("timestamp-empty", _mention(), signed(**{"X-Slack-Request-Timestamp": ""}), 401),
    Row("timestamp-missing", _mention(), signed(**{"X-Slack-Request-Timestamp": "<drop>"}), 401),
    Row("timestamp-negative", _mention(), signed(**{"X-Slack-Request-Timestamp": "-5"}), 401),
    Row("timestamp-huge", _mention(), signed(**{"X-Slack-Request-Timestamp": "9" * 40}), 401),
    Row(
        "timestamp-stale",
        _mention(),
        lambda b: signed_headers(SECRET, b, NOW - 600),
        401,
    ),
    Row("signature-missing", _mention(), signed(**{"X-Slack-Signature": "<drop>"}), 401),
    Row("signature-garbage", _mention(), signed(**{"X-Slack-Signature": "v0=zz"}), 401),
    Row("signature-v1", _mention(), signed(**{"X-Slack-Signature": "v1=" + "0" * 64}), 401),
    Row("signature-uppercase", _mention(), signed(**{"X-Slack-Signature": "v0=" + "A" * 64}), 401),
    Row("signature-long", _mention(), signed(**{"X-Slack-Signature": "v0=" + "0" * 65}), 401),
    Row("forged-secret", _mention(), lambda b: signed_headers("forged", b), 401),
    Row(
        "forged-not-json",
        b"{not json",
        lambda _: {"Content-Type": JSON, "X-Slack-Request-Timestamp": "abc"},
        401,
    ),
    Row(
        "forged-command-into-any-channel",
        _command(channel_id="C-VICTIM"),
        lambda b: signed_headers("forged", b),
        401,
    ),
    Row(
        "signed-for-another-body",
        _mention(),
        lambda _: signed_headers(SECRET, _mention(text="other")),
        401,
    ),
    # --- too large: 413, whatever the signature
    Row(
        "declared-too-large",
        b"x" * (MAX_BODY_BYTES + 1),
        lambda _: {"Content-Type": FORM},
        413,
    ),
    # --- signed by Slack's secret but malformed: 400, never a listener
    Row("not-utf8", b"\xff\xfe{}", lambda b: _hmac_signed(b, FORM), 400),
    Row("json-not-json", b"{not json", signed(), 400),
    Row("json-array", b"[1, 2]", signed(**{"Content-Type": JSON}), 400),
    Row("json-no-type", b'{"event": {}}', signed(), 400),
    Row("event-is-a-string", _event(event="app_mention"), signed(), 400),
    Row("event-without-type", _event(event={"text": "hi"}), signed(), 400),
    Row("event-text-null", _mention(text=None), signed(), 400),
    Row("event-channel-number", _mention(channel=42), signed(), 400),
    Row("event-user-object", _mention(user={"id": "U1"}), signed(), 400),
    Row("challenge-missing", b'{"type": "url_verification"}', signed(), 400),
    Row("payload-not-json", _form(payload="notjson"), signed(), 400),
    Row("payload-array", _payload([1]), signed(), 400),
    Row("payload-no-type", _payload({"user": {"id": "U1"}}), signed(), 400),
    Row(
        "click-actions-string",
        _payload({"type": "block_actions", "user": {"id": "U1"}, "actions": "x"}),
        signed(),
        400,
    ),
    Row(
        "click-user-string",
        _payload({"type": "block_actions", "user": "U1", "actions": []}),
        signed(),
        400,
    ),
    Row("shortcut-message-string", _shortcut(message="hi"), signed(), 400),
    Row("shortcut-without-trigger-id", _shortcut(trigger_id="<drop>"), signed(), 400),
    Row("command-without-channel", _command(channel_id="<drop>"), signed(), 400),
    Row("command-trigger-id-empty", _command(trigger_id=""), signed(), 400),
    Row("command-repeated-field", _command() + b"&text=again", signed(), 400),
    Row("json-nested-deep", _deep_event(DEEP), signed(), 400),
    Row("json-nested-one-level-too-deep", _deep_event(MAX_JSON_DEPTH - 1), signed(), 400),
    Row("payload-nested-deep", _deep_payload(DEEP), signed(), 400),
    Row("payload-nested-one-level-too-deep", _deep_payload(MAX_JSON_DEPTH), signed(), 400),
    Row("form-garbage", b"&&&===", signed(**{"Content-Type": FORM}), 400),
    Row("empty-body", b"", signed(**{"Content-Type": FORM}), 400),
    # --- signed and well-formed, but from a bot: accepted, and ignored
    Row("mention-from-a-bot", _mention(bot_id="B-OTHER"), signed(), 200),
    Row("mention-bot-message", _mention(subtype="bot_message"), signed(), 200),
    Row(
        "bot-message-in-thread",
        event_body(
            message_event(
                "why did eval-harness in ml-team fail on cluster prod-a",
                user="U-OTHER-BOT",
                channel="C1",
                ts="1700000901.000100",
                thread_ts="1700000900.000100",
                subtype="bot_message",
                bot_id="B-OTHER",
            )
        ),
        signed(),
        200,
    ),
    Row(
        "own-message-in-dm",
        event_body(
            message_event("Diagnosing…", user=BOT_USER_ID, channel="D1", ts="1.1", bot_id=BOT_ID)
        ),
        signed(),
        200,
    ),
]


async def _probe(bot: Bot) -> None:
    body = slash_command_body("help", response_url=bot.slack.response_url(PROBE))
    response = await bot.send(body)
    assert response.status_code == 200
    await bot.slack.wait_for_async("response_url", where=lambda c: c.key == PROBE)


def _not_probe(fake: FakeSlack) -> list[str]:
    return [
        f"{c.method} {c.body}"
        for c in fake.calls()
        if c.key != PROBE and c.method != "auth.test"  # auth.test: Bolt's, for the probe
    ]


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
async def test_rejected_or_ignored_without_a_single_slack_call(bot: Bot, row: Row):
    response = await bot.http.post(
        f"{bot.url}/slack/events", content=row.body, headers=row.headers(row.body)
    )
    assert response.status_code == row.status
    assert response.status_code < 500
    await _probe(bot)
    assert _not_probe(bot.slack) == []


async def test_a_chunked_body_over_the_cap_is_413_without_reading_it_all(bot: Bot):
    """No Content-Length to trust: the cap is enforced while the body streams in."""
    chunk = b"x" * 65536

    async def stream() -> AsyncIterator[bytes]:
        for _ in range(MAX_BODY_BYTES // len(chunk) + 2):
            yield chunk

    response = await bot.http.post(
        f"{bot.url}/slack/events", content=stream(), headers={"Content-Type": FORM}
    )
    assert response.status_code == 413
    await _probe(bot)
    assert _not_probe(bot.slack) == []


@pytest.mark.parametrize(
    "body", [_deep_event(DEEP), _deep_payload(DEEP)], ids=["events-json", "interactivity-payload"]
)
async def test_a_deeply_nested_body_is_400_and_nothing_of_it_is_logged(
    bot: Bot, body: bytes, caplog: pytest.LogCaptureFixture
):
    with structlog.testing.capture_logs() as logs:
        response = await bot.send(body)
    assert response.status_code == 400
    [rejected] = [e for e in logs if e["event"] == "slack_request_rejected"]
    assert rejected["reason"].endswith(f"nests deeper than {MAX_JSON_DEPTH} levels")
    assert SECRET_WORDS not in repr(logs) + caplog.text
    assert "Traceback" not in caplog.text
    await _probe(bot)
    assert _not_probe(bot.slack) == []


async def test_a_shortcut_on_a_message_nested_to_the_limit_is_answered(bot: Bot):
    """Depth up to the limit is fine all the way: shape check, Bolt, the Block Kit reader."""
    block = '{"type": "text", "text": "rich"}'
    for _ in range((MAX_JSON_DEPTH - 4) // 2):  # payload, message, blocks ... the text itself
        block = f'{{"type": "rich_text_section", "elements": [{block}]}}'
    message = {"ts": "1700009000.000100", "text": "training-job-42 in ml-team on prod-a died"}
    body = message_shortcut_body(
        {**message, "blocks": "BLOCKS"},
        user="U1",
        channel="C1",
        response_url=bot.slack.response_url("sc"),
    )
    payload = parse_qs(body.decode())["payload"][0].replace('"BLOCKS"', f"[{block}]")
    assert nesting(payload, MAX_JSON_DEPTH + 1) == MAX_JSON_DEPTH
    assert (await bot.send(_form(payload=payload))).status_code == 200
    [answer] = await bot.slack.wait_for_async("chat.update", timeout=30)  # a loaded machine
    assert first_line(answer).startswith("OOM_KILLED")
