"""The push handler: each failure posted once, in its place, and only what the channel may see.

One message per failure, the same failure in its thread, storms, overflow, nothing outside
what the channel was given, and a second attempt that shows nothing twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from bot.app.backends import Backends, simulated
from bot.app.demo.scenarios import bundled_scenario
from bot.authz import Authorizer
from bot.conversation import (
    ConversationState,
    MemoryStore,
    Notice,
    ReportReply,
    Slots,
    ThreadKey,
)
from bot.conversation.answers import clicked
from bot.conversation.parse import Expecting
from bot.conversation.store import ThreadBusy
from bot.push import MemoryKv, Planner, PushSpec, PushWork, Target, push_item
from bot.push.alert_answers import AlertStillFiring
from bot.push.item import PENDING, AlertSpec, Pending, alert_item
from bot.render.actions import report_target
from bot.work import JournalState, MemoryWorkQueue, WorkItem
from runai_sim.scenario import Scenario
from tests.bot.push.recording import CrashedError, RecordingPoster
from tests.bot.push.scenes import DEMO, NLP_ID, OOM_ID
from tests.diagnosis.department_limit import FIGURES as LIMIT_FIGURES
from tests.diagnosis.department_limit import WORKLOAD_ID as LIMITED_ID
from tests.diagnosis.department_limit import over_department_limit

CLUSTER = "2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92"
EVAL_ID = "fcfaaec8-47fa-404b-a64e-169ccc4af8e8"  # eval-harness, ml-team, Failed
LLAMA_ID = "9cc179ae-4b7d-44b7-98ae-eacf42d4218d"  # llama-sft-qlora, ml-team, Failed
TARGET = Target(platform="slack", team="T1", channel="C1")
DM = Target(platform="slack", team="T1", channel="D1")


class LockingStore(MemoryStore):
    """A `MemoryStore` that records the threads locked, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.locked: list[ThreadKey] = []

    def lock(self, key: ThreadKey, *, wait_s: float | None = None) -> Any:
        self.locked.append(key)
        return super().lock(key, wait_s=wait_s)


@dataclass
class Rig:
    work: PushWork
    poster: RecordingPoster
    queue: MemoryWorkQueue
    store: LockingStore

    async def run(self, item: WorkItem) -> None:
        journal = self.queue.journal(item.id)
        await self.work.run(item, journal, await journal.load())


class Threads:
    """An `AlertResolver` that only remembers threads (the routing has its own tests)."""

    def __init__(self) -> None:
        self.kept: dict[str, tuple[Target, str] | Pending] = {}

    async def resolve(self, alert: AlertSpec) -> PushSpec | None:
        if alert.fingerprint == "unmapped":
            return None
        return _spec(OOM_ID, source="alert", alert_key=alert.key)

    async def started(self, alert_key: str) -> None:
        self.kept.setdefault(alert_key, PENDING)

    async def dropped(self, alert_key: str) -> None:
        if self.kept.get(alert_key) == PENDING:
            del self.kept[alert_key]

    async def thread_of(self, alert: AlertSpec) -> tuple[Target, str] | Pending | None:
        return self.kept.get(alert.key)

    async def posted(self, alert_key: str, target: Target, thread: str) -> None:
        self.kept[alert_key] = (target, thread)


def _spec(*ids: str, **changes: Any) -> PushSpec:
    fields: dict[str, Any] = {
        "source": "watch",
        "target": TARGET,
        "cluster_id": CLUSTER,
        "cluster_name": "prod-a",
        "project": "ml-team",
        "workload_ids": ids,
    }
    return PushSpec.model_validate(fields | changes)


def _work(
    up: Backends, scenario: Scenario, poster: RecordingPoster, store: MemoryStore
) -> PushWork:
    """The handler over `up`, posting with `poster`, at `scenario`'s time."""
    return PushWork(
        runai=up.runai,
        kube=up.kube,
        store=store,
        # A group's lock is waited for 0.2 s, a conversation's half that (not 30 s and 15).
        planner=Planner(MemoryKv(), window_s=3600, max_posts_per_h=3, lock_wait_s=0.2),
        posters={"slack": poster},
        authorizer=Authorizer(up.runai),
        alerts=Threads(),
        clock=lambda: scenario.now,
        resolution_wait_s=0.5,
    )


@pytest.fixture
async def rig() -> AsyncIterator[Rig]:
    async with simulated(DEMO, transport="asgi") as up:
        poster, store, queue = RecordingPoster(), LockingStore(), MemoryWorkQueue(max_items=50)
        yield Rig(_work(up, DEMO, poster, store), poster, queue, store)


def _item(spec: PushSpec) -> WorkItem:
    return push_item(spec, deadline_s=60)


def _text(reply: object) -> str:
    if isinstance(reply, ReportReply):
        return f"{reply.report.category} {reply.report.workload.name if reply.report.workload else ''} {reply.notes}"
    assert isinstance(reply, Notice)
    return reply.text


async def test_a_failure_is_a_message_then_the_same_failure_goes_into_its_thread(rig: Rig):
    await rig.run(_item(_spec(OOM_ID)))
    [root] = rig.poster.roots()
    assert isinstance(root.reply, ReportReply)
    assert root.reply.report.workload is not None
    assert root.reply.report.workload.name == "training-job-42"
    assert "watches project ml-team on prod-a" in root.reply.notes[-1]
    saved = await rig.store.load(TARGET.key(root.ref))
    assert saved is not None  # its buttons find the report, as an asked answer's do
    assert saved.last_report == root.reply.report

    await rig.run(_item(_spec(OOM_ID)))
    await rig.run(_item(_spec(OOM_ID)))
    replies = rig.poster.in_thread(root.ref)
    assert [r.reply.notes[0] for r in replies if isinstance(r.reply, ReportReply)] == [
        "2nd time in 1 min",
        "3rd time in 1 min",
    ]
    assert len(rig.poster.roots()) == 1


async def test_a_second_attempt_updates_what_the_first_posted_and_counts_once(rig: Rig):
    item = _item(_spec(OOM_ID))
    await rig.run(item)
    await rig.run(item)  # reclaimed after a crash past the post
    [root] = rig.poster.messages
    assert root.updates == 1
    again = _item(_spec(OOM_ID))
    await rig.run(again)
    [reply] = rig.poster.in_thread(root.ref)
    assert isinstance(reply.reply, ReportReply)
    assert reply.reply.notes[0] == "2nd time in 1 min"


async def test_a_storm_is_one_summary_with_each_answer_in_its_thread(rig: Rig):
    await rig.run(_item(_spec(OOM_ID, EVAL_ID, LLAMA_ID, window="in the last minute")))
    [summary] = rig.poster.roots()
    assert isinstance(summary.reply, Notice)
    assert summary.reply.text.startswith("3 workloads in ml-team failed in the last minute: ")
    answers = rig.poster.in_thread(summary.ref)
    names = {
        r.reply.report.workload.name
        for r in answers
        if isinstance(r.reply, ReportReply) and r.reply.report.workload
    }
    assert names == {"training-job-42", "eval-harness", "llama-sft-qlora"}
    saved = await rig.store.load(TARGET.key(summary.ref))
    assert saved is not None
    for answer in answers:  # each answer's buttons find that answer, not the storm's last
        assert isinstance(answer.reply, ReportReply)
        shown = clicked(saved, report_target(answer.reply.report, "24h"))
        assert shown is not None
        assert shown.last_report == answer.reply.report


async def test_a_crashed_storm_is_finished_by_the_next_attempt_without_repeats(rig: Rig):
    item = _item(_spec(OOM_ID, EVAL_ID, LLAMA_ID))
    rig.poster.fail_after = 2
    with pytest.raises(CrashedError):
        await rig.run(item)
    rig.poster.fail_after = None
    await rig.run(item)
    assert len(rig.poster.messages) == 4
    assert [m.updates for m in rig.poster.messages] == [1, 1, 0, 0]


def _asked_in_the_dm(**changes: Any) -> ConversationState:
    """The DM's conversation: U1 asked about eval-harness there (its answer is the last)."""
    slots = Slots(cluster_id=CLUSTER, cluster_label="prod-a", workload_id=EVAL_ID)
    return ConversationState(slots=slots, asker="U1", started_by="U1", **changes)


async def _eval_harness(rig: Rig) -> ReportReply:
    """An answer about eval-harness, as a push would post it (its report)."""
    await rig.run(_item(_spec(EVAL_ID, target=Target(platform="slack", channel="C9"))))
    [posted] = rig.poster.roots()
    assert isinstance(posted.reply, ReportReply)
    rig.poster.messages.clear()
    return posted.reply


@pytest.mark.parametrize(
    "question",
    [{}, {"expecting": Expecting.CLUSTER, "question": "Which cluster?"}],
    ids=["answered", "a question waiting"],
)
async def test_a_failure_pushed_to_a_dm_s_top_level_is_kept_in_its_one_conversation(
    rig: Rig, question: dict[str, Any]
):
    """A click at a DM's top level continues the DM's conversation (`im`): kept there."""
    asked = (await _eval_harness(rig)).report
    before = _asked_in_the_dm(last_report=asked, last_lookback="24h", report_for="U1", **question)
    await rig.store.save(DM.key("im"), before)
    rig.store.locked.clear()
    await rig.run(_item(_spec(OOM_ID, target=DM)))
    [root] = rig.poster.roots()
    assert isinstance(root.reply, ReportReply)
    assert await rig.store.load(DM.key(root.ref)) is None, "a click there never looks there"
    assert rig.store.locked == [DM.key("im")], "held from before the post until it is kept"
    saved = await rig.store.load(DM.key("im"))
    assert saved is not None
    for report in (root.reply.report, asked):  # each answer's buttons find that answer
        shown = clicked(saved, report_target(report, "24h"))
        assert shown is not None
        assert shown.last_report == report
    assert saved.asker == "U1"
    if question:  # the DM's question and what it gathered stay as they were
        assert saved.model_copy(update={"earlier": (), "updated_at": None}) == before
    else:
        assert saved.last_report == root.reply.report


async def test_a_failure_pushed_into_a_dm_thread_is_kept_in_that_thread(rig: Rig):
    await rig.run(_item(_spec(OOM_ID, target=DM)))
    await rig.run(_item(_spec(OOM_ID, target=DM)))  # the same failure: into the root's thread
    [root] = rig.poster.roots()
    [reply] = rig.poster.in_thread(root.ref)
    assert isinstance(reply.reply, ReportReply)
    saved = await rig.store.load(DM.key(root.ref))
    assert saved is not None
    assert saved.last_report == reply.reply.report


async def test_a_push_into_a_dm_whose_question_waits_keeps_both_answers_apart(rig: Rig):
    """The DM's last answer is about the pushed workload: each answer's buttons act on it."""
    asked = (await _eval_harness(rig)).report
    older = asked.model_copy(update={"headline": "the answer the asker was given earlier"})
    before = _asked_in_the_dm(
        last_report=older,
        last_lookback="24h",
        report_for="U1",
        expecting=Expecting.WORKLOAD,
        question="Did you mean a past run?",
    )
    await rig.store.save(DM.key("im"), before)
    await rig.run(_item(_spec(EVAL_ID, target=DM)))
    [root] = rig.poster.roots()
    assert isinstance(root.reply, ReportReply)
    saved = await rig.store.load(DM.key("im"))
    assert saved is not None
    assert saved.question == "Did you mean a past run?", "the DM's question still waits"
    on_pushed = clicked(saved, report_target(root.reply.report, "24h"))
    on_older = clicked(saved, report_target(older, "24h"))
    assert on_pushed is not None
    assert on_older is not None
    assert on_pushed.last_report == root.reply.report
    assert on_older.last_report == older


async def test_a_dm_busy_with_a_turn_leaves_the_failure_pending_and_its_group_whole(rig: Rig):
    """Never waiting for the DM while holding the group's lock past the group's own wait."""
    first, second = _item(_spec(OOM_ID, target=DM)), _item(_spec(OOM_ID, target=DM))
    async with rig.store.lock(DM.key("im")):  # a person's turn in the DM, however long
        async with asyncio.timeout(10):  # only so that the old code's wait fails, not hangs
            with pytest.raises(ThreadBusy):  # left pending: the queue tries it again
                await rig.run(first)
    assert rig.poster.messages == []
    await rig.run(second)  # the same failure again: the group was let go, it posts
    await rig.run(first)  # tried again: planned afresh, so it joins the thread
    [root] = rig.poster.roots()
    assert [m.thread for m in rig.poster.messages] == [None, root.ref]
    await rig.run(first)  # delivered once more: nothing twice
    assert len(rig.poster.messages) == 2


async def test_past_the_hourly_budget_answers_go_into_one_overflow_thread(rig: Rig):
    for workload in (OOM_ID, EVAL_ID, LLAMA_ID):
        await rig.run(_item(_spec(workload)))
    assert len(rig.poster.roots()) == 3
    distinct = "resnet-ddp"  # not in ml-team: a spec of its own project
    await rig.run(_item(_spec("6bebb1d3-3410-4541-9f66-a76ad405eeb6", project="vision")))
    await rig.run(_item(_spec(NLP_ID, project="nlp")))
    roots = rig.poster.roots()
    assert len(roots) == 4
    assert isinstance(roots[-1].reply, Notice)
    assert "More than 3 failures were posted" in roots[-1].reply.text
    overflowed = rig.poster.in_thread(roots[-1].ref)
    assert len(overflowed) == 2
    assert distinct in _text(overflowed[0].reply)


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param({"project": "vision"}, id="another project"),
        pytest.param({"cluster_id": "00000000-0000-4000-8000-000000000001"}, id="another cluster"),
        pytest.param({"kinds": ("Inference",)}, id="a kind the channel was not given"),
        pytest.param({"preemption_only": True}, id="a failure where a preemption was asked"),
    ],
)
async def test_nothing_outside_what_the_channel_was_given_is_posted(
    rig: Rig, changes: dict[str, Any]
):
    await rig.run(_item(_spec(OOM_ID, **changes)))
    assert rig.poster.messages == []


async def test_a_platform_this_process_cannot_post_to_gets_nothing(rig: Rig):
    teams = Target(platform="teams", channel="19:abc@thread.tacv2")
    await rig.run(_item(_spec(OOM_ID, target=teams)))
    assert rig.poster.messages == []


async def test_an_alert_is_answered_and_its_resolution_noted_in_the_thread(rig: Rig):
    firing = AlertSpec(
        fingerprint="f", starts_at="s", status="firing", alertname="KubePodCrashLooping"
    )
    resolved = firing.model_copy(update={"status": "resolved", "ends_at": "2026-11-26T10:00:00Z"})
    unknown = resolved.model_copy(update={"fingerprint": "never-posted"})
    await rig.run(alert_item(resolved.model_copy(update={"fingerprint": "x"}), deadline_s=60))
    await rig.run(alert_item(firing, deadline_s=60))
    await rig.run(alert_item(resolved, deadline_s=60))
    await rig.run(alert_item(unknown, deadline_s=60))
    [root] = rig.poster.roots()
    assert "Alertmanager alert" in root.reply.notes[-1]  # type: ignore[union-attr]
    [note] = rig.poster.in_thread(root.ref)
    assert _text(note.reply) == (
        "Resolved: Alertmanager says KubePodCrashLooping ended at 2026-11-26T10:00:00Z."
    )


async def test_giving_up_tells_nobody(rig: Rig):
    await rig.work.give_up(_item(_spec(OOM_ID)), JournalState(), "gave up")
    assert rig.poster.messages == []


async def test_a_resolution_waits_for_its_firing_alert_being_answered(rig: Rig):
    firing = AlertSpec(fingerprint="f", starts_at="s", status="firing", alertname="A")
    resolved = firing.model_copy(update={"status": "resolved"})
    threads = rig.work._alerts
    assert isinstance(threads, Threads)
    await threads.started(firing.key)
    with pytest.raises(AlertStillFiring):  # never answered within the wait: tried again later
        await rig.run(alert_item(resolved, deadline_s=60))

    async def answer_soon() -> None:
        await asyncio.sleep(0.2)
        await rig.run(alert_item(firing, deadline_s=60))

    task = asyncio.create_task(answer_soon())
    await rig.run(alert_item(resolved, deadline_s=60))
    await task
    [root] = rig.poster.roots()
    [note] = rig.poster.in_thread(root.ref)
    assert _text(note.reply) == "Resolved: Alertmanager says A ended."


async def test_an_alert_that_maps_to_nothing_leaves_nothing_to_wait_for(rig: Rig):
    unmapped = AlertSpec(fingerprint="unmapped", starts_at="s", status="firing")
    await rig.run(alert_item(unmapped, deadline_s=60))
    resolved = unmapped.model_copy(update={"status": "resolved"})
    await rig.run(alert_item(resolved, deadline_s=60))
    assert rig.poster.messages == []


#: Scenarios whose answers could carry a department's figures (ml-platform, id 1, and research).
DEPARTMENTS = {
    "preempted-reclaim-department": ("87ae0032-f5e5-551c-97a8-6ce3e9493bc2", ("uses 30 GPUs", "uses 10 GPUs")),
    "pending-department-over-quota": ("2816f8f8-5574-5784-99f2-3fae4a1754bb", ("14 of 8", "get_department")),
}  # fmt: skip


async def _pushed(scenario: Scenario, workload_id: str) -> tuple[str, list[str]]:
    """What a push of `workload_id` to a channel of ml-team posts, and what it read."""
    async with simulated(scenario, transport="asgi") as up:
        assert up.simulator is not None
        poster, store = RecordingPoster(), MemoryStore()
        work = _work(up, scenario, poster, store)
        spec = _spec(workload_id, cluster_id=scenario.clusters[0]["uuid"])
        item = _item(spec)
        journal = MemoryWorkQueue(max_items=5).journal(item.id)
        await work.run(item, journal, await journal.load())
        read = [r.path for r in up.simulator.requests]
    [root] = poster.roots()
    assert isinstance(root.reply, ReportReply)
    return root.reply.report.model_dump_json(), read


@pytest.mark.parametrize("name", DEPARTMENTS)
async def test_a_channel_is_never_shown_a_departments_figures(name: str):
    """A channel is given a project: a department's quota and usage sum other projects'."""
    workload_id, figures = DEPARTMENTS[name]
    said, read = await _pushed(bundled_scenario(name), workload_id)
    for figure in figures:
        assert figure not in said, figure
    assert not any(p.startswith("/api/v1/org-unit/departments/") for p in read)


async def test_a_channel_is_never_shown_what_the_scheduler_says_of_a_departments_limit():
    """The scheduler's typed reason at the department's level: its reason, none of its figures."""
    said, read = await _pushed(over_department_limit(), LIMITED_ID)
    for figure in LIMIT_FIGURES:
        assert figure not in said, figure
    assert "Over the department's GPUs limit in node pool default" in said
    assert "(the department's figures: not shown here)" in said
    assert not any(p.startswith("/api/v1/org-unit/departments/") for p in read)


async def test_a_channel_is_never_shown_the_reclaimers_queue():
    """llama-sft-qlora (ml-team) was reclaimed by serve-llama-70b: nlp's queue is nlp's."""
    qlora = next(w.id for w in DEMO.workloads if w.workload["name"] == "llama-sft-qlora")
    said, _ = await _pushed(DEMO, qlora)
    for leaked in ("serve-llama-70b", "8 GPUs with a quota of 16", "8 of its 16"):
        assert leaked not in said, leaked
    assert "ml-team uses 14 GPUs with a quota of 12 GPUs" in said  # the channel's own
