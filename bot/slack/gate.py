"""`POST /slack/events`: the gate on the raw request, then Bolt (commands, events, interactions).

Every request passes the gate first: its size (`Content-Length`, then the bytes as they
arrive, `bot.web.body`), then the timestamp and the signature on the raw bytes
(`bot.slack.verify`), then its shape (`bot.slack.payloads`). Nothing unverified or malformed
is parsed, logged or dispatched; a refusal is logged with its reason (`bot.web.refusal`).
Only what passes reaches a listener, which takes it into the durable work queue (`bot.work`)
before Slack gets its answer: in a warm process through the fast lane (`bot.slack.fastlane`),
which finds the listener in the listeners' own table of routes; what no route takes, and
every request before the process's `auth.test` has answered, through Bolt.
"""

from __future__ import annotations

from http import HTTPStatus

from slack_bolt.adapter.starlette.async_handler import (
    to_async_bolt_request,
    to_starlette_response,
)
from slack_bolt.async_app import AsyncApp, AsyncBoltContext
from slack_bolt.request.async_internals import build_async_context
from starlette.requests import Request
from starlette.responses import Response

from bot.ops.observe import begin_request, timed
from bot.slack.fastlane import FastLane
from bot.slack.payloads import check_body
from bot.slack.verify import RequestVerifier
from bot.web.body import Refused, check_length, read_body
from bot.web.refusal import body_refusal, refusal

__all__ = ["EVENTS_PATH", "SlackGate"]

EVENTS_PATH = "/slack/events"
_REJECTED = "slack_request_rejected"


class SlackGate:
    """The Starlette handler of `/slack/events`: the gate, then the listener (lane or Bolt)."""

    def __init__(self, verifier: RequestVerifier, app: AsyncApp, lane: FastLane) -> None:
        self._verifier = verifier
        self._app = app
        self._lane = lane

    async def handle(self, request: Request) -> Response:
        """One Slack request: a request ID for its logs, the gate and its listener; timed `ack`."""
        begin_request()
        with timed("ack"):
            return await self._gate_then_listener(request)

    async def _gate_then_listener(self, request: Request) -> Response:
        """The gate, then the lane or Bolt: nothing unverified or malformed is dispatched."""
        verifier = self._verifier
        try:
            check_length(request.headers, verifier.max_body_bytes)
            body = await read_body(request, verifier.max_body_bytes)
        except Refused as refused:
            return body_refusal(_REJECTED, refused)
        rejection = verifier.verify(request.headers, body)
        if rejection is not None:
            return refusal(_REJECTED, rejection.status, rejection.reason)
        checked = check_body(request.headers.get("content-type", ""), body)
        if checked.problem is not None:
            return refusal(_REJECTED, HTTPStatus.BAD_REQUEST, checked.problem)
        route = self._lane.route_for(checked)
        if route is not None:
            return await self._lane.answer(route, checked, request.headers.get("x-slack-retry-num"))
        bolt_request = to_async_bolt_request(request, body)
        if bolt_request.body != checked.data:
            # Bolt reads any form body containing the word "payload" as an interaction, so
            # `/runai-why why did payload-etl fail` would reach no listener: use what the
            # body actually says.
            bolt_request.body = checked.data
            bolt_request.context = build_async_context(AsyncBoltContext(), checked.data)
        response = await self._app.async_dispatch(bolt_request)
        return to_starlette_response(response)
