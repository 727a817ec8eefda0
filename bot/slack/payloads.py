"""The shapes of the Slack requests the bot handles, checked after the signature, before Bolt.

A signed body can still be malformed (an `event` that is a string, `payload=notjson`,
`text: null`, JSON nested hundreds of levels deep). Such a body is answered 400 here, so no
listener ever sees it; JSON is read by `bot.web.body.load_json`, whose nesting limit
keeps every later step (Bolt's own parse, pydantic, the listeners) shallow. Only what the
listeners read is checked, and strictly (a number is not a string, null is not a string);
everything else Slack sends passes through untouched. Request types the bot does not handle
need only a `type`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import parse_qs

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from bot.web.body import Refused, load_json

__all__ = ["Checked", "check_body", "member"]


class _Shape(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)


class _Typed(_Shape):
    type: str


class _Event(_Shape):
    """A message or mention, the only events the bot reads fields of."""

    type: Literal["app_mention", "message"]
    channel: str = ""
    user: str = ""
    text: str = ""
    ts: str = ""
    thread_ts: str = ""
    subtype: str = ""
    bot_id: str = ""
    channel_type: str = ""


class _EventCallback(_Shape):
    type: Literal["event_callback"]
    team_id: str = ""
    event_id: str = ""
    event: _Event | _Typed  # other event types (user_change, ...) need only their type

    @model_validator(mode="before")
    @classmethod
    def _event_of_its_type(cls, data: Any) -> Any:
        """Check a message or mention strictly; pydantic's union would let it fall through."""
        event = data.get("event") if isinstance(data, dict) else None
        if isinstance(event, dict) and event.get("type") in {"app_mention", "message"}:
            _Event.model_validate(event)
        return data


class _UrlVerification(_Shape):
    type: Literal["url_verification"]
    challenge: str


class _Id(_Shape):
    id: str


class _Message(_Shape):
    ts: str = ""
    thread_ts: str = ""
    text: str = ""
    user: str = ""
    bot_id: str = ""
    blocks: list[dict[str, Any]] = Field(default_factory=list)
    attachments: list[dict[str, Any]] = Field(default_factory=list)


class _Action(_Shape):
    action_id: str
    value: str = ""


class _BlockActions(_Shape):
    type: Literal["block_actions"]
    user: _Id
    team: _Id | None = None
    channel: _Id | None = None
    container: dict[str, Any] = Field(default_factory=dict)
    message: _Message | None = None
    response_url: str = ""
    actions: list[_Action]


class _MessageAction(_Shape):
    type: Literal["message_action"]
    callback_id: str
    user: _Id
    team: _Id
    channel: _Id
    message: _Message
    response_url: str = ""
    trigger_id: str = Field(min_length=1)  # its dedupe key (`bot.slack.intake.trigger_key`)


class _SlashCommand(_Shape):
    command: str
    text: str
    team_id: str
    channel_id: str
    user_id: str
    trigger_id: str = Field(min_length=1)  # its dedupe key (`bot.slack.intake.trigger_key`)
    response_url: str = ""


_JSON_TYPES: dict[str, type[_Shape]] = {
    "event_callback": _EventCallback,
    "url_verification": _UrlVerification,
}
_PAYLOAD_TYPES: dict[str, type[_Shape]] = {
    "block_actions": _BlockActions,
    "message_action": _MessageAction,
}


@dataclass(frozen=True)
class Checked:
    """A verified body: what it says (`data`), or why it cannot be handled (`problem`)."""

    data: dict[str, Any]
    problem: str | None = None


def _checked(data: object, table: dict[str, type[_Shape]], what: str) -> str | None:
    if not isinstance(data, dict):
        return f"{what} is not a JSON object"
    try:
        typed = _Typed.model_validate(data)
        table.get(typed.type, _Typed).model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or what
        return f"{what}: {where}: {first['msg']}"
    return None


def _form(body: str) -> Checked:
    try:
        parsed = parse_qs(body, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        return Checked({}, "form body malformed")
    if any(len(values) != 1 for values in parsed.values()):
        return Checked({}, "form field repeated")
    form = {key: values[0] for key, values in parsed.items()}
    if "payload" in form:
        try:
            payload = load_json(form["payload"])
        except Refused as refused:
            return Checked({}, f"payload {refused.reason}")
        problem = _checked(payload, _PAYLOAD_TYPES, "payload")
        return Checked(payload if problem is None else {}, problem)
    if "ssl_check" in form:
        return Checked(form)
    try:
        _SlashCommand.model_validate(form)
    except ValidationError as error:
        first = error.errors()[0]
        return Checked({}, f"slash command: {first['loc'][0]}: {first['msg']}")
    return Checked(form)


def check_body(content_type: str, body: bytes) -> Checked:
    """What a verified body says, or why it cannot be handled (for a 400).

    JSON is recognised exactly the way Bolt recognises it (content type
    `application/json`, or a body that starts with `{`); everything else is form-encoded.
    """
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return Checked({}, "body is not UTF-8")
    if content_type == "application/json" or text.startswith("{"):
        try:
            data = load_json(text)
        except Refused as refused:
            return Checked({}, f"body {refused.reason}")
        problem = _checked(data, _JSON_TYPES, "body")
        return Checked(data if problem is None else {}, problem)
    return _form(text)


def member(value: object) -> dict[str, Any]:
    """A JSON object nested in a checked body (`event`, `team`, an action), else empty."""
    return value if isinstance(value, dict) else {}
