"""slack_sdk's DEBUG request dumps (whole `chat.update` payloads) never reach the log."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest

from tests.bot.ops.logs import logging_to_a_string

BOT = "xoxb-628709151441-4169498994543-fybr3eZdrzg6cQxi1XOiCv7A"
PAYLOAD = (
    "Sending a request - url: https://slack.com/api/chat.update, query_params: {}, "
    "json_body: {'channel': 'C1', 'ts': '1.2', 'text': 'OOM_KILLED: trainer ...', "
    "'blocks': [...]}, headers: {'Authorization': '(redacted)'}"
)


@pytest.fixture
def log_stream() -> Iterator[io.StringIO]:
    with logging_to_a_string("DEBUG") as stream:
        yield stream


CASES = [
    pytest.param("slack_sdk.web.async_base_client", logging.DEBUG, PAYLOAD, False, id="sdk-debug-dump"),
    pytest.param("slack_sdk.web.base_client", logging.DEBUG, PAYLOAD, False, id="sdk-child-debug"),
    pytest.param("slack_sdk", logging.INFO, f"token {BOT} rejected", True, id="sdk-info-kept-redacted"),
    pytest.param("bot.slack", logging.DEBUG, "diagnosis_started", True, id="own-debug-kept"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "level", "message", "emitted"), CASES)
def test_slack_sdk_debug_is_not_logged(log_stream, name, level, message, emitted):
    logging.getLogger(name).log(level, message)
    lines = [json.loads(line) for line in log_stream.getvalue().splitlines()]
    assert len(lines) == int(emitted)
    assert BOT not in log_stream.getvalue()
    assert "json_body" not in log_stream.getvalue()
