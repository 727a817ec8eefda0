"""Structured logs never carry a credential: keys that name one, and values that hold one."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
import structlog

from bot.ops.logging import configure_logging, mask_secrets
from tests.bot.ops.logs import logging_to_a_string

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJydW5haS13aHkiLCJleHAiOjk5OTk5OTk5OTl9.c2lnbmF0dXJlMTIzNDU2"
BOT = "xoxb-628709151441-4169498994543-fybr3eZdrzg6cQxi1XOiCv7A"
RESPONSE_URL = "https://hooks.slack.com/commands/T08DOTMDDA/7283746519/C24LnOE03uB6oODspXkGqv9Z"
SIGNING = "8f14e45fceea167a5a36dedd4bea2543"
SECRETS = (JWT, BOT, "C24LnOE03uB6oODspXkGqv9Z", SIGNING, "hunter2-prod")


def test_keys_that_name_a_credential_are_masked_whole():
    out = mask_secrets(
        None,
        "info",
        {
            "event": "slack_request",
            "token": BOT,
            "signing_secret": SIGNING,
            "response_url": RESPONSE_URL,
            "Authorization": f"Bearer {JWT}",
            "cookie": "session=abc",
            "channel": "C123",
            "unset_token": None,
        },
    )
    assert out == {
        "event": "slack_request",
        "token": "[REDACTED]",
        "signing_secret": "[REDACTED]",
        "response_url": "[REDACTED]",
        "Authorization": "[REDACTED]",
        "cookie": "[REDACTED]",
        "channel": "C123",
        "unset_token": None,
    }


def test_secrets_inside_values_are_masked_by_the_redactor():
    out = mask_secrets(
        None,
        "info",
        {
            "event": f'HTTP Request: POST {RESPONSE_URL} "HTTP/1.1 200 OK"',
            "error": f"upstream said: Authorization: Bearer {JWT} rejected",
            "env": {"DB_PASSWORD": "hunter2-prod", "nested": [f"PASSWORD=hunter2-prod {BOT}"]},
            "count": 3,
            "ok": True,
        },
    )
    rendered = json.dumps(out)
    assert not [s for s in SECRETS if s in rendered]
    assert (
        out["event"]
        == 'HTTP Request: POST https://hooks.slack.com/commands/[REDACTED:slack-webhook] "HTTP/1.1 200 OK"'
    )
    assert out["env"]["DB_PASSWORD"] == "[REDACTED]"
    assert out["count"] == 3
    assert out["ok"] is True


def test_clean_values_pass_through_unchanged():
    event = {
        "event": "diagnosis_classified",
        "workload": "tokenize-shards",
        "category": "OOM_KILLED",
        "redactions": 2,
    }
    assert mask_secrets(None, "info", dict(event)) == event


def test_non_string_values_are_cleaned_as_they_render():
    class Url:
        def __str__(self) -> str:
            return f"https://acme.run.ai/api?token={SIGNING}"

    out = mask_secrets(None, "info", {"event": "x", "url": Url()})
    assert SIGNING not in str(out["url"])


def _fail(exc: Exception) -> None:
    raise exc


def test_exception_tracebacks_are_masked():
    try:
        _fail(RuntimeError(f"connect failed: postgres://svc:hunter2-prod@db/x with {BOT}"))
    except RuntimeError as exc:
        out = mask_secrets(None, "error", {"event": "boom", "exc_info": exc})
    assert "exc_info" not in out
    assert "RuntimeError: connect failed" in out["exception"]
    assert "hunter2-prod" not in out["exception"]
    assert BOT not in out["exception"]


@pytest.fixture
def log_stream() -> Iterator[io.StringIO]:
    with logging_to_a_string("DEBUG") as stream:
        yield stream


def test_rendered_log_output_never_contains_a_credential(log_stream: io.StringIO):
    log = structlog.get_logger("bot.test")
    log.info("slack_replied_via_response_url", response_url=RESPONSE_URL, channel="C1")
    log.warning(
        "upstream_failed", detail=f"401 for Authorization: Bearer {JWT}", signing_secret=SIGNING
    )
    logging.getLogger("httpx").warning('HTTP Request: POST %s "HTTP/1.1 200 OK"', RESPONSE_URL)
    logging.getLogger("slack_bolt").warning("token %s rejected; PASSWORD=hunter2-prod", BOT)
    try:
        _fail(ValueError(f"bad credentials {BOT}"))
    except ValueError:
        log.exception("handler_crashed")
    output = log_stream.getvalue()
    lines = [json.loads(line) for line in output.splitlines()]
    assert len(lines) == 5
    assert not [s for s in SECRETS if s in output]
    assert "[REDACTED" in output
    assert lines[0]["channel"] == "C1"


def test_a_debug_event_at_info_is_dropped_before_it_is_masked_or_rendered():
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    stream = io.StringIO()
    looked_at: list[str] = []

    class Watched:
        def __str__(self) -> str:
            looked_at.append("str")
            return "watched"

        def __repr__(self) -> str:
            looked_at.append("repr")
            return "watched"

    configure_logging("INFO", "json", stream=stream)
    try:
        log = structlog.get_logger("bot.test")
        log.debug("runai_request", detail=Watched())
        assert looked_at == []  # never masked (nor rendered): dropped first
        log.info("runai_request", detail=Watched())
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        structlog.reset_defaults()
    assert looked_at  # an INFO event is masked and rendered as before
    assert [json.loads(line)["event"] for line in stream.getvalue().splitlines()] == [
        "runai_request"
    ]
