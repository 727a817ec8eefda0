"""Bolt's log-context middleware: a fresh context per request, its request ID kept or made."""

from __future__ import annotations

import pytest
import structlog
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

from bot.ops.observe import REQUEST_ID, begin_request, current_trace
from bot.slack.app import _log_context

BODY = {"team_id": "T1", "event": {"channel": "C1", "user": "U1"}, "event_id": "Ev1"}


async def _bound(route_id: str | None) -> dict[str, object]:
    """What is bound when the listener runs, after a stale binding and (maybe) the route's."""
    structlog.contextvars.bind_contextvars(stale="from an earlier request")
    if route_id is not None:
        begin_request(route_id)
    seen: dict[str, object] = {}

    async def listener() -> BoltResponse:
        seen.update(structlog.contextvars.get_contextvars())
        return BoltResponse(status=200)

    request = AsyncBoltRequest(body="", headers={"x-slack-retry-num": "1"})
    await _log_context(request, BODY, listener)
    return seen


@pytest.mark.parametrize("route_id", ["from-the-route", None], ids=["http", "socket-mode"])
async def test_the_listener_sees_this_request_only_and_always_a_request_id(route_id: str | None):
    seen = await _bound(route_id)  # each test runs in its own task, so in its own context
    assert "stale" not in seen
    assert (seen["team_id"], seen["channel_id"], seen["user_id"]) == ("T1", "C1", "U1")
    assert (seen["event_id"], seen["retry_num"]) == ("Ev1", "1")
    if route_id is not None:
        assert seen[REQUEST_ID] == route_id
    else:
        assert isinstance(seen[REQUEST_ID], str)
        assert len(str(seen[REQUEST_ID])) == 32


async def test_a_request_made_in_the_middleware_has_a_trace():
    await _bound(None)
    trace = current_trace()
    assert trace is not None
    assert structlog.contextvars.get_contextvars()[REQUEST_ID] == trace.request_id
