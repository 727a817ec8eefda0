"""A busy incident thread: who the bot listens to, what replies and follow-ups mean, privacy.

Every phrase class of the conversation, over the real engine, client and simulator: the
asker's plain replies and a teammate's, clicks, numbers, replies that fit nothing, the
symptom words the bot offers, follow-ups after an answer, chatter, lost context.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.app.demo.console import PRIVATE, ConsoleSession
from bot.app.demo.scenarios import bundled_scenario
from bot.conversation import (
    RERUN,
    SHOW_EVIDENCE,
    EvidenceReply,
    Notice,
    Question,
    ReportReply,
)
from bot.conversation.messages import (
    ALREADY_ANSWERED,
    FOLLOW_UP_HINT,
    LOST_CONTEXT,
    NOTHING_TO_SHOW,
    follow_up_hint,
)
from bot.conversation.parse import Expecting
from diagnosis import Category, Outcome, Symptom
from tests.bot.conversation.harness import Harness, harness

DEMO = bundled_scenario("demo")
PROD_A = DEMO.clusters[0]["uuid"]
ASK_CLUSTER = "why did training-job-42 in ml-team fail?"
EVERYTHING = "why did training-job-42 in ml-team fail on cluster prod-a?"


@pytest.fixture
async def demo() -> AsyncIterator[Harness]:
    async for h in harness(DEMO, mention=lambda user: f"@{user}"):
        yield h


async def _state(h: Harness):
    state = await h.store.load(h.key)
    assert state is not None
    return state


# --- §2: only the asker fills slots with plain replies; anyone can with a mention ----------


@pytest.mark.parametrize("text", ["ugh", "prod-a", "hmm is this the oom again?"])
async def test_a_teammates_plain_reply_never_fills_a_slot(demo, text):
    await demo.say(ASK_CLUSTER)
    before = len(demo.simulator.requests)
    recorder = await demo.say(text, user="U2", directed=False)
    assert recorder.log == []
    assert len(demo.simulator.requests) == before
    state = await _state(demo)
    assert (state.expecting, state.slots.cluster_label) == (Expecting.CLUSTER, None)
    report = (await demo.say("prod-a", directed=False)).last()  # the asker still can
    assert isinstance(report, ReportReply)


async def test_a_teammate_answers_by_mentioning_the_bot_and_the_asker_stays(demo):
    await demo.say(ASK_CLUSTER)
    report = (await demo.say("<@UBOT> it's prod-a", user="U2")).last()
    assert isinstance(report, ReportReply)
    assert report.report.category is Category.OOM_KILLED
    assert await demo.engine.asker(demo.key) == "U1"
    assert await demo.engine.is_asker(demo.key, "U1")
    assert not await demo.engine.is_asker(demo.key, "U2")


async def test_a_click_from_someone_else_is_refused_privately_and_changes_nothing(demo):
    asked = (await demo.say(ASK_CLUSTER)).last()
    assert isinstance(asked, Question)
    assert asked.asker == "U1"
    recorder = await demo.click(asked.choices[0].value, user="U2", message_ref="1")
    assert recorder.replies() == [
        Notice("Only @U1 can pick here; anyone else can answer by mentioning me.", private=True)
    ]
    assert (await _state(demo)).expecting is Expecting.CLUSTER


async def test_a_click_replaces_the_buttons_with_the_choice_then_answers(demo):
    asked = (await demo.say(ASK_CLUSTER)).last()
    assert isinstance(asked, Question)
    recorder = await demo.click(asked.choices[0].value, message_ref="Q1")
    action, picked = recorder.log[0]
    assert action == "update Q1"
    assert isinstance(picked, Question)
    assert picked.choices == ()
    assert picked.picked == asked.choices[0]
    assert (picked.text, picked.asker) == ("Which Run:ai cluster is it on?", "U1")
    assert isinstance(recorder.last(), ReportReply)


async def test_a_typed_number_picks_the_button_and_replaces_the_question(demo):
    await demo.say(ASK_CLUSTER)  # the question is message "1" of that turn
    recorder = await demo.say("1", directed=False)
    action, picked = recorder.log[0]
    assert action == "update 1"
    assert isinstance(picked, Question)
    assert picked.picked is not None
    assert isinstance(recorder.last(), ReportReply)


async def test_a_button_of_an_answered_question_is_refused(demo):
    asked = (await demo.say(ASK_CLUSTER)).last()
    assert isinstance(asked, Question)
    await demo.click(asked.choices[0].value)
    before = len(demo.simulator.requests)
    recorder = await demo.click(asked.choices[0].value)
    assert recorder.replies() == [Notice(ALREADY_ANSWERED, private=True)]
    assert len(demo.simulator.requests) == before


# --- §3: a reply that fits nothing gets the question again; the next is read afresh -------


@pytest.mark.parametrize("text", ["hmm", "ugh", "what?", "7", "0", "show logs", "thanks"])
async def test_a_reply_that_fits_nothing_gets_the_question_again_privately(demo, text):
    await demo.say(ASK_CLUSTER)
    recorder = await demo.say(text, directed=False)
    [again] = recorder.replies()
    assert isinstance(again, Question)
    assert again.private
    assert again.text.startswith("I could not read that as an answer. Which Run:ai cluster")
    assert [c.label for c in again.choices] == ["prod-a"]
    report = (await demo.say("PROD-A", directed=False)).last()  # read afresh
    assert isinstance(report, ReportReply)
    assert report.report.workload is not None
    assert report.report.workload.cluster_id == PROD_A


async def test_an_unknown_cluster_is_forgotten_so_the_next_reply_is_read_afresh(demo):
    asked = (await demo.say("why did training-job-42 in ml-team fail on cluster prod")).last()
    assert isinstance(asked, Question)
    assert "'prod'" in asked.text
    again = (await demo.say("hmm", directed=False)).last()
    assert isinstance(again, Question)
    assert "'prod'" not in again.text  # no stale complaint
    assert isinstance((await demo.say("on prod-a", directed=False)).last(), ReportReply)


@pytest.mark.parametrize(
    "text",
    [
        "why did training-job-42 in ml-team fail on PROD-A",
        "why did training-job-42 in ml-team fail on prod-a",
        "training-job-42 in ml-team on the prod-a cluster, what happened?",
        "training-job-42 died, project is ml-team, it's on Prod-A",
    ],
)
async def test_cluster_phrasings_without_the_word_or_the_case(demo, text):
    report = (await demo.say(text)).last()
    assert isinstance(report, ReportReply)
    assert report.report.category is Category.OOM_KILLED


@pytest.mark.parametrize(
    ("reply", "symptom"),
    [
        ("init", Symptom.INIT),
        ("image pull", Symptom.IMAGE_PULL),
        ("yes, stuck in init", Symptom.INIT),
        ("crashloop", Symptom.CRASHLOOP),
        ("crash loop", Symptom.CRASHLOOP),
        ("mount", Symptom.MOUNT),
    ],
)
async def test_the_symptom_words_the_bot_offers_fill_the_symptom(demo, reply, symptom):
    asked = (await demo.say("why did t5-distill in nlp fail on cluster prod-a")).last()
    assert isinstance(asked, Question)
    assert "Is it failing right now (crash loop, image pull, init, mount)?" in asked.text
    recorder = await demo.say(reply, directed=False)
    state = await _state(demo)
    assert state.slots.symptom is symptom
    assert (state.slots.workload_name, state.slots.project) == ("t5-distill", "nlp")
    final = recorder.last()
    assert not (isinstance(final, ReportReply) and final.report.outcome is Outcome.NOT_FOUND)


async def test_crashloop_answers_the_question_with_a_diagnosis(demo):
    await demo.say("why did t5-distill in nlp fail on cluster prod-a")
    report = (await demo.say("crashloop", directed=False)).last()
    assert isinstance(report, ReportReply)
    assert report.report.outcome is Outcome.DIAGNOSED


@pytest.mark.parametrize(
    ("first", "reply"),
    [
        ("what happened to resnet-ddp on cluster prod-a", "project is vision"),
        ("what happened to resnet-ddp on cluster prod-a", "vision please"),
        ("what happened to resnet-ddp on cluster prod-a", "it's in vision"),
        ("the failed job from this morning on prod-a", "resnet-ddp in vision"),
    ],
)
async def test_natural_answers_to_what_is_missing(demo, first, reply):
    asked = (await demo.say(first)).last()
    assert isinstance(asked, Question)
    assert "from" not in asked.text
    report = (await demo.say(reply, directed=False)).last()
    assert isinstance(report, ReportReply)
    assert report.report.category is Category.NODE_FAILURE


# --- §3: follow-ups after an answer ---------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "directed"),
    [
        ("can you look at it again", False),
        ("I bumped the memory limit so check again pls", False),
        ("pushed a new image - can you check again?", False),
        ("fixed the pvc \u2014 check again?", False),
        ("mind checking again?", False),
        ("same thing again?", False),
        ("it's back up so try again", False),
        ("ok trying again", False),
        ("<@UBOT> I redeployed it so please check again", True),
    ],
)
async def test_a_re_run_asked_after_other_words_checks_again(demo, text, directed):
    await demo.say(EVERYTHING)
    final = (await demo.say(text, directed=directed)).last()
    assert final == Notice(
        "Checked again: nothing changed since the answer above (OOM_KILLED, lookback 24h)."
    )


@pytest.mark.parametrize(
    "text",
    [
        "torch-2.3 keeps crashing, re-run?",
        "upgraded, torch-2.3 still crashes, can you check again?",
        "torch-2.3 crashed again, can you recheck?",
    ],
)
async def test_a_version_in_a_re_run_request_is_no_new_workload(demo, text):
    """The thread is about training-job-42: `torch-2.3` is what it runs, never a workload."""
    await demo.say(EVERYTHING)
    final = (await demo.say(text, directed=False)).last()
    assert final == Notice(
        "Checked again: nothing changed since the answer above (OOM_KILLED, lookback 24h)."
    )


@pytest.mark.parametrize(
    "text", ["tried again: cuda-12.4 failed again", "ok, torch-2.3 is killed by OOM too. why?"]
)
async def test_a_version_said_to_fail_in_a_reply_is_never_diagnosed(demo, text):
    await demo.say(EVERYTHING)
    replies = (await demo.say(text, directed=False)).replies()
    assert replies == [Notice(FOLLOW_UP_HINT, private=True)]  # never "No workload named …"


@pytest.mark.parametrize(
    ("text", "lookback"),
    [
        ("what about the last 7 days?", "7d"),
        ("what about yesterday?", "2d"),
        ("and over the past week?", "7d"),
        ("since yesterday", "2d"),
    ],
)
async def test_a_new_lookback_re_runs_the_diagnosis(demo, text, lookback):
    await demo.say(EVERYTHING)
    report = (await demo.say(text, directed=False)).last()
    assert isinstance(report, ReportReply)
    assert report.lookback == lookback
    assert report.report.category is Category.OOM_KILLED


@pytest.mark.parametrize(
    "text", ["show logs", "more", "all evidence", "can you post the full logs"]
)
async def test_show_logs_posts_all_the_evidence_in_the_thread(demo, text):
    answer = (await demo.say(EVERYTHING)).last()
    assert isinstance(answer, ReportReply)
    before = len(demo.simulator.requests)
    [evidence] = (await demo.say(text, directed=False)).replies()
    assert evidence == EvidenceReply(answer.report, "24h")
    assert not evidence.private
    assert len(demo.simulator.requests) == before  # the answer's own evidence, not a new run


@pytest.mark.parametrize(
    "text",
    [
        "thanks",
        "thanks!",
        "ty",
        "ok cool",
        "\U0001f44d",
        "thanks! restarting dgx-07 now",
        "hmm why",
    ],
)
async def test_chatter_after_an_answer_gets_nothing(demo, text):
    await demo.say(EVERYTHING)
    before = len(demo.simulator.requests)
    assert (await demo.say(text, directed=False)).log == []
    assert len(demo.simulator.requests) == before


@pytest.mark.parametrize(
    "text",
    [
        "the node is dgx-07",
        "can someone restart it",
        "eval-harness in ml-team",
    ],
)
async def test_anything_else_after_an_answer_gets_a_one_line_private_hint(demo, text):
    await demo.say(EVERYTHING)
    before = len(demo.simulator.requests)
    replies = (await demo.say(text, directed=False)).replies()
    assert replies == [Notice(FOLLOW_UP_HINT, private=True)]
    assert "\n" not in FOLLOW_UP_HINT
    assert len(demo.simulator.requests) == before


@pytest.mark.parametrize(
    "text",
    [
        "it ran fine last week though",  # a time said, not asked for: no new lookback
        "ugh, 3 days of training lost :sob:",
        "it was fine over the weekend",
        "ok, I'll rerun it with more memory",  # what the asker will do: no re-run
        "will try again after lunch",
        "it failed again",
        "still crashlooping here",  # a symptom said, not asked of the bot: no new diagnosis
        "same, it keeps crashing",
        "mine is pending as well",
        "mine is still pending as well",
        "same here, still crashlooping",
        "no, same here, still crashlooping",  # `no` opens it, yet it corrects nothing
        "nope, mine is still pending as well",
        "it's still waiting for me too",
        "yeah it OOMed on me too last week",
        "I'll check the mount myself",
        "no, it ran 10 hours before the OOM",  # a time in passing, not a lookback
        "wait 5 min, I'm redeploying",
        "sorry, I was in a meeting for 2 hours",
        "I mean it ran for 2 days fine and then died",
    ],
)
async def test_a_time_or_a_re_run_said_in_passing_checks_nothing_again(demo, text):
    await demo.say(EVERYTHING)
    before = len(demo.simulator.requests)
    replies = (await demo.say(text, directed=False)).replies()
    assert replies == [Notice(FOLLOW_UP_HINT, private=True)]  # no answer, no "Checked again"
    read = [r.path for r in demo.simulator.requests[before:]]
    assert not [p for p in read if "/workloads" in p], read  # names linked at most


@pytest.mark.parametrize(
    ("text", "directed"),
    [
        ("why is it crashlooping?", False),
        ("is it stuck in init", False),
        ("could it be the mount?", False),
        ("what about the image pull", False),
        ("crash loop", False),
        ("CrashLoopBackOff!", False),  # only the symptom: the rest of its word, punctuation
        ("stuck in init", False),
        ("it still hasn't started", False),  # as `it hasn't started in 20 min` asks
        ("still crashlooping", False),
        ("<@UBOT> still crashlooping here", True),
        ("pods never get ready", False),  # the README's stuck example
        ("the pod is crashlooping", False),
        ("I restarted it and now it's stuck pending. thoughts?", False),
        ("no, it's been stuck for 45 min", False),  # the wait is no lookback
        ("no, it's crashlooping, not pending", False),  # a correction of the symptom
        ("<@UBOT> no, same here, still crashlooping", True),
    ],
)
async def test_a_symptom_asked_of_the_bot_diagnoses_that_symptom(demo, text, directed):
    await demo.say(EVERYTHING)
    before = len(demo.simulator.requests)
    replies = (await demo.say(text, directed=directed)).replies()
    assert replies[0] == Notice("Diagnosing training-job-42 in ml-team on prod-a…", progress=True)
    read = [r.path for r in demo.simulator.requests[before:]]
    assert [p for p in read if p.endswith("/workloads")], read


async def test_a_teammates_follow_up_is_theirs_to_mention(demo):
    await demo.say(EVERYTHING)
    assert (await demo.say("show logs", user="U2", directed=False)).log == []
    [evidence] = (await demo.say("<@UBOT> show logs", user="U2")).replies()
    assert isinstance(evidence, EvidenceReply)


@pytest.mark.parametrize("how", ["check again", "re-run", "button"])
async def test_the_same_report_is_never_posted_twice_unchanged(demo, how):
    await demo.say(EVERYTHING)
    recorder = await (demo.click(RERUN) if how == "button" else demo.say(how, directed=False))
    final = recorder.last()
    assert isinstance(final, Notice)
    assert final.text == (
        "Checked again: nothing changed since the answer above (OOM_KILLED, lookback 24h)."
    )
    assert not any(isinstance(r, ReportReply) for r in recorder.replies())


@pytest.mark.parametrize(
    ("text", "lookback"),
    [
        ("rerun with 48h", "2d"),
        ("please recheck with 3d", "3d"),
        ("retry with 3d", "3d"),
        ("again with 7d please", "7d"),
        ("again but 3 days", "3d"),
        ("extend it to 3 days", "3d"),
        ("can you go back further, like 3 days?", "3d"),
        ("widen to 48h please", "2d"),
        ("look further back, 3d", "3d"),
        ("redo it with a 3 day lookback", "3d"),
    ],
)
async def test_a_re_run_or_a_time_asked_for_answers_over_that_time(demo, text, lookback):
    await demo.say(EVERYTHING)
    [report] = [
        r for r in (await demo.say(text, directed=False)).replies() if isinstance(r, ReportReply)
    ]
    assert report.lookback == lookback


async def test_show_all_evidence_button_works_for_anyone(demo):
    answer = (await demo.say(EVERYTHING)).last()
    assert isinstance(answer, ReportReply)
    [evidence] = (await demo.click(SHOW_EVIDENCE, user="U2")).replies()
    assert evidence == EvidenceReply(answer.report, "24h")


async def test_show_all_evidence_before_any_answer_says_so_privately(demo):
    await demo.say(ASK_CLUSTER)
    assert (await demo.click(SHOW_EVIDENCE)).replies() == [Notice(NOTHING_TO_SHOW, private=True)]


@pytest.mark.parametrize(
    ("follow_up", "note"),
    [
        (
            "<@UBOT> and eval-harness?",
            "Cluster prod-a and project ml-team, from earlier in this thread.",
        ),
        ("<@UBOT> and eval-harness in ml-team?", "Cluster prod-a, from earlier in this thread."),
        pytest.param(
            "<@UBOT> and eval-harness in ml-team?",
            "Cluster prod-a and lookback 6h, from earlier in this thread.",
            id="the lookback as the answer names it, rounded up",
        ),
    ],
)
async def test_a_value_carried_over_from_earlier_is_named(demo, follow_up, note):
    await demo.say(EVERYTHING + (" lookback=5h" if "lookback" in note else ""))
    report = (await demo.say(follow_up)).last()
    assert isinstance(report, ReportReply)
    assert report.report.category is Category.CRASH_APP_ERROR
    assert report.notes == (note,)


# --- §4: private where it should be ----------------------------------------------------------


async def test_help_is_private(demo):
    [reply] = (await demo.say("help")).replies()
    assert isinstance(reply, Notice)
    assert reply.private


async def test_input_errors_are_private_and_the_answer_public(demo):
    recorder = await demo.say("cluster=prod-a workload=eval-harness project=ml-team lookback=soon")
    problem, *_, answer = recorder.replies()
    assert isinstance(problem, Notice)
    assert problem.private
    assert problem.text.startswith("I could not use part of that: lookback 'soon'")
    assert isinstance(answer, ReportReply)
    assert not answer.private


async def test_the_console_marks_private_replies():
    async for h in harness(DEMO):
        out: list[str] = []
        session = ConsoleSession(h.engine, out.append)
        await session.say("help")
        await session.say(EVERYTHING)
        assert out[0].startswith(f"runai-why> {PRIVATE}I explain why")
        assert not any(PRIVATE in line for line in out[1:])
        shown = len(out)
        await session.say("thanks!")  # later lines are thread replies, as in Slack
        assert len(out) == shown
        await session.say("the node is dgx-07")
        assert out[shown:] == [f"runai-why> {PRIVATE}{follow_up_hint('console')}\n"]
        assert "mention" not in follow_up_hint("console")  # the console cannot mention


# --- §8: a thread whose state is gone -------------------------------------------------------


async def test_a_reply_in_a_bot_thread_whose_state_is_gone_is_told_so(demo):
    recorder = await demo.say("it's prod-a", directed=False, bot_thread=True)
    assert recorder.replies() == [Notice(LOST_CONTEXT, private=True)]
    assert LOST_CONTEXT == "I lost the context of this thread; mention me with the whole question."
    assert demo.simulator.requests == []


async def test_lost_context_is_not_said_to_chatter_or_outside_bot_threads(demo):
    assert (await demo.say("thanks!", directed=False, bot_thread=True)).log == []
    assert (await demo.say("it's prod-a", directed=False)).log == []


async def test_a_click_whose_state_is_gone_is_told_so(demo):
    recorder = await demo.click(f"cluster:{PROD_A}")
    assert recorder.replies() == [Notice(LOST_CONTEXT, private=True)]


async def test_a_new_cluster_for_the_same_workload_names_what_was_kept(demo):
    await demo.say(EVERYTHING)
    asked = (await demo.say("<@UBOT> what about on prod-b?")).last()
    assert isinstance(asked, Question)  # prod-b is not a cluster: asked, never guessed
    report = (await demo.say("prod-a, over the last 7 days", directed=False)).last()
    assert isinstance(report, ReportReply)
    assert report.lookback == "7d"
    assert report.notes == (
        "Workload training-job-42 and project ml-team, from earlier in this thread.",
    )


async def test_the_past_run_question_of_a_running_workload_is_answered_in_the_thread():
    scenario = bundled_scenario("running-no-failure")
    workload, cluster = scenario.workloads[0].workload["id"], scenario.clusters[0]["name"]
    async for h in harness(scenario):
        first = (await h.say(f"why did {workload} fail on {cluster}")).last()
        assert isinstance(first, ReportReply)
        assert first.report.outcome is Outcome.RUNNING_NO_FAILURE
        assert first.report.question is not None
        assert (await h.say("thanks", directed=False)).log == []  # still chatter
        [evidence] = (await h.say("show logs", directed=False)).replies()
        assert isinstance(evidence, EvidenceReply)
        before = len(h.simulator.requests)
        recorder = await h.say(f"it's {workload}", directed=False)  # the asker answers it
        assert Notice(FOLLOW_UP_HINT, private=True) not in recorder.replies()
        assert len(h.simulator.requests) > before
        assert recorder.last() == Notice(
            "Checked again: nothing changed since the answer above (running_no_failure, "
            "lookback 24h)."
        )
