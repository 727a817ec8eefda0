"""The conversation engine over the real client and simulator: slots, questions, reports."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import redis.asyncio
import structlog.testing

from bot.app.demo.scenarios import bundled_scenario
from bot.conversation import (
    Incoming,
    Notice,
    Question,
    RedisStore,
    Reply,
    ReportReply,
    ThreadKey,
)
from bot.conversation.messages import STATE_NOT_SAVED
from diagnosis import Category, Outcome
from runai_sim.faults import FaultRule
from tests.bot.conversation.harness import Harness, Recorder, harness
from tests.throwaway_redis import start_throwaway_redis

DEMO = bundled_scenario("demo")
PROD_A = DEMO.clusters[0]["uuid"]
EVERYTHING = "why did training-job-42 in ml-team fail on cluster prod-a?"


@pytest.fixture
async def demo() -> AsyncIterator[Harness]:
    async for h in harness(DEMO):
        yield h


async def test_everything_given_posts_one_notice_then_updates_it_with_the_report(demo):
    """'Diagnosing …' is posted once and replaced in place by the category-first report."""
    recorder = await demo.say("why did training-job-42 in ml-team fail on cluster prod-a?")
    assert [action for action, _ in recorder.log] == ["post", "update 1"]
    notice, report = recorder.log[0][1], recorder.last()
    assert isinstance(notice, Notice)
    assert notice.text == "Diagnosing training-job-42 in ml-team on prod-a…"
    assert notice.progress, "the placeholder says it is one, for the front end's progress"
    assert isinstance(report, ReportReply)
    assert report.report.category is Category.OOM_KILLED


async def test_missing_cluster_is_asked_with_the_clusters_as_buttons_then_filled(demo):
    asked = (await demo.say("why did training-job-42 in ml-team fail?")).last()
    assert isinstance(asked, Question)
    assert "cluster" in asked.text.lower()
    assert [c.label for c in asked.choices] == ["prod-a"]
    report = (await demo.say("prod-a", directed=False)).last()
    assert isinstance(report, ReportReply)
    assert report.report.workload is not None
    assert report.report.workload.cluster_id == PROD_A


async def test_cluster_button_continues_the_thread(demo):
    await demo.say("why did training-job-42 in ml-team fail?")
    report = (await demo.click(f"cluster:{PROD_A}")).last()
    assert isinstance(report, ReportReply)


async def test_unknown_cluster_name_is_never_guessed(demo):
    asked = (await demo.say("why did training-job-42 in ml-team fail on cluster prod")).last()
    assert isinstance(asked, Question)
    assert "I don't know a cluster called 'prod'" in asked.text
    assert [c.value for c in asked.choices] == [f"cluster:{PROD_A}"]


async def test_missing_project_names_exactly_what_is_missing(demo):
    asked = (await demo.say("what happened to resnet-ddp on cluster prod-a")).last()
    assert isinstance(asked, Question)
    assert asked.text == "Which project is `resnet-ddp` in?"
    report = (await demo.say("vision", directed=False)).last()
    assert isinstance(report, ReportReply)
    assert report.report.category is Category.NODE_FAILURE


async def test_plain_reply_in_a_thread_the_bot_does_not_own_is_ignored(demo):
    recorder = await demo.say(
        "why did training-job-42 in ml-team fail on cluster prod-a?", directed=False
    )
    assert recorder.log == []
    assert demo.simulator.requests == []


async def test_only_the_placeholder_is_marked_as_progress(demo):
    help_ = (await demo.say("help")).last()
    assert isinstance(help_, Notice)
    assert not help_.progress


async def test_help(demo):
    reply = (await demo.say("help")).last()
    assert isinstance(reply, Notice)
    assert "I never guess" in reply.text


async def test_follow_up_in_the_thread_keeps_the_cluster(demo):
    await demo.say("why did training-job-42 in ml-team fail on cluster prod-a?")
    report = (await demo.say("@runai-why and eval-harness in ml-team?")).last()
    assert isinstance(report, ReportReply)
    assert report.report.category is Category.CRASH_APP_ERROR


async def test_channel_default_cluster_is_used_and_said():
    async for h in harness(DEMO, channel_defaults={"C1": "prod-a"}):
        report = (await h.say("why did eval-harness in ml-team fail?")).last()
        assert isinstance(report, ReportReply)
        assert report.notes == ("Cluster prod-a is this channel's configured default.",)


async def test_ambiguous_name_offers_candidates_and_a_click_diagnoses():
    async for h in harness(bundled_scenario("name-tie")):
        cluster = h.simulator.scenario.clusters[0]["uuid"]
        workload = h.simulator.scenario.workloads[0]
        name, project = workload.workload["name"], workload.workload["projectName"]
        asked = (await h.say(f"cluster={cluster} workload={name} project={project}")).last()
        assert isinstance(asked, Question)
        assert len(asked.choices) == 2
        # The buttons name the workload; the ID is never asked for, since it is not shown.
        assert asked.text.endswith("match equally. Which one? Pick one below.")
        assert all(c.label.startswith(f"{name} · Failed · submitted ") for c in asked.choices)
        assert "ID" not in asked.text
        report = (await h.click(asked.choices[1].value)).last()
        assert isinstance(report, ReportReply)
        assert report.report.outcome is Outcome.DIAGNOSED
        assert report.report.workload is not None
        assert f"workload:{report.report.workload.id}" == asked.choices[1].value


async def test_control_plane_failure_is_a_short_actionable_message(demo):
    demo.simulator.add_fault({"path": "/api/v1/workloads", "status": 503})
    recorder = await demo.say("why did training-job-42 in ml-team fail on cluster prod-a?")
    final = recorder.last()
    assert isinstance(final, Notice)
    assert final.text.startswith("I could not finish the diagnosis: the Run:ai control plane")
    assert "`list_workloads`, HTTP 503" in final.text
    assert "Traceback" not in final.text


async def test_malformed_parts_are_reported(demo):
    recorder = await demo.say("cluster=prod-a workload=eval-harness project=ml-team lookback=soon")
    first = recorder.log[0][1]
    assert isinstance(first, Notice)
    assert "lookback 'soon' is not a duration" in first.text
    assert isinstance(recorder.last(), ReportReply)


async def test_every_diagnosis_emits_one_audit_event(demo):
    """Who asked, where, what, the outcome and category, redactions and duration: one event."""
    with structlog.testing.capture_logs() as logs:
        await demo.say("why did training-job-42 in ml-team fail on cluster prod-a?")
    [audit] = [e for e in logs if e["event"] == "diagnosis_audit"]
    assert audit["platform"] == "test"
    assert (audit["team"], audit["channel"], audit["user"]) == ("T1", "C1", "U1")
    assert audit["cluster_id"] == PROD_A
    assert audit["workload"] == "training-job-42"
    assert (audit["outcome"], audit["category"]) == ("diagnosed", "OOM_KILLED")
    assert audit["resolved_id"] is not None
    assert audit["failed_calls"] == []
    assert isinstance(audit["duration_ms"], int)


async def test_chatter_after_a_report_is_not_a_new_request(demo):
    """Once answered, plain replies in the thread are people talking; only a mention asks again."""
    await demo.say("why did training-job-42 in ml-team fail on cluster prod-a?")
    before = len(demo.simulator.requests)
    recorder = await demo.say(
        "thanks! I think it's the node dgx-07, let's restart it", directed=False
    )
    assert recorder.log == []
    assert len(demo.simulator.requests) == before


async def test_a_new_workload_does_not_inherit_the_previous_symptom(demo):
    first = (await demo.say("is t5-distill in nlp crashlooping on cluster prod-a?")).last()
    assert isinstance(first, ReportReply)
    second = (await demo.say("why did training-job-42 in ml-team fail?")).last()
    assert isinstance(second, ReportReply)
    assert second.report.category is Category.OOM_KILLED


async def test_an_unexpected_error_never_leaves_the_progress_notice_spinning(demo, monkeypatch):
    async def broken(*_args, **_kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr("bot.conversation.turns.diagnose", broken)
    recorder = Recorder()
    with pytest.raises(RuntimeError, match="a bug"):
        await demo.engine.handle(
            Incoming(
                demo.key, "U1", text="why did training-job-42 in ml-team fail on cluster prod-a?"
            ),
            recorder,
        )
    assert [action for action, _ in recorder.log] == ["post", "update 1"]
    final = recorder.last()
    assert isinstance(final, Notice)
    assert final.text.startswith("Something went wrong on my side")


async def test_redis_dying_during_a_diagnosis_never_unsays_the_posted_answer():
    """The answer is out; the lost save is logged, not raised (no "did not process this")."""
    server = start_throwaway_redis()
    client = redis.asyncio.Redis.from_url(server.connection_url, socket_connect_timeout=0.5)

    class KillsRedisOnAnswer(Recorder):
        async def update(self, ref: str, reply: Reply) -> None:
            await super().update(ref, reply)
            if isinstance(reply, ReportReply):
                server.stop()  # Redis dies between the answer and the save of the state

    try:
        async for h in harness(DEMO, store=RedisStore(client, lock_timeout_s=5)):
            recorder = KillsRedisOnAnswer()
            with structlog.testing.capture_logs() as logs:
                await h.engine.handle(Incoming(h.key, "U1", text=EVERYTHING), recorder)
            actions, replies = zip(*recorder.log, strict=True)
            assert actions == ("post", "update 1", "post")
            assert isinstance(replies[1], ReportReply)
            assert replies[2] == Notice(STATE_NOT_SAVED, private=True)  # told, privately
            assert "conversation_state_not_saved" in [e["event"] for e in logs]
    finally:
        if server.is_running():
            server.stop()
        await client.aclose()


async def test_a_slash_commands_new_thread_is_locked_from_its_first_post(redis_client):
    """A click on a slash command's first question waits for the state, however fast.

    The command's thread is created by its first post and its state saved under it at the
    end of the turn, so that thread is locked from the moment anything is shown in it: a
    click then waits for the state instead of hearing "lost context".
    """
    thread = ThreadKey("test", "T1", "C1", "200.1")
    locked_while_shown: list[bool] = []

    class SlashRecorder(Recorder):
        def thread(self) -> str | None:
            return thread.thread if self.log else None  # the first post becomes the root

        async def update(self, ref: str, reply: Reply) -> None:
            await super().update(ref, reply)
            locked_while_shown.append(bool(await redis_client.exists(thread.redis_key("lock"))))

    scenario = bundled_scenario("name-tie")
    cluster = scenario.clusters[0]["uuid"]
    workload = scenario.workloads[0].workload
    command = f"cluster={cluster} workload={workload['name']} project={workload['projectName']}"
    async for h in harness(scenario, store=RedisStore(redis_client, lock_timeout_s=5)):
        key = ThreadKey("test", "T1", "C1", "cmd-1")
        asked = Recorder()
        await h.engine.handle(Incoming(key, "U1", text=command), SlashRecorder(log=asked.log))
        question = asked.last()
        assert isinstance(question, Question)
        assert locked_while_shown == [True]
        assert not await redis_client.exists(thread.redis_key("lock"))  # released after saving
        choice = question.choices[0].value
        clicked = Recorder()
        await h.engine.handle(Incoming(thread, "U1", choice=choice), clicked)
        assert isinstance(clicked.last(), ReportReply)


async def test_the_configured_deadline_answers_with_what_was_collected():
    """One hung endpoint costs the deadline, not the answer: its evidence is a named gap."""
    async for h in harness(DEMO, deadline_s=0.5):
        h.simulator.add_fault({"path": r"/api/v1/workloads/[^/]+/history", "latency_ms": 30_000})
        recorder = await h.say("why did training-job-42 in ml-team fail on cluster prod-a?")
        report = recorder.last()
        assert isinstance(report, ReportReply)
        assert report.report.category is Category.OOM_KILLED
        assert any("0.5 s diagnosis deadline" in gap for gap in report.report.missing), (
            report.report.missing
        )


class _SlowPlaceholder(Recorder):
    """Its "Diagnosing …" post lands only once released; it records being cancelled."""

    def __init__(self) -> None:
        super().__init__()
        self.posting = asyncio.Event()
        self.release = asyncio.Event()
        self.cancelled = False

    async def post(self, reply: Reply) -> str:
        if isinstance(reply, Notice) and reply.progress:
            self.posting.set()
            try:
                await self.release.wait()
            except asyncio.CancelledError:
                self.cancelled = True
                raise
        return await super().post(reply)


async def _cancelled_mid_post(h: Harness) -> tuple[asyncio.Task[None], _SlowPlaceholder]:
    """A turn whose diagnosis outlasts the test, cancelled while its placeholder is posting."""
    recorder = _SlowPlaceholder()
    incoming = Incoming(h.key, "U1", text=EVERYTHING, directed=True)
    turn = asyncio.create_task(h.engine.handle(incoming, recorder))
    await asyncio.wait_for(recorder.posting.wait(), 5)
    turn.cancel()
    return turn, recorder


@pytest.fixture
async def slow_reads() -> AsyncIterator[Harness]:
    # The diagnosis's workload reads outlast the test; the lookups before them do not.
    faults = [FaultRule(path=r"/api/v1/workloads.*", latency_ms=30_000)]
    async for h in harness(DEMO.model_copy(update={"faults": faults})):
        yield h


async def test_a_cancelled_turn_lets_its_placeholder_post_land_for_the_retry(slow_reads):
    turn, recorder = await _cancelled_mid_post(slow_reads)
    recorder.release.set()
    with pytest.raises(asyncio.CancelledError):
        await turn
    assert [action for action, _ in recorder.log] == ["post"]  # landed; the retry updates it
    assert not recorder.cancelled


async def test_a_turn_cancelled_again_cuts_its_placeholder_post_short(slow_reads):
    turn, recorder = await _cancelled_mid_post(slow_reads)
    while not turn.done():  # as the worker does: cancelled again while it runs on
        await asyncio.wait({turn}, timeout=0.05)
        turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    assert recorder.cancelled
    assert recorder.log == []  # nothing appears after the turn has ended
