"""A chat watch's subscriber is checked before every poll: stopped, narrowed, or left for later.

Least privilege on the push path: a watch shows its channel only what its subscriber's own
Run:ai access reads now. A lost access stops it (the channel told once, nothing of the
project named); a partial one posts only those kinds (told once); an access that could not
be read is neither a yes nor a revocation. `WATCHES` entries have no subscriber.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.app.backends import simulated
from bot.authz import Authorizer, AuthzMode
from bot.ops.metrics import WATCH_POLLS
from bot.push import KvUnavailable, MemoryKv, NoticeSpec, PushSpec, Target
from bot.watch.guard import notice_text
from bot.watch.poller import WatchPoller
from bot.watch.subscriptions import STOPPED, Declared, Subscription, Subscriptions
from bot.work import MemoryWorkQueue
from runai_sim.app import Simulator
from tests.bot.push.scenes import DEMO, OOM_ID, failing

CLUSTER = "2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92"
TARGET = Target(platform="slack", team="T1", channel="D1")
BOB = "bob@acme.ai"
ML_ENGINEER = 4  # the demo's role that reads inferences only
STOPPED_TEXT = (
    "This channel no longer watches project ml-team on prod-a: nothing more is posted for it. "
    "Someone who may read every kind of workload there can `watch ml-team on prod-a` again; "
    "`unwatch ml-team on prod-a` removes it."
)
NARROWED_TEXT = (
    "This channel's watch of project ml-team on prod-a now covers only inferences: failures of "
    "other kinds of workload there are no longer posted. Someone who may read every kind there "
    "can `watch ml-team on prod-a` to have them all posted again."
)
EVERY_KIND_TEXT = (
    "This channel's watch of project ml-team on prod-a covers every kind of workload again."
)


class FlakyKv(MemoryKv):
    """Fails the next `fails` hash replacements (Redis gone right after a notice is queued)."""

    fails = 0

    async def hreplace(self, key: str, field: str, old: str, new: str) -> bool:
        if self.fails > 0 and '"told":"stopped"' in new:
            self.fails -= 1
            raise KvUnavailable("Redis is unavailable (hreplace: ConnectionError)")
        return await super().hreplace(key, field, old, new)


@dataclass
class Rig:
    sim: Simulator
    kv: FlakyKv
    poller: WatchPoller
    queue: MemoryWorkQueue
    subscriptions: Subscriptions

    async def queued(self) -> tuple[list[str], list[PushSpec]]:
        """The notices' texts and the failures' specs queued since the last look."""
        taken = [d.item for d in await self.queue.take("t", 100, 0) if d.item]
        notices = [NoticeSpec.model_validate(i.responder).text for i in taken if i.kind == "notice"]
        specs = [PushSpec.model_validate(i.responder) for i in taken if i.kind != "notice"]
        return notices, specs

    async def stored(self) -> Subscription:
        [kept] = await self.subscriptions.stored()
        return kept

    def rules(self, change: Callable[[dict[str, Any]], dict[str, Any] | None]) -> None:
        """Change (or, returning None, remove) bob's access rules."""
        rules = self.sim.scenario.access_rules
        assert rules is not None
        changed = [change(r) if r.get("subjectId") == BOB else r for r in rules]
        rules[:] = [r for r in changed if r is not None]

    def fail(self, workload_id: str = OOM_ID) -> None:
        self.sim.workloads.put(failing(workload_id))


async def _rig(mode: AuthzMode = "runai", **subscription: Any) -> AsyncIterator[Rig]:
    async with simulated(DEMO.model_copy(deep=True), transport="asgi", retries=0) as up:
        assert up.simulator is not None
        kv, queue = FlakyKv(), MemoryWorkQueue(max_items=100)
        subscriptions = Subscriptions(kv)
        fields = {
            "target": TARGET,
            "cluster_id": CLUSTER,
            "cluster_name": "prod-a",
            "project": "ml-team",
            "subscribed_by": BOB,
            "since": datetime.now(UTC) - timedelta(minutes=5),
        }
        await subscriptions.add(Subscription.model_validate(fields | subscription))
        poller = WatchPoller(
            up.runai,
            up.runai,
            kv,
            subscriptions,
            queue,
            authorizer=Authorizer(up.runai, mode=mode),
            interval_s=60,
            storm_threshold=5,
        )
        yield Rig(up.simulator, kv, poller, queue, subscriptions)


@pytest.fixture
async def rig() -> AsyncIterator[Rig]:
    async for made in _rig():
        yield made


@pytest.mark.parametrize(
    ("told", "text"),
    [(STOPPED, STOPPED_TEXT), ("kinds:inferences", NARROWED_TEXT), ("", EVERY_KIND_TEXT)],
    ids=["stopped", "narrowed", "every-kind"],
)
def test_a_notice_says_what_the_watch_covers_never_whose_access_changed(told: str, text: str):
    watch = Subscription(
        target=TARGET,
        cluster_id=CLUSTER,
        cluster_name="prod-a",
        project="ml-team",
        subscribed_by=BOB,
    )
    said = notice_text(watch, told)
    assert said == text
    assert "bob" not in said
    assert "access" not in said


async def test_a_subscriber_who_lost_access_stops_the_watch_and_the_channel_is_told_once(rig: Rig):
    assert await rig.poller.poll_once() == 0
    rig.rules(lambda _: None)  # bob's only rule is removed
    rig.fail()
    assert await rig.poller.poll_once() == 0  # the failure is never queued: only a notice
    assert await rig.queued() == ([STOPPED_TEXT], [])
    kept = await rig.stored()
    assert (kept.stopped_at is not None, kept.told, kept.notices) == (True, STOPPED, 1)
    rig.sim.clear_requests()
    rig.fail()
    assert await rig.poller.poll_once() == 0
    assert await rig.queued() == ([], [])
    assert rig.sim.requests == []  # no longer polled, nor its subscriber looked up


async def test_a_subscriber_reading_some_kinds_keeps_the_watch_and_the_channel_is_told(rig: Rig):
    rig.rules(lambda r: r | {"roleId": ML_ENGINEER, "roleName": "ML engineer"})
    rig.fail()
    assert await rig.poller.poll_once() == 1
    notices, [spec] = await rig.queued()
    assert notices == [NARROWED_TEXT]
    assert (spec.workload_ids, spec.subscriber) == ((OOM_ID,), BOB)  # the push checks its kind
    assert (await rig.stored()).told == "kinds:inferences"
    rig.fail()
    assert await rig.poller.poll_once() == 1  # told already: only the failure
    rig.rules(lambda r: r | {"roleId": 2, "roleName": "Viewer"})
    assert await rig.poller.poll_once() == 0
    assert (await rig.queued())[0] == [EVERY_KIND_TEXT]
    assert (await rig.stored()).told == ""


async def test_an_access_that_could_not_be_read_is_no_answer_and_the_next_poll_catches_up(
    rig: Rig,
):
    before = WATCH_POLLS.labels(outcome="unchecked")._value.get()
    rig.sim.add_fault({"path": "/api/v1/authorization/access-rules", "status": 503})
    rig.fail()
    assert await rig.poller.poll_once() == 0  # not polled: nothing posted on unknown ...
    assert WATCH_POLLS.labels(outcome="unchecked")._value.get() == before + 1
    kept = await rig.stored()
    assert (kept.stopped_at, kept.told) == (None, "")  # ... and nothing stopped
    rig.sim.clear_faults()
    assert await rig.poller.poll_once() == 1
    assert [s.workload_ids for s in (await rig.queued())[1]] == [(OOM_ID,)]


@pytest.mark.parametrize(
    ("mode", "subscription", "stops"),
    [
        ("runai", {"subscribed_by": "U0123"}, True),  # made while AUTHZ_MODE=off: no Run:ai user
        ("off", {}, False),  # AUTHZ_MODE=off: everyone reads everything
    ],
    ids=["no e-mail", "authorization off"],
)
async def test_who_has_no_access_to_check(
    mode: AuthzMode,
    subscription: dict[str, Any],
    stops: bool,  # noqa: FBT001 - a table column
):
    async for rig in _rig(mode, **subscription):
        rig.rules(lambda _: None)
        rig.fail()
        await rig.poller.poll_once()
        notices, specs = await rig.queued()
        assert ((await rig.stored()).stopped_at is not None) is stops
        assert len(notices) == int(stops)
        assert len(specs) == int(not stops)


async def test_a_declared_watch_has_no_subscriber_to_check(rig: Rig):
    declared = [Declared(channel="C7", project="ml-team", cluster="prod-a")]
    poller = WatchPoller(
        rig.poller._lister,
        rig.poller._runai,
        rig.kv,
        Subscriptions(rig.kv, declared),
        rig.queue,
        authorizer=rig.poller._guard._authorizer,
        interval_s=60,
        storm_threshold=5,
    )
    await rig.subscriptions.remove(TARGET, CLUSTER, "ml-team")
    assert await poller.poll_once() == 0  # marks where it starts
    rig.sim.add_fault({"path": "/api/v1/authorization/access-rules", "status": 503})
    rig.fail()
    assert await poller.poll_once() == 1
    [spec] = (await rig.queued())[1]
    assert (spec.target.channel, spec.subscriber) == ("C7", None)


async def test_a_watch_removed_while_its_subscriber_was_checked_is_not_brought_back(rig: Rig):
    [(kept, raw)] = await rig.subscriptions.entries()
    rig.rules(lambda _: None)
    await rig.subscriptions.remove(TARGET, CLUSTER, "ml-team")  # `unwatch`, meanwhile
    assert not await rig.poller._guard.admits(kept, raw)
    assert await rig.subscriptions.stored() == []
    assert await rig.queued() == ([], [])


async def test_the_stop_notice_is_queued_once_through_a_crash(rig: Rig):
    rig.rules(lambda _: None)
    rig.kv.fails = 1  # the notice is queued, then Redis fails before it is marked told
    with pytest.raises(KvUnavailable):
        await rig.poller.poll_once()
    assert await rig.poller.poll_once() == 0  # queued again: a duplicate, dropped
    assert await rig.queued() == ([STOPPED_TEXT], [])
    assert (await rig.stored()).told == STOPPED
