"""A refused request's answer, for every route: its status phrase, logged with the reason.

The reason goes to the log only (what was wrong, never what the request said); the sender
sees the status phrase. A body refused for lack of room (503) is answered with
`Retry-After: 1`: it was not read, and Slack and Teams send it again.
"""

from __future__ import annotations

from collections.abc import Mapping
from http import HTTPStatus

import structlog
from starlette.responses import PlainTextResponse, Response

from bot.web.body import Refused

__all__ = ["body_refusal", "refusal"]


def refusal(
    event: str, status: HTTPStatus, reason: str, headers: Mapping[str, str] | None = None
) -> Response:
    """Log `event` (a warning with the status and reason) and answer `status`'s phrase."""
    structlog.get_logger(__name__).warning(event, status=int(status), reason=reason)
    return PlainTextResponse(status.phrase, status_code=status, headers=headers)


def body_refusal(event: str, refused: Refused) -> Response:
    """The answer to a body `bot.web.body` refused: "body <reason>", and a retry when busy."""
    busy = refused.status is HTTPStatus.SERVICE_UNAVAILABLE
    retry = {"Retry-After": "1"} if busy else None  # not taken: the sender tries again
    return refusal(event, refused.status, f"body {refused.reason}", retry)
