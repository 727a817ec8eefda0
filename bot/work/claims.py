"""What a worker runs, and its claim on each: renewed while it runs, given up once lost.

A worker's claim on an entry lasts `QUEUE_CLAIM_IDLE_S` from when it was last renewed (by the
take or reclaim that delivered it, then by `heartbeat` every third of that), in a task of its
own that runs from the worker's start until its hand-back is done, so a stopping worker keeps
what it finishes within its grace period. Another consumer takes an entry over only after it
saw it idle that long and still idle half of that later (`WorkQueue.reclaim`).

An attempt whose claim is lost is stopped (cancelled, and again after `recancel_s` if it
dropped that): when the heartbeat says its attempt is stale (another consumer holds its entry,
or it is finished; one that Redis lost with its data is not: it is the only attempt left), and
when the claim could not be renewed for `QUEUE_CLAIM_IDLE_S` (Redis out of reach: another
consumer may take the entry over from then on, so this one stops before it can). An attempt
whose `finish` (or dead-lettering) is under way is never stopped: its answer or notice is out,
and it marks the item answered, whoever holds the entry by then. Before that, an attempt
stopped after its answer was shown is run again, and its retry updates the same message.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass

import structlog

from bot.work.item import Delivery
from bot.work.queue import Journal, JournalState, ShownPost, WorkQueue

__all__ = ["Claims"]

#: How soon a heartbeat that failed is tried again (at most a beat).
RETRY_S = 1.0


@dataclass
class _Claim:
    delivery: Delivery
    renewed_at: float
    """When the last take, reclaim or heartbeat that kept it was sent (monotonic)."""
    finishing: bool = False
    dropped_at: float | None = None
    """When its attempt was cancelled for a lost claim (monotonic)."""


class Claims:
    """The attempts one consumer runs, keyed by task, with their claims."""

    def __init__(
        self, queue: WorkQueue, consumer: str, *, claim_idle_s: float, recancel_s: float
    ) -> None:
        self._queue = queue
        self._consumer = consumer
        self._claim_idle_s = claim_idle_s
        self._beat_s = claim_idle_s / 3
        self._retry_s = min(RETRY_S, self._beat_s)
        self._recancel_s = recancel_s
        self._held: dict[asyncio.Task[None], _Claim] = {}
        self._stopped = asyncio.Event()
        self._failing = False
        self._log = structlog.get_logger(__name__)

    def __len__(self) -> int:
        return len(self._held)

    @property
    def tasks(self) -> set[asyncio.Task[None]]:
        """The attempts under way."""
        return set(self._held)

    def holds(self, entry_id: str) -> bool:
        """Whether an attempt of this entry is under way here."""
        return any(c.delivery.entry_id == entry_id for c in self._held.values())

    def hold(self, task: asyncio.Task[None], delivery: Delivery, since: float) -> None:
        """`task` runs `delivery`, claimed by a call sent at `since` (monotonic)."""
        self._held[task] = _Claim(delivery, since)
        task.add_done_callback(self._held.pop)

    def finishing(self) -> None:
        """The current attempt's answer or notice is out: it is never stopped from now on."""
        task = asyncio.current_task()
        if task in self._held:
            self._held[task].finishing = True

    def answering(self, journal: Journal) -> Journal:
        """`journal`, whose `mark_answered` first makes the attempt finishing.

        Once its answer is out, an attempt is not stopped while it saves what follows (the
        thread's state): after Redis lost its entry, nothing would run the item again.
        """
        return _Answering(journal, self)

    async def run(self) -> None:
        """Renew the claims, and stop the attempts that lost theirs, until `stop`."""
        while not self._stopped.is_set():
            renewed = await self._beat()
            now = time.monotonic()
            for task, claim in self._held.items():
                if claim.finishing or task.done():
                    continue
                if claim.dropped_at is None and now - claim.renewed_at >= self._claim_idle_s:
                    self._drop(task, claim, "not renewed")
                elif claim.dropped_at is not None and now - claim.dropped_at >= self._recancel_s:
                    claim.dropped_at = now
                    task.cancel()  # it dropped the first cancellation (see `Worker._cancel`)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(
                    min(self._beat_s if renewed else self._retry_s, self._slack())
                ):
                    await self._stopped.wait()

    async def stop(self, running: asyncio.Task[None]) -> None:
        """End `running` (the task of `run`), even if a Redis call drops its cancellation.

        See bot/durable/renewal.py: the flag ends the loop once that call returns.
        """
        self._stopped.set()
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)

    def _live(self) -> dict[asyncio.Task[None], _Claim]:
        return {t: c for t, c in self._held.items() if c.dropped_at is None}

    def _slack(self) -> float:
        """Time left before the first claim that can be lost runs out (at least a little)."""
        expiring = [c.renewed_at for c in self._live().values() if not c.finishing]
        if not expiring:
            return self._beat_s
        return max(0.01, min(expiring) + self._claim_idle_s - time.monotonic())

    async def _beat(self) -> bool:
        """One heartbeat of what runs here; False if it failed (the claims were not renewed)."""
        live = self._live()
        if not live:
            return True
        sent = time.monotonic()
        try:
            async with asyncio.timeout(min(self._beat_s, self._slack())):
                lost = set(
                    await self._queue.heartbeat(self._consumer, [c.delivery for c in live.values()])
                )
        except Exception as error:  # noqa: BLE001 - Redis out of reach, or slow: tried again soon
            log = self._log.debug if self._failing else self._log.warning  # once per outage
            log("worker_heartbeat_failed", error=repr(error))
            self._failing = True
            return False
        if self._failing:
            self._failing = False
            self._log.info("worker_heartbeat_renewed")
        for task, claim in live.items():
            if claim.delivery.entry_id not in lost:
                claim.renewed_at = max(claim.renewed_at, sent)
            elif not claim.finishing and not task.done():
                self._drop(task, claim, "taken over or finished")
        return True

    def _drop(self, task: asyncio.Task[None], claim: _Claim, why: str) -> None:
        item = claim.delivery.item
        self._log.warning(
            "work_claim_lost", why=why, entry_id=claim.delivery.entry_id, work_id=item and item.id
        )
        claim.dropped_at = time.monotonic()
        task.cancel()


class _Answering:
    """A journal that marks its attempt finishing as it marks the item answered."""

    def __init__(self, journal: Journal, claims: Claims) -> None:
        self._journal, self._claims = journal, claims

    async def load(self) -> JournalState:
        return await self._journal.load()

    async def begin(self, entry_id: str) -> JournalState:
        return await self._journal.begin(entry_id)

    async def record_post(self, index: int, post: ShownPost, thread: str | None) -> None:
        await self._journal.record_post(index, post, thread)

    async def record_spent(self, uses: int, post: tuple[int, ShownPost] | None = None) -> None:
        await self._journal.record_spent(uses, post)

    async def mark_answered(self) -> None:
        self._claims.finishing()
        await self._journal.mark_answered()
