"""One engine turn from Slack, and what the asker is told when it cannot be completed.

Every listener hands its request to `converse`, which knows who asked and where, so a
failure is reported to that person only (ephemeral) and truthfully: once something was
posted for the request, "I did not process this request" would be false, so the asker is
told what actually happened instead. Nothing here posts publicly.
"""

from __future__ import annotations

import structlog

from bot.conversation import Incoming, Responder, StoreUnavailable
from bot.conversation.messages import (
    BUSY,
    CRASHED,
    STATE_NOT_SAVED,
    STORE_BUSY,
    STORE_DOWN,
    describe_upstream,
)
from bot.conversation.store import StoreBusy, ThreadBusy
from bot.slack.deps import SlackDeps
from bot.slack.responder import SlackResponder
from diagnosis import UpstreamError

__all__ = [
    "converse",
    "tell_store_error",
]


async def tell_store_error(responder: SlackResponder, error: StoreUnavailable) -> None:
    """The private notice for a state-store failure, true to what was already shown."""
    if isinstance(error, ThreadBusy):
        await responder.tell(BUSY)
    elif isinstance(error, StoreBusy) and not responder.public:
        await responder.tell(STORE_BUSY)
    else:
        await responder.tell(STATE_NOT_SAVED if responder.public else STORE_DOWN)


async def converse(
    deps: SlackDeps,
    incoming: Incoming,
    responder: SlackResponder,
    *,
    shown: Responder | None = None,
) -> None:
    """Run one turn; any failure is logged and told to the asker privately, once.

    `shown` is what the engine answers through (the worker's journaled wrapper of
    `responder`); `responder` tells the asker about failures.
    """
    log = structlog.get_logger(__name__)
    try:
        await deps.engine.handle(incoming, shown or responder)
    except StoreUnavailable as error:
        log.warning("slack_store_unavailable", error=str(error), answered=responder.public)
        await tell_store_error(responder, error)
    except UpstreamError as error:
        log.warning("slack_upstream_failed", operation=error.operation, status=error.status)
        if not responder.public:
            await responder.tell(describe_upstream(error, "answer"))
    except Exception:
        log.exception("slack_turn_failed")
        if not responder.public:  # the engine already replaced its progress notice
            await responder.tell(CRASHED)
