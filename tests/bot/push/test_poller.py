"""The watch poller: new failures queued once, storms, preemptions, declared watches, crashes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from bot.app.backends import simulated
from bot.authz import Authorizer
from bot.ops.metrics import WATCH_POLLS
from bot.push import KvUnavailable, MemoryKv, PushSpec, Target
from bot.watch.poller import LEASE_KEY, Changed, WatchPoller
from bot.watch.subscriptions import Declared, Subscription, Subscriptions
from bot.work import Enqueued, MemoryWorkQueue, QueueUnavailable, WorkItem
from runai_sim.app import Simulator
from tests.bot.push.scenes import DEMO, NLP_ID, OOM_ID, failing

CLUSTER = "2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92"
EVAL_ID = "fcfaaec8-47fa-404b-a64e-169ccc4af8e8"
LLAMA_ID = "9cc179ae-4b7d-44b7-98ae-eacf42d4218d"
TARGET = Target(platform="slack", team="T1", channel="C1")
SINCE = datetime.now(UTC) - timedelta(minutes=5)


class CrashingQueue(MemoryWorkQueue):
    """Takes `ok` items, then "dies" (raises) on the next enqueue."""

    def __init__(self, ok: int) -> None:
        super().__init__(max_items=100)
        self.ok = ok

    async def enqueue(self, item: WorkItem, *, dedupe: str, dedupe_ttl_s: int) -> Enqueued:
        if self.ok <= 0:
            raise QueueUnavailable("down")
        self.ok -= 1
        return await super().enqueue(item, dedupe=dedupe, dedupe_ttl_s=dedupe_ttl_s)


class BlippingKv(MemoryKv):
    """Fails the next `blips` renewals (Redis out of reach for a moment)."""

    def __init__(self) -> None:
        super().__init__()
        self.blips = self.blipped = 0

    async def renew(self, key: str, value: str, ttl_s: float) -> bool:
        if self.blips > 0:
            self.blips, self.blipped = self.blips - 1, self.blipped + 1
            raise KvUnavailable("Redis is unavailable (renew: ConnectionError)")
        return await super().renew(key, value, ttl_s)


@dataclass
class Rig:
    sim: Simulator
    poller: WatchPoller
    queue: MemoryWorkQueue
    subscriptions: Subscriptions
    authorizer: Authorizer

    async def queued(self) -> list[PushSpec]:
        taken = await self.queue.take("t", 100, 0)
        return [PushSpec.model_validate(d.item.responder) for d in taken if d.item]


def _subscription(project: str = "ml-team", **changes: object) -> Subscription:
    return Subscription.model_validate(
        {
            "target": TARGET,
            "cluster_id": CLUSTER,
            "cluster_name": "prod-a",
            "project": project,
            "since": SINCE,
            "subscribed_by": "bob@acme.ai",
        }
        | changes
    )


@pytest.fixture
async def rig() -> AsyncIterator[Rig]:
    async with simulated(DEMO.model_copy(deep=True), transport="asgi") as up:
        assert up.simulator is not None
        kv, queue = MemoryKv(), MemoryWorkQueue(max_items=100)
        subscriptions = Subscriptions(kv)
        await subscriptions.add(_subscription())
        authorizer = Authorizer(up.runai)
        poller = WatchPoller(
            up.runai,
            up.runai,
            kv,
            subscriptions,
            queue,
            authorizer=authorizer,
            interval_s=60,
            storm_threshold=2,
        )
        yield Rig(up.simulator, poller, queue, subscriptions, authorizer)


def _fail(rig: Rig, *ids: str, at: datetime | None = None) -> None:
    for workload_id in ids:
        rig.sim.workloads.put(failing(workload_id, at=at))


async def test_a_new_failure_is_queued_once_and_old_ones_never(rig: Rig):
    assert await rig.poller.poll_once() == 0  # the demo's failures are older than the watch
    _fail(rig, OOM_ID, NLP_ID)  # nlp is not watched
    assert await rig.poller.poll_once() == 1
    [spec] = await rig.queued()
    assert (spec.workload_ids, spec.project, spec.target) == ((OOM_ID,), "ml-team", TARGET)
    assert await rig.poller.poll_once() == 0
    _fail(rig, OOM_ID)  # failed again: a new phase change
    assert await rig.poller.poll_once() == 1


async def test_failures_at_the_same_instant_are_each_queued_once(rig: Rig):
    moment = datetime.now(UTC)
    _fail(rig, OOM_ID, at=moment)
    assert await rig.poller.poll_once() == 1
    _fail(rig, EVAL_ID, at=moment)  # listed after the first poll, with the same change time
    assert await rig.poller.poll_once() == 1
    assert await rig.poller.poll_once() == 0


async def test_more_than_the_threshold_at_once_is_one_storm(rig: Rig):
    _fail(rig, OOM_ID, EVAL_ID, LLAMA_ID)
    assert await rig.poller.poll_once() == 1
    [storm] = await rig.queued()
    assert set(storm.workload_ids) == {OOM_ID, EVAL_ID, LLAMA_ID}
    assert storm.window == "in the last minute"
    assert storm.storm_over == 2, "the push posts a storm only if more than this may be shown"


async def test_a_crash_between_queueing_and_the_mark_loses_and_doubles_nothing(rig: Rig):
    crashing = CrashingQueue(ok=1)
    kv = MemoryKv()
    subscriptions = Subscriptions(kv)
    await subscriptions.add(_subscription())
    poller = WatchPoller(
        rig.poller._lister,
        rig.poller._runai,
        kv,
        subscriptions,
        crashing,
        authorizer=rig.authorizer,
        interval_s=60,
        storm_threshold=5,
    )
    _fail(rig, OOM_ID, EVAL_ID)
    assert await poller.poll_once() == 0  # one queued, then the queue "died"
    assert await kv.get(f"batch:{_subscription().id}") is not None
    crashing.ok = 100
    assert await poller.poll_once() == 1  # the batch again: the first is a duplicate
    assert await kv.get(f"batch:{_subscription().id}") is None
    assert len(await crashing.take("t", 100, 0)) == 2
    assert await poller.poll_once() == 0


async def test_preemptions_are_queued_only_for_subscriptions_that_ask(rig: Rig):
    entry = DEMO.workload(OOM_ID)
    assert entry is not None
    moment = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    workload = entry.workload | {
        "phase": "Pending",
        "phaseUpdatedAt": moment,
        "totalRunningTimeSeconds": 600,
    }
    rig.sim.workloads.put(entry.model_copy(update={"workload": workload}))
    assert await rig.poller.poll_once() == 0
    other = Target(platform="slack", team="T1", channel="C2")
    await rig.subscriptions.add(_subscription(preemptions=True, target=other))
    assert await rig.poller.poll_once() == 1
    [spec] = await rig.queued()
    assert (spec.preemption_only, spec.target) == (True, other)


async def test_watched_again_after_an_unwatch_it_starts_afresh(rig: Rig):
    assert await rig.poller.poll_once() == 0
    await rig.subscriptions.remove(TARGET, CLUSTER, "ml-team")
    _fail(rig, OOM_ID)  # while nobody watched
    await rig.subscriptions.add(_subscription(since=datetime.now(UTC) + timedelta(seconds=1)))
    assert await rig.poller.poll_once() == 0


async def test_declared_watches_are_polled_by_cluster_name(rig: Rig):
    kv, queue = MemoryKv(), MemoryWorkQueue(max_items=10)
    declared = [
        Declared(channel="C7", project="ml-team", cluster="prod-a"),
        Declared(channel="C8", project="ml-team", cluster="prod-z"),  # unknown: logged, skipped
    ]
    poller = WatchPoller(
        rig.poller._lister,
        rig.poller._runai,
        kv,
        Subscriptions(kv, declared),
        queue,
        authorizer=rig.authorizer,
        interval_s=60,
        storm_threshold=5,
    )
    assert await poller.poll_once() == 0  # the first poll marks where the watch starts
    _fail(rig, OOM_ID)
    assert await poller.poll_once() == 1
    [delivery] = await queue.take("t", 10, 0)
    assert delivery.item is not None
    assert PushSpec.model_validate(delivery.item.responder).target.channel == "C7"


async def test_a_failed_list_is_counted_and_the_next_poll_catches_up(rig: Rig):
    before = WATCH_POLLS.labels(outcome="failed")._value.get()
    rig.sim.add_fault({"path": "/api/v1/workloads", "status": 503, "count": 4})
    _fail(rig, OOM_ID)
    assert await rig.poller.poll_once() == 0
    assert WATCH_POLLS.labels(outcome="failed")._value.get() == before + 1
    assert await rig.poller.poll_once() == 1


async def test_one_poller_holds_the_lease_until_it_stops(rig: Rig):
    kv = MemoryKv()
    args = (
        rig.poller._lister,
        rig.poller._runai,
        kv,
        Subscriptions(kv),
        MemoryWorkQueue(max_items=1),
    )
    first = WatchPoller(*args, authorizer=rig.authorizer, interval_s=60, storm_threshold=5)
    second = WatchPoller(*args, authorizer=rig.authorizer, interval_s=60, storm_threshold=5)
    assert await first.hold()
    assert not await second.hold()
    assert await first.hold()  # renewed
    await first.stop()
    assert await second.hold()


class Slow:
    """A control plane whose every list waits for `release`; `polled` names each project asked."""

    def __init__(self) -> None:
        self.polling, self.release = asyncio.Event(), asyncio.Event()
        self.polled: list[str] = []

    async def list_changed_workloads(
        self, *, cluster_id: str, project: str, since: datetime
    ) -> list[Changed]:
        del cluster_id, since
        self.polled.append(project)
        self.polling.set()
        await self.release.wait()
        return []


async def test_a_redis_blip_while_polling_does_not_end_the_lease(rig: Rig):
    """One failed renewal is tried again at the next: the lease outlives a long poll."""
    kv = BlippingKv()
    subscriptions = Subscriptions(kv)
    await subscriptions.add(_subscription())
    slow = Slow()
    args = (rig.poller._runai, kv, subscriptions, MemoryWorkQueue(max_items=1))
    poller = WatchPoller(slow, *args, authorizer=rig.authorizer, interval_s=60, storm_threshold=5)
    poller._lease_s = 0.6  # renewed every 0.2 s
    poller.start()
    await slow.polling.wait()
    kv.blips = 1
    await asyncio.sleep(1.5)  # the lease's TTL more than twice over
    assert kv.blipped == 1
    assert not await WatchPoller(
        Slow(), *args, authorizer=rig.authorizer, interval_s=60, storm_threshold=5
    ).hold()
    slow.release.set()
    await poller.stop()


async def test_the_loop_polls_every_interval_and_survives_a_crashing_poll(rig: Rig):
    kv = MemoryKv()
    subscriptions = Subscriptions(kv)
    await subscriptions.add(_subscription())
    calls = 0

    class Flaky:
        async def list_changed_workloads(
            self, *, cluster_id: str, project: str, since: datetime
        ) -> list[Changed]:
            del cluster_id, project, since
            nonlocal calls
            calls += 1
            if calls == 1:
                raise RuntimeError("a bug, once")
            return []

    poller = WatchPoller(
        Flaky(),
        rig.poller._runai,
        kv,
        subscriptions,
        MemoryWorkQueue(max_items=1),
        authorizer=rig.authorizer,
        interval_s=0.05,
        storm_threshold=5,
    )
    poller.start()
    async with asyncio.timeout(5):
        while calls < 3:  # noqa: ASYNC110 - counting the poller's calls
            await asyncio.sleep(0.01)
    await poller.stop()
    assert calls >= 3


async def test_a_poll_whose_lease_another_replica_took_stops_at_its_next_watch(rig: Rig):
    """Two replicas polling the same watches at once could queue one failure twice."""
    kv = MemoryKv()
    subscriptions = Subscriptions(kv)
    for project in ("ml-team", "nlp", "vision"):
        await subscriptions.add(_subscription(project))
    slow = Slow()
    args = (rig.poller._runai, kv, subscriptions, MemoryWorkQueue(max_items=1))
    poller = WatchPoller(slow, *args, authorizer=rig.authorizer, interval_s=60, storm_threshold=5)
    poller._lease_s = 0.6  # renewed every 0.2 s
    poller.start()
    await slow.polling.wait()
    await kv.release(LEASE_KEY, poller._token)  # its lease expired (a long pause) ...
    assert await WatchPoller(
        Slow(), *args, authorizer=rig.authorizer, interval_s=60, storm_threshold=5
    ).hold()  # ... taken
    await asyncio.sleep(0.5)  # a renewal finds it another's
    slow.release.set()
    await asyncio.sleep(0.1)
    await poller.stop()
    assert len(slow.polled) == 1
