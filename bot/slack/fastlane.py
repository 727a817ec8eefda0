"""The gate's fast lane: a verified `/runai-why` taken by its listener without Bolt's dispatch.

Bolt's general dispatch of a request (its request object parsing the body a second time,
the middleware chain, listener matching, arguments built by inspecting signatures) cost
about as much CPU as everything else in an acknowledgement. A slash command needs none of
it: the gate has already verified and parsed the body, and the listener needs only the
command. So, in a warm process, the gate hands a `/runai-why` invocation straight to the
listener's own function (`take_command`) after the two steps Bolt's middleware would take:
the log context, and dropping a `response_url` that is not Slack's. The acknowledgement is
byte for byte the one Bolt would send.

Everything else goes to Bolt: events, interactions, `ssl_check`, any other command, and
every request before this process's `auth.test` has succeeded (Bolt's authorize step asks
it, and answers a failure as Bolt does).
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from bot.slack.authorize import AuthTest
from bot.slack.deps import SlackDeps
from bot.slack.listeners.commands import COMMAND, take_command
from bot.slack.logcontext import bind_request_context, log_listener_failure
from bot.slack.payloads import Checked
from bot.slack.response_urls import ResponseUrls

__all__ = ["FastLane"]

_JSON = "application/json;charset=utf-8"
_TEXT = "text/plain;charset=utf-8"


class FastLane:
    """Answers a warm process's verified `/runai-why` invocations; leaves the rest to Bolt."""

    def __init__(self, deps: SlackDeps, auth_test: AuthTest, response_urls: ResponseUrls) -> None:
        self._deps = deps
        self._auth_test = auth_test
        self._response_urls = response_urls

    def takes(self, checked: Checked) -> bool:
        """Whether a verified, checked body is a `/runai-why` this lane answers."""
        return (
            checked.slash_command
            and checked.data["command"] == COMMAND
            and self._auth_test.answered
        )

    async def answer(self, data: dict[str, Any], retry_num: str | None) -> Response:
        """Take the command as the listener does; the response Bolt would have sent."""
        bind_request_context(data, retry_num)
        self._response_urls.keep_only_slack(data)
        try:
            ack = await take_command(self._deps, data)
        except Exception as error:  # noqa: BLE001 - as Bolt does: logged, answered 500
            log_listener_failure(error, retry_num)
            return Response(status_code=500, content="", headers={"content-type": _TEXT})
        body = ack.body()
        return Response(content=body, headers={"content-type": _JSON if body else _TEXT})
