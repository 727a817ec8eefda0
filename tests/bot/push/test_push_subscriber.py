"""A pushed failure is posted only if its watch's subscriber may read it when it is posted.

The poll that found it checked the subscriber a moment before; a rule removed since is
honoured here, per workload and its kind. An access that could not be read posts nothing
and leaves the item to be tried again. A watch's notice is posted once across attempts.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from bot.app.backends import simulated
from bot.authz import Authorizer
from bot.conversation import MemoryStore, Notice, ReportReply
from bot.ops.metrics import PUSH_SUPPRESSED
from bot.push import MemoryKv, NoticeSpec, Planner, PushSpec, PushWork, Target, notice_item
from bot.push import push_item as make_item
from bot.push.subscriber import SubscriberUnchecked
from bot.work import MemoryWorkQueue, WorkItem
from runai_sim.app import Simulator
from tests.bot.push.recording import RecordingPoster
from tests.bot.push.scenes import DEMO, OOM_ID

CLUSTER = "2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92"
EVAL_ID = "fcfaaec8-47fa-404b-a64e-169ccc4af8e8"
LLAMA_ID = "9cc179ae-4b7d-44b7-98ae-eacf42d4218d"  # an inference in these tests (see `rig`)
TARGET = Target(platform="slack", team="T1", channel="D1")
#: eve reads only inferences in ml-team (the demo's "ML engineer" role on the project).
EVE_RULE = {
    "id": 90,
    "subjectId": "eve@acme.ai",
    "subjectType": "user",
    "roleId": 4,
    "roleName": "ML engineer",
    "scopeId": "3",
    "scopeType": "project",
    "scopeName": "ml-team",
    "clusterId": CLUSTER,
    "tenantId": 1001,
    "createdAt": "2025-01-10T08:00:00Z",
    "updatedAt": "2025-01-10T08:00:00Z",
    "deletedAt": None,
}


@dataclass
class Rig:
    sim: Simulator
    work: PushWork
    poster: RecordingPoster
    queue: MemoryWorkQueue

    async def run(self, item: WorkItem) -> None:
        journal = self.queue.journal(item.id)
        await self.work.run(item, journal, await journal.load())


@pytest.fixture
async def rig() -> AsyncIterator[Rig]:
    world = DEMO.model_copy(deep=True)
    assert world.access_rules is not None
    world.access_rules.append(EVE_RULE)
    for entry in world.workloads:  # one inference among ml-team's failed trainings
        if entry.workload["id"] == LLAMA_ID:
            entry.workload["type"] = "Inference"
    async with simulated(world, transport="asgi", retries=0) as up:
        assert up.simulator is not None
        poster = RecordingPoster()
        work = PushWork(
            runai=up.runai,
            kube=up.kube,
            store=MemoryStore(),
            planner=Planner(MemoryKv(), window_s=3600, max_posts_per_h=20),
            posters={"slack": poster},
            authorizer=Authorizer(up.runai),  # no cache: every check asks the simulator
            clock=lambda: world.now,
        )
        yield Rig(up.simulator, work, poster, MemoryWorkQueue(max_items=10))


def _item(*ids: str, **changes: Any) -> WorkItem:
    fields: dict[str, Any] = {
        "source": "watch",
        "target": TARGET,
        "cluster_id": CLUSTER,
        "cluster_name": "prod-a",
        "project": "ml-team",
        "workload_ids": ids or (OOM_ID,),
        "subscriber": "bob@acme.ai",
    }
    return make_item(PushSpec.model_validate(fields | changes), deadline_s=60)


@pytest.mark.parametrize(
    ("subscriber", "posted"),
    [
        (None, True),  # `WATCHES`: the installer decided
        ("bob@acme.ai", True),  # a tenant-wide viewer
        ("alice@acme.ai", True),  # a viewer of ml-team's department, through her group
        ("eve@acme.ai", False),  # reads only inferences there: not this training
        ("nobody@acme.ai", False),  # no rule at all
        ("U0123", False),  # no e-mail: no Run:ai user
    ],
)
async def test_a_failure_is_posted_only_if_its_subscriber_may_read_it_now(
    rig: Rig,
    subscriber: str | None,
    posted: bool,  # noqa: FBT001 - a table column
):
    await rig.run(_item(subscriber=subscriber))
    assert len(rig.poster.messages) == int(posted)


async def test_a_rule_removed_after_the_poll_is_honoured_when_posting(rig: Rig):
    before = PUSH_SUPPRESSED.labels(reason="subscriber_access")._value.get()
    rules = rig.sim.scenario.access_rules
    assert rules is not None
    rules[:] = [r for r in rules if r.get("subjectId") != "bob@acme.ai"]
    await rig.run(_item(OOM_ID, EVAL_ID))  # a storm: not even its summary
    await rig.run(_item())
    assert rig.poster.messages == []
    assert PUSH_SUPPRESSED.labels(reason="subscriber_access")._value.get() == before + 3


@pytest.mark.parametrize(
    ("subscriber", "summary", "answers"),
    [
        ("bob@acme.ai", "3 workloads in ml-team failed", 3),  # reads all: a storm
        ("eve@acme.ai", None, 1),  # reads the inference only: no storm of what it may not see
        ("alice@acme.ai", "3 workloads in ml-team failed", 3),
    ],
)
async def test_a_storm_counts_only_what_its_subscriber_may_read(
    rig: Rig, subscriber: str, summary: str | None, answers: int
):
    await rig.run(_item(OOM_ID, EVAL_ID, LLAMA_ID, subscriber=subscriber, storm_over=2))
    notices = [m.reply.text for m in rig.poster.messages if isinstance(m.reply, Notice)]
    reports = [m.reply for m in rig.poster.messages if isinstance(m.reply, ReportReply)]
    assert [n[: len(summary or "")] for n in notices] == ([summary] if summary else [])
    assert len(reports) == answers
    if summary is None:  # the one left is posted as any single failure: a message of its own
        [only] = rig.poster.messages
        assert only.thread is None
        assert isinstance(only.reply, ReportReply)
        assert only.reply.report.workload is not None
        assert only.reply.report.workload.id == LLAMA_ID


async def test_an_access_that_could_not_be_read_posts_nothing_and_is_tried_again(rig: Rig):
    fault = rig.sim.add_fault({"path": "/api/v1/authorization/access-rules", "status": 503})
    assert fault.count is None
    item = _item()
    with pytest.raises(SubscriberUnchecked):  # left in the queue: another attempt, later
        await rig.run(item)
    assert rig.poster.messages == []
    rig.sim.clear_faults()
    await rig.run(item)
    [posted] = rig.poster.messages
    assert isinstance(posted.reply, ReportReply)


async def test_a_notice_is_one_message_of_its_own_posted_once(rig: Rig):
    item = notice_item(
        NoticeSpec(target=TARGET, text="This channel no longer watches …"), deadline_s=60
    )
    await rig.run(item)
    await rig.run(item)  # reclaimed after a crash past the post
    [posted] = rig.poster.messages
    assert (posted.thread, posted.updates, posted.reply) == (
        None,
        1,
        Notice("This channel no longer watches …"),
    )
