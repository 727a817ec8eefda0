"""One attempt at a delivered item: answered, or given up, then removed from the queue.

Each attempt records its entry in the item's journal, which counts it (`Journal.begin`); it
is a retry when an attempt began before it, or its entry was delivered before. An item
delivered more than `max_deliveries` times (or begun more, counting the attempts a stop
handed back) is dead-lettered and its asker told; one past its deadline is not started, its
asker is told (told first, then removed: a crash in between tells twice rather than never).
Once an attempt has answered, removing the item is tried until it works; when it only told
its asker to ask again, its dedupe key goes with it, so asking again (the same click) counts.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import Protocol

import structlog

from bot.conversation.messages import GAVE_UP, expired
from bot.ops.metrics import DEAD_LETTERS, RECLAIMED
from bot.ops.observe import begin_request, observe_stage
from bot.work.claims import Claims
from bot.work.item import Delivery, WorkItem
from bot.work.queue import Journal, JournalState, QueueUnavailable, WorkQueue

__all__ = ["Attempts", "Handler"]


class Handler(Protocol):
    """What a platform does with its items (rebuilds its responder from the item)."""

    async def run(self, item: WorkItem, journal: Journal, state: JournalState) -> bool:
        """Answer the item; `state` is what earlier attempts showed.

        Returns False when nothing was done and its asker was told to ask again (their
        thread was busy, the state store down): the same request is then taken again.
        """
        ...

    async def give_up(self, item: WorkItem, state: JournalState, text: str) -> None:
        """Tell the asker privately it will not be answered (and replace any placeholder).

        Never raises.
        """
        ...


class Attempts:
    """Runs one worker's attempts, each under its claim (`Claims`)."""

    def __init__(
        self,
        queue: WorkQueue,
        handlers: Mapping[str, Handler],
        claims: Claims,
        *,
        max_deliveries: int,
        retry_s: float,
    ) -> None:
        self.queue = queue
        self._handlers = dict(handlers)
        self._claims = claims
        self._max_deliveries = max_deliveries
        self._retry_s = retry_s  # how soon removing an answered item is tried again
        self._log = structlog.get_logger(__name__)

    async def run(self, delivery: Delivery) -> None:
        """Answer `delivery`, or give it up; a failure is logged, and leaves it pending."""
        item = delivery.item
        if item is None:
            try:
                await self._dead(delivery, None, "unreadable item")
            except QueueUnavailable as error:  # still pending: dead-lettered on a later try
                self._log.warning("work_not_acknowledged", error=str(error))
            return
        self._begin(delivery, item)
        handler = self._handlers.get(item.platform)
        try:
            journal = self._claims.answering(self.queue.journal(item.id))
            state = await journal.begin(delivery.entry_id)
            if state.attempts > 1 or delivery.times > 1 or delivery.reclaimed:
                state = replace(state, retried=True)
            if state.answered:  # answered, then the worker died before acknowledging
                self._log.info("work_already_answered")
                await self._settle(self.queue.finish, delivery)
                return
            if handler is None:
                await self._dead(delivery, None, f"no handler for platform {item.platform!r}")
                return
            if (tries := max(delivery.times, state.attempts)) > self._max_deliveries:
                await self._dead(delivery, handler, f"delivered {tries} times", state)
                return
            if item.expired():
                self._log.warning("work_expired", waited_s=round(time.time() - item.enqueued_at, 1))
                await handler.give_up(item, state, expired(item.deadline_at - item.enqueued_at))
                await self._settle(self.queue.finish, delivery)
                return
            done = await handler.run(item, journal, state)
            await self._settle(functools.partial(self.queue.finish, release=not done), delivery)
        except QueueUnavailable as error:
            self._log.warning("work_not_acknowledged", error=str(error))
        except Exception:  # noqa: BLE001 - left pending: another attempt after the idle time, up to the limit
            self._log.exception("work_failed", times=delivery.times)

    def _begin(self, delivery: Delivery, item: WorkItem) -> None:
        # The request's own trace and ID, as bound when Slack handed it over: its logs and
        # canonical log line are one request's, whichever worker answers it.
        begin_request(item.request_id)
        structlog.contextvars.bind_contextvars(work_id=item.id, platform=item.platform)
        if delivery.reclaimed:
            RECLAIMED.inc()
            self._log.info("work_reclaimed", times=delivery.times)
        elif delivery.earlier:
            self._log.info("work_handed_back_before", earlier=delivery.earlier)
        elif delivery.times == 1:
            observe_stage("queue_wait", max(0.0, time.time() - item.enqueued_at))

    async def _dead(
        self,
        delivery: Delivery,
        handler: Handler | None,
        reason: str,
        state: JournalState | None = None,
    ) -> None:
        self._log.error("work_dead_lettered", reason=reason)
        if handler is not None and delivery.item is not None:
            # Told first: stopped in between, the item is still there to tell them again.
            await handler.give_up(delivery.item, state or JournalState(), GAVE_UP)
            await self._settle(self.queue.dead_letter, delivery, reason)
        else:
            await self.queue.dead_letter(delivery, reason)
        DEAD_LETTERS.inc()

    async def _settle(
        self, step: Callable[..., Awaitable[None]], delivery: Delivery, *args: str
    ) -> None:
        """Remove an item its asker has heard about, trying until Redis takes it.

        Left pending, it would be tried again, and its asker answered or told again.
        """
        self._claims.finishing()
        while True:
            try:
                await step(delivery, *args)
            except QueueUnavailable as error:
                self._log.warning("work_not_acknowledged", error=str(error), retry_s=self._retry_s)
                await asyncio.sleep(self._retry_s)
            else:
                return
