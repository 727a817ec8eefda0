"""The gate's fast lane: a warm process's verified requests taken by their listeners, past Bolt.

Bolt's general dispatch of a request (its request object parsing the body a second time,
the middleware chain, listener matching, arguments built by inspecting signatures) cost
about as much CPU as everything else in an acknowledgement, and requests come in bursts
(an incident channel asking at once). The gate has already verified and parsed the body,
so, once this process's `auth.test` has answered, the lane finds the body's route in the
listeners' own table (`bot.slack.listeners.ROUTES`, matched as Bolt matches it) and calls
that listener, after the steps Bolt's middleware would take: the log context, dropping a
`response_url` that is not Slack's, and the bot's identity from that one `auth.test`. What
Slack gets back is byte for byte what Bolt would send, made by Bolt's own `BoltResponse` and
Starlette adapter: the listener's acknowledgement, or 500 (logged as Bolt's error handler
logs it) for an event to deliver again or a listener that failed. Slash commands, the
mention and message events, button clicks and the message shortcut all take it.

Bolt still answers what no route takes (`url_verification`, `ssl_check`, other event types
or commands), and every request before `auth.test` has answered (its authorize step asks,
and answers a failure as Bolt does).
"""

from __future__ import annotations

from slack_bolt.adapter.starlette.async_handler import to_starlette_response
from slack_bolt.response import BoltResponse
from slack_sdk.web.async_client import AsyncWebClient
from starlette.responses import Response

from bot.slack.authorize import AuthTest
from bot.slack.deps import SlackDeps
from bot.slack.listeners import ROUTES
from bot.slack.listeners.routes import Route, SlackRequest, find
from bot.slack.logcontext import bind_request_context, log_listener_failure
from bot.slack.payloads import Checked
from bot.slack.response_urls import ResponseUrls

__all__ = ["FastLane"]


class FastLane:
    """Answers a warm process's verified commands and events; leaves the rest to Bolt."""

    def __init__(
        self,
        deps: SlackDeps,
        client: AsyncWebClient,
        auth_test: AuthTest,
        response_urls: ResponseUrls,
    ) -> None:
        self._deps = deps
        self._client = client
        self._auth_test = auth_test
        self._response_urls = response_urls

    def route_for(self, checked: Checked) -> Route | None:
        """The route of a verified, checked body this lane answers; None leaves it to Bolt."""
        data = checked.data
        if not self._auth_test.answered or "ssl_check" in data:  # Bolt answers `ssl_check`
            return None
        return find(ROUTES, data)

    async def answer(self, route: Route, checked: Checked, retry_num: str | None) -> Response:
        """Run the route's listener as Bolt would; the response Bolt would have sent."""
        data = checked.data
        try:
            bind_request_context(data, retry_num)
            self._response_urls.keep_only_slack(data)
            me = (await self._auth_test.answer()).get("user_id")
            ack = await route.listener(self._deps, SlackRequest(data, self._client, me, retry_num))
        except Exception as error:  # noqa: BLE001 - as Bolt does: logged, answered 500
            log_listener_failure(error, retry_num)
            return to_starlette_response(BoltResponse(status=500))
        return to_starlette_response(BoltResponse(status=200, body=ack.body()))
