"""The worker: takes only as many items as it can run, answers each, and hands back the rest.

One loop per process: reclaim items that a silent consumer left idle, take new ones
(`XREADGROUP`) up to its free slots (`MAX_CONCURRENT_DIAGNOSES`), and run each in its own
task; another task keeps their claims alive and stops an attempt whose claim is lost
(`bot.work.claims`), so one item never has two attempts under way; what an attempt does is
`bot.work.attempt`. `stop` takes nothing more (a waiting take is abandoned at once), lets
what runs finish within a grace period (its claims still renewed), and puts everything the
consumer still holds back at the tail. Consumers that died without that are forgotten after
a while.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import time
import uuid
from collections.abc import Mapping

import structlog

from bot.ops.metrics import QUEUE_DEPTH
from bot.work.attempt import Attempts, Handler
from bot.work.claims import Claims
from bot.work.item import Delivery
from bot.work.queue import QueueUnavailable, WorkQueue

__all__ = ["Worker", "consumer_name"]

_BACKOFF_S = 1.0
#: How long a cancelled item has to wind down before it is cancelled again: one Redis
#: command's socket timeout (bot/durable/connect.py), so a cleanup under way is not cut short.
RECANCEL_S = 5.0
#: A consumer silent this long that holds nothing died without handing back: it is forgotten.
FORGET_IDLE_S = 600.0


def consumer_name() -> str:
    """A name unique to this process: host, pid and a random suffix."""
    return f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"


class Worker:
    """Consumes the queue for one process, `concurrency` items at a time."""

    def __init__(
        self,
        queue: WorkQueue,
        handlers: Mapping[str, Handler],
        *,
        concurrency: int,
        claim_idle_s: float,
        max_deliveries: int,
        consumer: str | None = None,
        recancel_s: float = RECANCEL_S,
        forget_idle_s: float = FORGET_IDLE_S,
    ) -> None:
        self.queue = queue
        self.consumer = consumer or consumer_name()
        self._concurrency = concurrency
        self._claim_idle_s = claim_idle_s
        self._recancel_s = recancel_s
        self._forget_idle_s = forget_idle_s
        self._block_s = min(1.0, claim_idle_s / 3)
        self._claims = Claims(
            queue, self.consumer, claim_idle_s=claim_idle_s, recancel_s=recancel_s
        )
        self._attempts = Attempts(
            queue, handlers, self._claims, max_deliveries=max_deliveries, retry_s=self._block_s
        )
        self._stopping = asyncio.Event()
        self._loop: asyncio.Task[None] | None = None
        self._beating: asyncio.Task[None] | None = None
        self._log = structlog.get_logger(__name__)

    @property
    def concurrency(self) -> int:
        """Items this worker runs at once, at most."""
        return self._concurrency

    @property
    def inflight(self) -> int:
        """Items this worker is running now."""
        return len(self._claims)

    def start(self) -> asyncio.Task[None]:
        """Run the loop in a task of the current event loop."""
        self._loop = asyncio.create_task(self.run(), name=f"worker {self.consumer}")
        return self._loop

    async def run(self) -> None:
        """Take and run items until `stop`; their claims are renewed until `stop` is done."""
        self._beating = asyncio.create_task(self._claims.run(), name=f"claims {self.consumer}")
        try:
            await self._run()
        finally:
            if not self._stopping.is_set():  # died: no hand-back follows to renew claims for
                await self._claims.stop(self._beating)

    async def _run(self) -> None:
        next_reclaim = 0.0
        self._log.info("worker_started", consumer=self.consumer, concurrency=self._concurrency)
        while not self._stopping.is_set():
            try:
                free = self._concurrency - len(self._claims)
                if free <= 0:
                    await self._wait_for_a_slot()
                    continue
                sent = time.monotonic()
                if sent >= next_reclaim:
                    next_reclaim = sent + self._claim_idle_s / 2
                    self._run_all(
                        await self.queue.reclaim(self.consumer, self._claim_idle_s, free), sent
                    )
                    # After the reclaimed attempts started: a failure here costs none of them.
                    await self.queue.forget(self._forget_idle_s)
                    QUEUE_DEPTH.set(await self.queue.depth())
                    free = self._concurrency - len(self._claims)
                if free > 0:
                    sent = time.monotonic()
                    self._run_all(await self._take(free), sent)
            except QueueUnavailable as error:
                self._log.warning("worker_queue_unavailable", error=str(error))
                await self._pause(_BACKOFF_S)

    def _run_all(self, deliveries: list[Delivery], sent: float) -> None:
        """An attempt for each delivery, claimed by a call sent at `sent`; none once stopping.

        What a stopping worker was given stays with this consumer: `stop` hands it all back.
        """
        if self._stopping.is_set():
            return
        for delivery in deliveries:
            if self._claims.holds(delivery.entry_id):  # its own, still winding down
                self._log.warning("work_reclaimed_while_running", entry_id=delivery.entry_id)
                continue
            self._claims.hold(asyncio.create_task(self._attempts.run(delivery)), delivery, sent)

    async def _wait_for_a_slot(self) -> None:
        """Until an attempt ends or `stop` is called."""
        stopping = asyncio.ensure_future(self._stopping.wait())
        try:
            await asyncio.wait({stopping, *self._claims.tasks}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()

    async def _pause(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self._stopping.wait()

    async def _take(self, count: int) -> list[Delivery]:
        """New items, or none if `stop` comes first: a stopping worker does not wait out a take.

        An abandoned take may still have been given items (Redis served it as it was
        cancelled): they are pending under this consumer, and `stop` hands them back.
        """
        take = asyncio.ensure_future(self.queue.take(self.consumer, count, self._block_s))
        stopping = asyncio.ensure_future(self._stopping.wait())
        try:
            await asyncio.wait({take, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()
            take.cancel()  # a no-op once it is done
        await asyncio.wait({take})  # let an abandoned take unwind (closes its connection)
        return [] if take.cancelled() else take.result()

    async def stop(self, grace_s: float) -> int:
        """Stop taking work, let what runs finish within `grace_s`, hand back the rest.

        Returns how many items were handed back: the unfinished ones, and any this consumer
        holds without running (taken as it stopped, or left pending by a failed attempt).
        What cannot be handed back (Redis gone) stays pending and is reclaimed by another
        consumer after the idle time.
        """
        self._stopping.set()
        if self._loop is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop
        if self._claims.tasks:  # their claims are still renewed (`Claims.run`)
            _, late = await asyncio.wait(self._claims.tasks, timeout=grace_s)
            await self._cancel(late)
        handed = 0
        try:
            handed = await self.queue.retire(self.consumer)
        except QueueUnavailable as error:
            self._log.warning("worker_hand_back_failed", error=str(error))
        finally:
            if self._beating is not None:
                await self._claims.stop(self._beating)
        self._log.info("worker_stopped", consumer=self.consumer, handed_back=handed)
        return handed

    async def _cancel(self, tasks: set[asyncio.Task[None]]) -> None:
        """Cancel `tasks` and wait for them; cancel again those still running after a while.

        One may have dropped its cancellation (a Redis command can, on Python 3.11: see
        bot/durable/renewal.py) and would run on for as long as its diagnosis takes; one may only be
        slow to wind down, and is then cut short.
        """
        while tasks:
            for task in tasks:
                task.cancel()
            _, tasks = await asyncio.wait(tasks, timeout=self._recancel_s)
            if tasks:
                self._log.warning("worker_items_cancelled_again", count=len(tasks))
