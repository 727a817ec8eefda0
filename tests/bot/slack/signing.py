"""Requests exactly as Slack sends them: signed headers and realistic bodies.

Bodies are built as bytes once and signed as those same bytes (Slack signs the raw body):

    body = slash_command_body("why 3f1c...", response_url=fake.response_url("r1"))
    await http.post(url, content=body, headers=signed_headers(SECRET, body))

Slash commands and interactions are form-encoded (interactions as `payload=<json>`), events
are JSON `event_callback` envelopes. The signature is computed by slack_sdk's own
`SignatureVerifier`, the same code Bolt uses to check it.
"""

from __future__ import annotations

import itertools
import json
import time
import uuid
from typing import Any
from urllib.parse import urlencode

from slack_sdk.signature import SignatureVerifier

from tests.bot.slack.fake_slack import APP_ID, BOT_ID, BOT_USER_ID, TEAM_ID

__all__ = [
    "BOT_USER_ID",
    "FORM",
    "JSON",
    "VERIFICATION_TOKEN",
    "app_mention_event",
    "block_action_body",
    "event_body",
    "message_event",
    "message_shortcut_body",
    "new_trigger_id",
    "retry_headers",
    "signed_headers",
    "slash_command_body",
    "ssl_check_body",
    "url_verification_body",
]

FORM = "application/x-www-form-urlencoded"
JSON = "application/json"
VERIFICATION_TOKEN = "legacy-verification-token"
"""Slack still sends the deprecated verification token; Bolt ignores it."""

_event_ids = itertools.count(1)


def new_trigger_id() -> str:
    """A fresh `trigger_id`, shaped like Slack's: each user action has its own."""
    return f"{int(time.time())}.{TEAM_ID}.{uuid.uuid4().hex[:16]}"


def signed_headers(
    secret: str,
    body: bytes,
    timestamp: int | None = None,
    *,
    content_type: str | None = None,
) -> dict[str, str]:
    """`X-Slack-Request-Timestamp`, `X-Slack-Signature` and `Content-Type` for `body`.

    `timestamp` defaults to now; pass an old one to test replay protection. The content type
    is JSON when the body is a JSON object, form-encoded otherwise, unless given.
    """
    ts = str(int(time.time()) if timestamp is None else timestamp)
    signature = SignatureVerifier(secret).generate_signature(timestamp=ts, body=body)
    if signature is None:  # only when timestamp or body is None
        raise ValueError("slack_sdk could not sign this request")
    if content_type is None:
        content_type = JSON if body.lstrip().startswith(b"{") else FORM
    return {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": signature,
    }


def retry_headers(num: int, reason: str = "http_timeout") -> dict[str, str]:
    """The headers Slack adds when it redelivers an event (`num` is 1, 2 or 3)."""
    return {"X-Slack-Retry-Num": str(num), "X-Slack-Retry-Reason": reason}


def slash_command_body(
    text: str,
    *,
    user: str = "U1",
    channel: str = "C1",
    team: str = TEAM_ID,
    response_url: str,
    trigger_id: str | None = None,
    command: str = "/runai-why",
    user_name: str | None = None,
    channel_name: str | None = None,
) -> bytes:
    """The form-encoded body Slack POSTs for `/runai-why <text>`, with every field it sends.

    Each body gets a fresh `trigger_id` unless one is given: the same body sent again is a
    replay of one invocation, not a second one.
    """
    fields = {
        "token": VERIFICATION_TOKEN,
        "team_id": team,
        "team_domain": team.lower(),
        "channel_id": channel,
        "channel_name": channel_name or f"channel-{channel.lower()}",
        "user_id": user,
        "user_name": user_name or f"user-{user.lower()}",
        "command": command,
        "text": text,
        "api_app_id": APP_ID,
        "is_enterprise_install": "false",
        "response_url": response_url,
        "trigger_id": trigger_id or new_trigger_id(),
    }
    return urlencode(fields).encode()


def event_body(
    event: dict[str, Any],
    *,
    event_id: str | None = None,
    team: str = TEAM_ID,
    api_app_id: str = APP_ID,
    event_time: int | None = None,
) -> bytes:
    """A JSON `event_callback` envelope around `event`.

    `event_id` defaults to a fresh unique ID; reuse one to simulate Slack's retries (send it
    again with `retry_headers`).
    """
    envelope = {
        "token": VERIFICATION_TOKEN,
        "team_id": team,
        "context_team_id": team,
        "context_enterprise_id": None,
        "api_app_id": api_app_id,
        "event": event,
        "type": "event_callback",
        "event_id": event_id or f"Ev{next(_event_ids):04d}{uuid.uuid4().hex[:8].upper()}",
        "event_time": int(time.time()) if event_time is None else event_time,
        "authorizations": [
            {
                "enterprise_id": None,
                "team_id": team,
                "user_id": BOT_USER_ID,
                "is_bot": True,
                "is_enterprise_install": False,
            }
        ],
        "is_ext_shared_channel": False,
        "event_context": f"4-{uuid.uuid4().hex}",
    }
    return json.dumps(envelope).encode()


def _channel_type(channel: str) -> str:
    return {"C": "channel", "G": "group", "D": "im"}.get(channel[:1], "channel")


def app_mention_event(
    text: str,
    *,
    user: str,
    channel: str,
    ts: str,
    thread_ts: str | None = None,
    team: str = TEAM_ID,
) -> dict[str, Any]:
    """An `app_mention` event; `text` should contain `<@UBOT>` as Slack delivers it."""
    event: dict[str, Any] = {
        "type": "app_mention",
        "user": user,
        "text": text,
        "ts": ts,
        "team": team,
        "channel": channel,
        "event_ts": ts,
        "client_msg_id": str(uuid.uuid4()),
    }
    if thread_ts is not None:
        event["thread_ts"] = thread_ts
    return event


def message_event(
    text: str,
    *,
    user: str,
    channel: str,
    ts: str,
    thread_ts: str | None = None,
    subtype: str | None = None,
    bot_id: str | None = None,
    team: str = TEAM_ID,
) -> dict[str, Any]:
    """A `message` event as subscribed through `message.channels` / `message.groups`.

    `bot_id` marks it as posted by an app (pass `BOT_ID` for the bot's own messages).
    `subtype="message_changed"` / `"message_deleted"` produce the nested shapes Slack uses for
    edits and deletions, with `text` as the new (or deleted) text.
    """
    inner: dict[str, Any] = {
        "type": "message",
        "user": user,
        "text": text,
        "ts": ts,
        "team": team,
    }
    if thread_ts is not None:
        inner["thread_ts"] = thread_ts
    if bot_id is not None:
        inner["bot_id"] = bot_id
    envelope_ts = f"{float(ts) + 1:.6f}"
    if subtype == "message_changed":
        edited = {**inner, "edited": {"user": user, "ts": envelope_ts}}
        return {
            "type": "message",
            "subtype": subtype,
            "hidden": True,
            "channel": channel,
            "channel_type": _channel_type(channel),
            "message": edited,
            "previous_message": {**inner, "text": ""},
            "ts": envelope_ts,
            "event_ts": envelope_ts,
        }
    if subtype == "message_deleted":
        return {
            "type": "message",
            "subtype": subtype,
            "hidden": True,
            "channel": channel,
            "channel_type": _channel_type(channel),
            "deleted_ts": ts,
            "previous_message": inner,
            "ts": envelope_ts,
            "event_ts": envelope_ts,
        }
    event = {
        **inner,
        "channel": channel,
        "channel_type": _channel_type(channel),
        "event_ts": ts,
    }
    if bot_id is None and subtype is None:
        event["client_msg_id"] = str(uuid.uuid4())
    if subtype is not None:
        event["subtype"] = subtype
    return event


def block_action_body(
    action_id: str,
    value: str,
    *,
    user: str,
    channel: str,
    message_ts: str,
    thread_ts: str | None = None,
    response_url: str,
    team: str = TEAM_ID,
    block_id: str = "b1",
    trigger_id: str = "t1",
    message_blocks: list[dict[str, Any]] | None = None,
    label: str | None = None,
    message_text: str = "runai-why",
) -> bytes:
    """The form-encoded `payload=<json>` of a button click (`block_actions`) on a bot message.

    `label` is the button's text (default: its value); pass the clicked message's blocks
    and text as Slack echoes them back.
    """
    message: dict[str, Any] = {
        "type": "message",
        "user": BOT_USER_ID,
        "bot_id": BOT_ID,
        "app_id": APP_ID,
        "team": team,
        "text": message_text,
        "ts": message_ts,
        "blocks": message_blocks or [],
    }
    container: dict[str, Any] = {
        "type": "message",
        "message_ts": message_ts,
        "channel_id": channel,
        "is_ephemeral": False,
    }
    if thread_ts is not None:
        message["thread_ts"] = thread_ts
        container["thread_ts"] = thread_ts
    payload: dict[str, Any] = {
        "type": "block_actions",
        "user": {
            "id": user,
            "username": f"user-{user.lower()}",
            "name": f"user-{user.lower()}",
            "team_id": team,
        },
        "api_app_id": APP_ID,
        "token": VERIFICATION_TOKEN,
        "container": container,
        "trigger_id": trigger_id,
        "team": {"id": team, "domain": team.lower()},
        "enterprise": None,
        "is_enterprise_install": False,
        "channel": {"id": channel, "name": f"channel-{channel.lower()}"},
        "message": message,
        "state": {"values": {}},
        "response_url": response_url,
        "actions": [
            {
                "action_id": action_id,
                "block_id": block_id,
                "text": {"type": "plain_text", "text": label or value, "emoji": True},
                "value": value,
                "type": "button",
                "action_ts": f"{time.time():.6f}",
            }
        ],
    }
    return urlencode({"payload": json.dumps(payload)}).encode()


def message_shortcut_body(
    message: dict[str, Any],
    *,
    user: str,
    channel: str,
    response_url: str,
    callback_id: str = "runai_why_message",
    team: str = TEAM_ID,
    trigger_id: str | None = None,
) -> bytes:
    """The form-encoded `payload=<json>` of a message shortcut (`message_action`) on `message`.

    `message` is the message as Slack shows it to apps (`text`, `ts`, optional `thread_ts`,
    `attachments`, `blocks`, `user` or `bot_id`). Its `trigger_id` is fresh unless given.
    """
    payload: dict[str, Any] = {
        "type": "message_action",
        "token": VERIFICATION_TOKEN,
        "action_ts": f"{time.time():.6f}",
        "team": {"id": team, "domain": team.lower()},
        "user": {"id": user, "username": f"user-{user.lower()}", "team_id": team},
        "channel": {"id": channel, "name": f"channel-{channel.lower()}"},
        "is_enterprise_install": False,
        "enterprise": None,
        "callback_id": callback_id,
        "trigger_id": trigger_id or new_trigger_id(),
        "response_url": response_url,
        "message_ts": message["ts"],
        "message": {"type": "message", **message},
    }
    return urlencode({"payload": json.dumps(payload)}).encode()


def url_verification_body(challenge: str = "challenge-token") -> bytes:
    """The JSON body Slack sends when the Request URL is saved; the app echoes `challenge`."""
    return json.dumps(
        {"token": VERIFICATION_TOKEN, "challenge": challenge, "type": "url_verification"}
    ).encode()


def ssl_check_body() -> bytes:
    """The form-encoded `ssl_check` Slack sends for slash commands during setup."""
    return urlencode({"ssl_check": "1", "token": VERIFICATION_TOKEN}).encode()
