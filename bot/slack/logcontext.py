"""What every log line of a Slack request carries, bound once as the request comes in.

Both ways a request reaches a listener bind it here: Bolt's middleware (`bot.slack.app`) and
the gate's fast lane (`bot.slack.fastlane`). So do both ways of logging a
listener that failed before it could tell its asker anything.
"""

from __future__ import annotations

from typing import Any

import structlog

from bot.ops.observe import REQUEST_ID, begin_request
from bot.slack.intake import RetryLater
from bot.slack.payloads import member

__all__ = ["bind_request_context", "log_listener_failure"]


def bind_request_context(body: dict[str, Any], retry_num: str | None) -> None:
    """Bind team, channel, user, event id and Slack's retry number to every log line.

    Whatever an earlier request left bound is cleared; the request ID the HTTP route bound
    for this request (`bot.ops.observe.begin_request`) is kept, and a request that came
    another way (Socket Mode) gets one here.
    """
    event = member(body.get("event"))
    request_id = structlog.contextvars.get_contextvars().get(REQUEST_ID)
    structlog.contextvars.clear_contextvars()
    if request_id:
        structlog.contextvars.bind_contextvars(**{REQUEST_ID: request_id})
    else:
        begin_request()
    structlog.contextvars.bind_contextvars(
        team_id=body.get("team_id") or member(body.get("team")).get("id"),
        channel_id=event.get("channel") or body.get("channel_id"),
        user_id=event.get("user") or body.get("user_id") or member(body.get("user")).get("id"),
        event_id=body.get("event_id"),
        retry_num=retry_num,
    )


def log_listener_failure(error: Exception, retry_num: str | None) -> None:
    """Log a listener's failure (answered 500); nothing is posted anywhere.

    An event that could not be queued (`RetryLater`) is a warning: Slack delivers it again.
    Otherwise listeners answer their own failures, privately, to the person they know asked
    (`bot.conversation.edges`, via `bot.slack.work`); what reaches here failed before a
    listener could know that safely.
    """
    log = structlog.get_logger(__name__)
    if isinstance(error, RetryLater):
        log.warning("slack_event_not_taken", error=str(error), retry_num=retry_num)
        return
    log.error(
        "slack_listener_failed",
        error_type=type(error).__name__,
        retry_num=retry_num,
        exc_info=error,
    )
