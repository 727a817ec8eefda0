"""Builds the Bolt `AsyncApp`: web client, listeners, log context and the one error handler."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import structlog
from slack_bolt.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation import StoreUnavailable
from bot.conversation.messages import BUSY, CRASHED, STORE_DOWN, describe_upstream
from bot.conversation.store import ThreadBusy
from bot.render.blocks import render_notice
from bot.slack.deps import SlackDeps
from bot.slack.listeners import register_listeners
from diagnosis import UpstreamError

__all__ = ["STORE_DOWN", "build_slack_app", "build_web_client"]


def build_web_client(token: str, base_url: str) -> AsyncWebClient:
    """A Web API client that retries Slack's 429s (honouring Retry-After) and 5xx."""
    client = AsyncWebClient(token=token, base_url=base_url)
    client.retry_handlers.extend(
        [
            AsyncRateLimitErrorRetryHandler(max_retry_count=3),
            AsyncServerErrorRetryHandler(max_retry_count=2),
        ]
    )
    return client


def _where(body: dict[str, Any]) -> tuple[str | None, str | None]:
    """(channel, thread) of whatever the request was about, for an error reply."""
    event = body.get("event") or {}
    if event:
        return event.get("channel"), event.get("thread_ts") or event.get("ts")
    if "channel_id" in body:
        return body.get("channel_id"), None
    message = body.get("message") or {}
    channel = (body.get("channel") or {}).get("id")
    return channel, message.get("thread_ts") or message.get("ts")


def _retry_num(request: AsyncBoltRequest) -> str | None:
    """Slack's `X-Slack-Retry-Num` (Bolt keeps header values as lists)."""
    return next(iter(request.headers.get("x-slack-retry-num") or []), None)


async def _log_context(
    req: AsyncBoltRequest,
    body: dict[str, Any],
    next: Callable[[], Awaitable[BoltResponse]],  # noqa: A002
) -> BoltResponse:
    """Bind team, channel, user, event id and Slack's retry number to every log line."""
    event = body.get("event") or {}
    structlog.contextvars.clear_contextvars()
    structlog.contextvars.bind_contextvars(
        team_id=body.get("team_id") or (body.get("team") or {}).get("id"),
        channel_id=event.get("channel") or body.get("channel_id"),
        user_id=event.get("user") or body.get("user_id") or (body.get("user") or {}).get("id"),
        event_id=body.get("event_id"),
        retry_num=_retry_num(req),
    )
    return await next()


def build_slack_app(*, client: AsyncWebClient, signing_secret: str, deps: SlackDeps) -> AsyncApp:
    """The Bolt app: listeners registered per module, one error handler, no catch-alls."""
    app = AsyncApp(client=client, signing_secret=signing_secret, process_before_response=False)
    app.middleware(_log_context)
    register_listeners(app, deps)
    log = structlog.get_logger(__name__)

    async def on_error(error: Exception, body: dict[str, Any], request: AsyncBoltRequest) -> None:
        retry = _retry_num(request)
        log.error(
            "slack_listener_failed",
            error_type=type(error).__name__,
            retry_num=retry,
            exc_info=error,
        )
        if retry is not None:
            return  # Slack's retry of a request that already failed: say it once only
        if isinstance(error, ThreadBusy):
            text = BUSY
        elif isinstance(error, StoreUnavailable):
            text = STORE_DOWN
        elif isinstance(error, UpstreamError):
            text = describe_upstream(error, "answer")
        else:
            text = CRASHED
        channel, thread = _where(body)
        if channel:
            notice = render_notice(text)
            await client.chat_postMessage(
                channel=channel, thread_ts=thread, text=notice.text, blocks=notice.blocks
            )

    app.error(on_error)
    return app
