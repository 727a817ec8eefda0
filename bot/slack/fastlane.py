"""The gate's fast lane: verified commands and events taken by their listeners, past Bolt.

Bolt's general dispatch of a request (its request object parsing the body a second time,
the middleware chain, listener matching, arguments built by inspecting signatures) cost
about as much CPU as everything else in an acknowledgement. The requests that come in
bursts need none of it: the gate has already verified and parsed the body. So, in a warm
process, the gate hands a `/runai-why` invocation, an `app_mention` or a `message` event
straight to its listener's own function (`take_command`, `take_event`), after the steps
Bolt's middleware would take (the log context, dropping a `response_url` that is not
Slack's, and the bot's own identity from the process's one `auth.test`). What Slack gets
back is byte for byte what Bolt would send: the command's ack, 200 for a taken event, 500
for one to deliver again or a listener that failed (logged as Bolt's error handler logs).

Everything else goes to Bolt: interactions, `url_verification`, `ssl_check`, any other
command or event type, and every request before this process's `auth.test` has answered
(Bolt's authorize step asks it, and answers a failure as Bolt does).
"""

from __future__ import annotations

from slack_sdk.web.async_client import AsyncWebClient
from starlette.responses import Response

from bot.slack.authorize import AuthTest
from bot.slack.deps import SlackDeps
from bot.slack.listeners.commands import COMMAND, CommandAck, take_command
from bot.slack.listeners.events import Delivery, take_event
from bot.slack.logcontext import bind_request_context, log_listener_failure
from bot.slack.payloads import Checked
from bot.slack.response_urls import ResponseUrls

__all__ = ["FastLane"]

#: The event types the events listener is registered for (`bot.slack.listeners.events`).
EVENT_TYPES = frozenset({"app_mention", "message"})
_JSON = "application/json;charset=utf-8"
_TEXT = "text/plain;charset=utf-8"


def _reply(status: int, body: str = "") -> Response:
    """The response Bolt's Starlette adapter makes of a `BoltResponse` with this body."""
    kind = _JSON if body.startswith("{") else _TEXT
    return Response(status_code=status, content=body, headers={"content-type": kind})


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

    def takes(self, checked: Checked) -> bool:
        """Whether a verified, checked body is one this lane answers."""
        if not self._auth_test.answered:
            return False
        data = checked.data
        if checked.slash_command:
            return bool(data["command"] == COMMAND)
        event = data.get("event")
        return (
            data.get("type") == "event_callback"
            and isinstance(event, dict)
            and event.get("type") in EVENT_TYPES
        )

    async def answer(self, checked: Checked, retry_num: str | None) -> Response:
        """Run the request's listener as Bolt would; the response Bolt would have sent."""
        data = checked.data
        bind_request_context(data, retry_num)
        self._response_urls.keep_only_slack(data)
        try:
            if checked.slash_command:
                ack: CommandAck = await take_command(self._deps, data)
                return _reply(200, ack.body())
            me = (await self._auth_test.answer()).get("user_id")
            delivery = Delivery(data, first=retry_num is None, bot_user_id=me)
            await take_event(self._deps, self._client, delivery)
        except Exception as error:  # noqa: BLE001 - as Bolt does: logged, answered 500
            log_listener_failure(error, retry_num)
            return _reply(500)
        return _reply(200)
