"""Builds the Bolt `AsyncApp`: web client, listeners, log context and the one error handler.

Listeners only take requests into the durable work queue, so Bolt answers Slack after they
return (`process_before_response=True`): an acknowledged request is already in Redis. The
error handler never posts: a request it sees could not be attributed to an asker and a
place safely, so it is only logged; an event that could not be queued (`RetryLater`) is
answered 500, so Slack delivers it again. Listeners report their own failures.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.logger.messages import warning_client_prioritized_and_token_skipped
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation.messages import STORE_DOWN
from bot.slack.authorize import AuthTest, tokenless_twin
from bot.slack.deps import SlackDeps
from bot.slack.listeners import register_listeners
from bot.slack.listeners.routes import retry_num
from bot.slack.logcontext import bind_request_context, log_listener_failure
from bot.slack.response_urls import ResponseUrls
from bot.slack.session import SLACK_TIMEOUT_S, SharedSessionClient, SlackSession

__all__ = ["STORE_DOWN", "build_slack_app", "build_web_client"]


class _NoUnusedTokenWarning(logging.Filter):
    """Drops the false start-up warning of Bolt that "`token` will be unused".

    Bolt reads `SLACK_BOT_TOKEN` from the environment by itself (`token or os.environ[...]`
    in `AsyncApp.__init__`) and warns whenever a `client` comes with it; no argument turns
    that lookup off. Here nothing is unused: the client Bolt gets has no token of its own,
    and `authorize` hands every request that same token (`bot.slack.authorize`). Every other
    Bolt message still shows.
    """

    _TEXT = warning_client_prioritized_and_token_skipped()

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != self._TEXT


_BOLT_APP_LOG = logging.getLogger("slack_bolt.AsyncApp")


def build_web_client(token: str, base_url: str) -> SharedSessionClient:
    """A Web API client that retries Slack's 429s (honouring Retry-After) and 5xx.

    Its calls share one keep-alive session (`bot.slack.session`), which the Slack front end
    closes (`client.shared.aclose()`) after its last call.
    """
    shared = SlackSession(timeout_s=SLACK_TIMEOUT_S)
    client = SharedSessionClient(shared, token=token, base_url=base_url, timeout=SLACK_TIMEOUT_S)
    client.retry_handlers.extend(
        [
            AsyncRateLimitErrorRetryHandler(max_retry_count=3),
            AsyncServerErrorRetryHandler(max_retry_count=2),
        ]
    )
    return client


async def _log_context(
    req: AsyncBoltRequest,
    body: dict[str, Any],
    next: Callable[[], Awaitable[BoltResponse]],  # noqa: A002
) -> BoltResponse:
    """Bind this request's log context (`bot.slack.logcontext`), then go on."""
    bind_request_context(body, retry_num(req))
    return await next()


def build_slack_app(
    *,
    client: AsyncWebClient,
    signing_secret: str,
    deps: SlackDeps,
    auth_test: AuthTest | None = None,
    response_urls: ResponseUrls | None = None,
) -> AsyncApp:
    """The Bolt app: listeners registered per module, one error handler, no catch-alls.

    Middleware binds the log context, then drops a `response_url` that is not one of
    `response_urls` (default: Slack's, and the client's API origin), so no listener can
    answer through one.

    `auth.test` is called once per process (`bot.slack.authorize`), not per cold request.
    """
    if not any(isinstance(f, _NoUnusedTokenWarning) for f in _BOLT_APP_LOG.filters):
        _BOLT_APP_LOG.addFilter(_NoUnusedTokenWarning())
    app = AsyncApp(
        # Without a name, Bolt names the app after its caller's file by walking the whole
        # call stack with source context (`inspect.stack()`): ~15 ms per app built.
        name="runai-why",
        client=tokenless_twin(client),
        signing_secret=signing_secret,
        authorize=(auth_test or AuthTest(client)).authorize(),
        process_before_response=True,
    )
    app.middleware(_log_context)
    urls = response_urls or ResponseUrls.for_api(client.base_url)
    app.middleware(urls.middleware())  # before any listener
    register_listeners(app, deps)

    async def on_error(error: Exception, request: AsyncBoltRequest) -> None:
        log_listener_failure(error, retry_num(request))  # answered 500 by Bolt

    app.error(on_error)
    return app
