"""From a Slack request to a durable work item: taken (deduplicated, bounded) before the ack.

A listener describes the request (`Incoming`, where to answer, its dedupe key) and calls
`submit`, which enqueues it in one atomic step and says what happened. What the asker is
told is the listener's to choose (an ack text for a slash command, a private message for
events and clicks), because only it knows how its surface answers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import structlog
from pydantic import BaseModel, ConfigDict
from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation import Incoming
from bot.durable.tasks import stopped
from bot.errors import BotError
from bot.slack.responder import SlackResponder
from bot.slack.webhook import LISTENER_POSTS
from bot.work import Enqueued, WorkQueue, admit, new_item

__all__ = ["PLATFORM", "Notices", "ResponderSpec", "RetryLater", "submit", "trigger_key"]

PLATFORM = "slack"
_NOTICES_MAX = 256


class RetryLater(BotError):
    """The event could not be taken (Redis down): answered non-2xx, so Slack sends it again."""


class ResponderSpec(BaseModel):
    """Where and to whom a Slack request is answered: a `SlackResponder`, as data."""

    model_config = ConfigDict(frozen=True)

    channel: str
    thread_ts: str | None
    user: str
    response_url: str | None = None
    threaded: bool = True

    def responder(
        self,
        client: AsyncWebClient,
        *,
        runai_url: str | None,
        thread: str | None = None,
        queued: bool = False,
        spent: int = 0,
        invite_shown: bool = False,
    ) -> SlackResponder:
        """The responder; `thread` is the thread an earlier attempt's first post created.

        `queued`: a worker's, answering after the listener, which may have told the asker
        their place in the queue through the same `response_url` (one of its five posts).
        `spent`: the posts earlier attempts made there; `invite_shown`: one of them carried
        the note on inviting the bot (`SlackResponder`).
        """
        return SlackResponder(
            client,
            channel=self.channel,
            thread_ts=self.thread_ts or (thread if self.threaded else None),
            user=self.user,
            response_url=self.response_url,
            threaded=self.threaded,
            runai_url=runai_url,
            response_url_spent=(LISTENER_POSTS if queued else 0) + spent,
            invite_shown=invite_shown,
        )


async def submit(
    queue: WorkQueue,
    *,
    kind: str,
    incoming: Incoming,
    spec: ResponderSpec,
    dedupe: str,
    dedupe_ttl_s: int,
    deadline_s: float,
    repeatable: bool = False,
) -> Enqueued:
    """Enqueue one request; counts duplicates and refusals.

    `dedupe` names the user's action, so that every copy of it is one request: Slack's
    retries and double deliveries of an event, a double click, and a replayed slash command
    or shortcut (`trigger_key`), which Slack itself never sends twice. `repeatable`: see
    `bot.work.admit` (a click on a question's button).

    Raises:
        QueueUnavailable: nothing was taken (Redis is down).
    """
    item = new_item(
        platform=PLATFORM,
        kind=kind,
        incoming=incoming,
        responder=spec.model_dump(mode="json"),
        deadline_s=deadline_s,
    )
    return await admit(queue, item, dedupe=dedupe, dedupe_ttl_s=dedupe_ttl_s, repeatable=repeatable)


def trigger_key(team: str, trigger_id: str) -> str:
    """The dedupe key of a slash command or a shortcut: its `trigger_id`, one per user action.

    A second request with the same one is a replay (Slack sends each once), taken as a
    duplicate for as long as any delivery key is kept, past Slack's 5-minute signature window.
    """
    return f"trigger:{team}:{trigger_id}"


class Notices:
    """Private notices sent beside the ack, not before it (at most `limit` at a time)."""

    def __init__(self, limit: int = _NOTICES_MAX) -> None:
        self._limit = limit
        self._tasks: set[asyncio.Task[None]] = set()

    def send(self, make: Coroutine[Any, Any, None]) -> None:
        """Run `make` (a responder's `tell`, which never raises) in the background."""
        if len(self._tasks) >= self._limit:
            make.close()
            structlog.get_logger(__name__).warning("slack_notice_dropped", pending=self._limit)
            return
        task = asyncio.create_task(make)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def drain(self, timeout_s: float) -> None:
        """Let the notices under way go out (on shutdown), giving up on them after `timeout_s`.

        Those given up on are cancelled and waited for: none is left running on the clients
        closed after this.
        """
        if not self._tasks:
            return
        _, late = await asyncio.wait(set(self._tasks), timeout=timeout_s)
        await stopped(late)
        if late:
            structlog.get_logger(__name__).warning("slack_notices_not_sent", count=len(late))
