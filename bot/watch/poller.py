"""The watch poller: one replica at a time lists each watched project and queues new failures.

Every `WATCH_INTERVAL_S`, the replica holding the lease (`SET NX PX`, renewed while it
polls; another replica takes over once a dead holder's lease expires) lists each
subscription's workloads whose phase changed since its high-water mark (one paged list call,
filtered by project and cluster, sorted by `phaseUpdatedAt`). Each workload that newly
entered a failed phase (and, when asked, each that went back to Pending after running: a
possible preemption, posted only if the diagnosis says so) becomes a push item; more than
`WATCH_STORM_THRESHOLD` at once become one storm item. A watch made in chat is polled only
while its subscriber's access still reads the project (`bot.watch.guard`), and its items
name the subscriber, whose access the push checks again for each workload it shows.

Exactly once through crashes: the batch is written first (`batch:<subscription>`), then its
items are queued (each deduplicated atomically by subscription, workload and phase change),
then the mark moves and the batch is dropped. A poller that dies in between leaves the
batch, which the next poll queues again (duplicates are dropped) before anything else.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

import structlog
from pydantic import BaseModel

from bot.authz import Authorizer
from bot.conversation.clusters import cluster_by_ref
from bot.durable.renewal import renewing
from bot.ops.metrics import PUSH_NEW_FAILURES, PUSH_SUPPRESSED, WATCH_POLLS
from bot.push import Kv, KvUnavailable, PushSpec, push_item
from bot.watch.guard import SubscriberGuard
from bot.watch.subscriptions import Subscription, Subscriptions
from bot.work import Intake, QueueUnavailable, WorkItem, WorkQueue, admit
from diagnosis import DiagnosisError, RunaiReader

__all__ = ["LEASE_KEY", "WATCH_DEDUPE_TTL_S", "Changed", "WatchPoller"]

LEASE_KEY = "watch:lease"
WATCH_DEDUPE_TTL_S = 7 * 86_400
#: A pushed item may wait this long in the queue before it is dropped (and logged).
PUSH_DEADLINE_S = 1800.0
_FAILED = frozenset({"failed", "crashed"})


class Changed(Protocol):
    """What the poller reads of a listed workload."""

    @property
    def id(self) -> str:
        """The workload's UUID."""
        ...

    @property
    def phase(self) -> str | None:
        """Its Run:ai phase."""
        ...

    @property
    def phase_updated_at(self) -> datetime | None:
        """When the phase last changed."""
        ...

    @property
    def total_running_time_seconds(self) -> float | None:
        """How long it ran, in total (a Pending workload that ran may have been preempted)."""
        ...


class Lister(Protocol):
    """The list call a watch makes (`RunaiClient.list_changed_workloads`)."""

    async def list_changed_workloads(
        self, *, cluster_id: str, project: str, since: datetime
    ) -> Sequence[Changed]:
        """Workloads whose phase changed at or after `since`, oldest change first."""
        ...


class Mark(BaseModel):
    """A subscription's high-water mark: the newest phase change seen, and its workloads."""

    at: datetime
    ids: tuple[str, ...] = ()


class Batch(BaseModel):
    """The items one poll queues, and the mark they move the subscription to."""

    items: tuple[tuple[str, WorkItem], ...]
    mark: Mark


class WatchPoller:
    """Polls every subscription while this replica holds the lease."""

    def __init__(
        self,
        lister: Lister,
        runai: RunaiReader,
        kv: Kv,
        subscriptions: Subscriptions,
        queue: WorkQueue,
        *,
        authorizer: Authorizer,
        interval_s: float,
        storm_threshold: int,
    ) -> None:
        self._lister, self._runai, self._kv = lister, runai, kv
        self._subscriptions, self._queue = subscriptions, queue
        self._guard = SubscriberGuard(
            authorizer, kv, subscriptions, queue, dedupe_ttl_s=WATCH_DEDUPE_TTL_S
        )
        self._interval_s, self._storm_threshold = interval_s, storm_threshold
        self._lease_s = max(3 * interval_s, 3.0)
        self._token = uuid.uuid4().hex
        self._stop = asyncio.Event()
        self._leased = True  # False once a renewal found the lease another replica's
        self._task: asyncio.Task[None] | None = None
        self._log = structlog.get_logger(__name__)

    def start(self) -> asyncio.Task[None]:
        """Poll in a task of the running loop until `stop`."""
        self._task = asyncio.create_task(self.run(), name="watch poller")
        return self._task

    async def stop(self) -> None:
        """Stop polling and give the lease up, so another replica takes over at once."""
        self._stop.set()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        with contextlib.suppress(KvUnavailable):
            await self._kv.release(LEASE_KEY, self._token)

    async def run(self) -> None:
        """Every interval: hold (or take) the lease, then poll."""
        while not self._stop.is_set():
            try:
                held = await self.hold()
                self._log.debug("watch_tick", held=held)
                self._leased = held
                if held:
                    async with renewing(self._renew, self._lease_s / 3, name="watch lease"):
                        await self.poll_once()
            except KvUnavailable as error:
                self._log.warning("watch_poll_skipped", error=str(error))
            except Exception:  # noqa: BLE001 - logged; the next interval polls again
                self._log.exception("watch_poll_crashed")
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._interval_s):
                    await self._stop.wait()

    async def hold(self) -> bool:
        """Whether this replica holds the lease now (renewed, or just taken)."""
        lease = (LEASE_KEY, self._token, self._lease_s)
        return await self._kv.renew(*lease) or await self._kv.claim(*lease)

    async def _renew(self) -> bool:
        """Keep the lease while polling; False once it is lost (a Redis blip: tried next time)."""
        try:
            self._leased = await self._kv.renew(LEASE_KEY, self._token, self._lease_s)
        except KvUnavailable as error:
            self._log.warning("watch_lease_renewal_failed", error=str(error))
            return True
        if not self._leased:  # another replica polls now: this poll stops at its next watch
            self._log.warning("watch_lease_lost")
        return self._leased

    async def poll_once(self) -> int:
        """Poll every subscription once; returns how many failures' items were queued."""
        queued = 0
        for subscription, raw in await self._all():
            if self._stop.is_set() or not self._leased:
                break
            try:
                if raw is not None and not await self._guard.admits(subscription, raw):
                    continue
                queued += await self._poll(subscription)
            except DiagnosisError as error:
                WATCH_POLLS.labels(outcome="failed").inc()
                self._log.warning("watch_poll_failed", watch=subscription.id, error=str(error))
            except QueueUnavailable as error:
                self._log.warning("watch_not_queued", watch=subscription.id, error=str(error))
                break
        return queued

    async def _all(self) -> list[tuple[Subscription, str | None]]:
        """Each subscription, with its JSON as stored (None: declared in `WATCHES`)."""
        found: list[tuple[Subscription, str | None]] = [*await self._subscriptions.entries()]
        if not self._subscriptions.declared:
            return found
        try:
            clusters = await self._runai.list_clusters()
        except DiagnosisError as error:
            self._log.warning("watch_clusters_unavailable", error=str(error))
            return found
        for declared in self._subscriptions.declared:
            cluster = cluster_by_ref(clusters, declared.cluster)
            if cluster is None:
                self._log.warning("watch_cluster_unknown", cluster=declared.cluster)
                continue
            subscription = Subscription(
                target=declared.target(),
                cluster_id=cluster.uuid,
                cluster_name=cluster.name,
                project=declared.project,
                preemptions=declared.preemptions,
                subscribed_by="WATCHES",
                declared=True,
            )
            # Declared ones start watching when a poller first sees them, once for all.
            since = subscription.since.isoformat()
            await self._kv.claim(f"since:{subscription.id}", since, WATCH_DEDUPE_TTL_S * 52)
            first = datetime.fromisoformat(await self._kv.get(f"since:{subscription.id}") or since)
            found.append((subscription.model_copy(update={"since": first}), None))
        return found

    async def _poll(self, subscription: Subscription) -> int:
        key = subscription.id
        queued = await self._replay(key)
        raw = await self._kv.get(f"mark:{key}")
        mark = Mark.model_validate_json(raw) if raw else Mark(at=subscription.since)
        if mark.at < subscription.since:  # watched again after an unwatch: from now on
            mark = Mark(at=subscription.since)
        listed = await self._lister.list_changed_workloads(
            cluster_id=subscription.cluster_id, project=subscription.project, since=mark.at
        )
        WATCH_POLLS.labels(outcome="ok").inc()
        fresh = [
            w
            for w in listed
            if w.phase_updated_at is not None
            and (
                w.phase_updated_at > mark.at
                or (w.phase_updated_at == mark.at and w.id not in mark.ids)
            )
        ]
        if not fresh:
            if raw is None:
                await self._kv.set(f"mark:{key}", mark.model_dump_json())
            return queued
        newest = max(w.phase_updated_at or mark.at for w in fresh)
        ids = {w.id for w in fresh if w.phase_updated_at == newest}
        moved = Mark(
            at=newest, ids=tuple(sorted(ids | (set(mark.ids) if newest == mark.at else set())))
        )
        batch = Batch(items=tuple(self._items(subscription, fresh)), mark=moved)
        await self._kv.set(f"batch:{key}", batch.model_dump_json())
        return queued + await self._replay(key, batch)

    def _items(
        self, subscription: Subscription, fresh: Sequence[Changed]
    ) -> list[tuple[str, WorkItem]]:
        failed = [w for w in fresh if (w.phase or "").lower() in _FAILED]
        preempted = [
            w
            for w in fresh
            if subscription.preemptions
            and (w.phase or "").lower() == "pending"
            and (w.total_running_time_seconds or 0) > 0
        ]
        PUSH_NEW_FAILURES.labels(source="watch").inc(len(failed) + len(preempted))
        base = {
            "source": "watch",
            "target": subscription.target,
            "cluster_id": subscription.cluster_id,
            "cluster_name": subscription.cluster_name,
            "project": subscription.project,
            "window": self._window(),
            "subscriber": None if subscription.declared else subscription.subscribed_by,
        }
        items: list[tuple[str, WorkItem]] = []
        if len(failed) > self._storm_threshold:
            ids = tuple(w.id for w in failed)
            spec = PushSpec.model_validate(
                {**base, "workload_ids": ids, "storm_over": self._storm_threshold}
            )
            stamp = max(str(w.phase_updated_at) for w in failed)
            dedupe = f"watch:{subscription.id}:storm:{ids[0]}:{ids[-1]}:{stamp}"
            items.append((dedupe, push_item(spec, deadline_s=PUSH_DEADLINE_S)))
            failed = []
        for workload in [*failed, *preempted]:
            only = workload in preempted
            spec = PushSpec.model_validate(
                {**base, "workload_ids": (workload.id,), "preemption_only": only}
            )
            dedupe = f"watch:{subscription.id}:{workload.id}:{workload.phase_updated_at}"
            items.append((dedupe, push_item(spec, deadline_s=PUSH_DEADLINE_S)))
        return items

    def _window(self) -> str:
        minutes = round(self._interval_s / 60)
        return "in the last minute" if minutes <= 1 else f"in the last {minutes} minutes"

    async def _replay(self, key: str, batch: Batch | None = None) -> int:
        """Queue a batch's items (again), move the mark, drop the batch."""
        if batch is None:
            raw = await self._kv.get(f"batch:{key}")
            if raw is None:
                return 0
            batch = Batch.model_validate_json(raw)
            self._log.info("watch_batch_replayed", watch=key, items=len(batch.items))
        queued = 0
        for dedupe, item in batch.items:
            result = await admit(self._queue, item, dedupe=dedupe, dedupe_ttl_s=WATCH_DEDUPE_TTL_S)
            if result.intake is Intake.FULL:
                raise QueueUnavailable("the work queue is full")
            if result.intake is Intake.DUPLICATE:
                PUSH_SUPPRESSED.labels(reason="duplicate").inc()
            else:
                queued += 1
        await self._kv.set(f"mark:{key}", batch.mark.model_dump_json())
        await self._kv.delete(f"batch:{key}")
        return queued
