"""The engine with the pipeline, over the real client and simulator (the demo scenario).

Pasted pods resolved through the workloads' pods; a project none of the asker's, answered
with their own near matches; corrections after an answer; several workloads in one
message; a time that cannot be read; chatter while a question waits; help per platform.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import pytest

from bot.app.backends import simulated
from bot.app.demo.console import ConsoleSession
from bot.app.demo.scenarios import bundled_paths, bundled_scenario
from bot.authz import Authorizer, Identity
from bot.conversation import (
    Access,
    ConversationEngine,
    Incoming,
    MemoryStore,
    Notice,
    Question,
    ReportReply,
    ThreadKey,
)
from bot.conversation.messages import HELP, help_text
from bot.conversation.which_cluster import CLUSTER_QUESTION
from diagnosis import Category, Outcome
from runai_sim.scenario import Scenario
from tests.bot.authz.people import Access as Access_
from tests.bot.authz.people import people_scenario
from tests.bot.conversation.harness import Harness, Recorder, harness

DEMO = bundled_scenario("demo")
EVERYTHING = "why did training-job-42 in ml-team fail on cluster prod-a?"


@pytest.fixture
async def demo() -> AsyncIterator[Harness]:
    async for h in harness(DEMO):
        yield h


@asynccontextmanager
async def as_person(email: str, scenario: Scenario = DEMO) -> AsyncIterator[Harness]:
    """Authorization on, everyone asking as `email`."""
    async with simulated(scenario, retries=0, transport="asgi") as up:
        assert up.simulator is not None

        async def person(_: Incoming) -> Identity:
            return Identity.console(email)

        engine = ConversationEngine(
            runai=up.runai,
            kube=up.kube,
            store=MemoryStore(),
            clock=lambda: scenario.now,
            access=Access(Authorizer(up.runai), person),
        )
        yield Harness(engine, up.simulator, MemoryStore())


def as_alice() -> AbstractAsyncContextManager[Harness]:
    """Authorization on: alice reads ml-team and vision on prod-a, not nlp."""
    return as_person("alice@acme.ai")


def reports(recorder: Recorder) -> list[ReportReply]:
    return [r for r in recorder.replies() if isinstance(r, ReportReply)]


# --- pasted alerts and pods -------------------------------------------------------------


async def test_a_pasted_alert_names_a_pod_found_through_its_workloads_pods(demo):
    paste = (
        "[FIRING:1] KubePodCrashLooping\nalertname=KubePodCrashLooping cluster=prod-a "
        "namespace=runai-ml-team pod=training-job-42-0-1 uid=5d0c2b8e-1f4a-4c7e-9b21-6e3a8d4f0a77"
    )
    [report] = reports(await demo.say(paste))
    assert report.report.workload is not None
    assert report.report.workload.name == "training-job-42"
    assert "Pod training-job-42-0-1 belongs to workload training-job-42." in report.notes
    pods = [r.path for r in demo.simulator.requests if r.path.endswith("/pods")]
    assert pods, "the pod was found through the workload's pods, not by its name"


async def test_a_pod_whose_name_does_not_end_in_numbers_is_still_found(demo):
    [report] = reports(await demo.say("kubectl -n runai-vision logs resnet-ddp-master-0 prod-a"))
    assert report.report.workload is not None
    assert report.report.workload.name == "resnet-ddp"


async def test_a_pod_no_workload_lists_is_a_question_and_the_reply_answers_it(demo):
    asked = (await demo.say("pod=training-job-42-9-9 namespace=runai-ml-team on prod-a")).last()
    assert isinstance(asked, Question)
    assert asked.text.startswith("None of the workloads in project ml-team lists pod")
    [report] = reports(await demo.say("training-job-42", directed=False))
    assert report.report.category is Category.OOM_KILLED


async def test_a_pod_of_a_kind_the_asker_may_not_read_is_as_unknown_as_no_pod():
    """Dave reads only nlp's inferences: a Training's pod is neither found nor its pods read."""
    t5 = next(w.id for w in DEMO.workloads if w.workload["name"] == "t5-distill")
    async with as_person(Access_.DENIED_BY_KIND.value, people_scenario()) as dave:
        hidden = (await dave.say("pod=t5-distill-0-0 namespace=runai-nlp on prod-a")).last()
        absent = (await dave.say("pod=nosuch-0-0 namespace=runai-nlp on prod-a")).last()
        read = [r.path for r in dave.simulator.requests if r.path.endswith(f"{t5}/pods")]
    assert isinstance(hidden, Question)
    assert isinstance(absent, Question)
    assert hidden.text.startswith("None of the workloads in project nlp lists pod")
    assert hidden.text.replace("t5-distill-0-0", "nosuch-0-0") == absent.text
    assert read == [], "a workload the asker may not read had its pods read for them"


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        pytest.param(
            "why did training-job-42 fail in prod-a",
            "Which project is `training-job-42` in?",
            id="in a cluster: the cluster, the project asked",
        ),
        pytest.param(
            "why did training-job-42 fail in ml-team", CLUSTER_QUESTION, id="in a project"
        ),
    ],
)
async def test_in_a_known_cluster_is_the_cluster_not_the_project(demo, text, asked):
    question = (await demo.say(text)).last()
    assert isinstance(question, Question)
    assert question.text == asked
    [report] = reports(await demo.say("ml-team" if "prod-a" in text else "prod-a"))
    assert report.report.category is Category.OOM_KILLED


async def test_a_pod_without_its_project_asks_for_the_project(demo):
    asked = (await demo.say("kubectl logs pod/training-job-42-0-1 on prod-a")).last()
    assert isinstance(asked, Question)
    assert asked.text == "Which project is pod `training-job-42-0-1` in?"
    [report] = reports(await demo.say("ml-team", directed=False))
    assert report.report.workload is not None
    assert report.report.workload.name == "training-job-42"


@pytest.mark.parametrize(
    ("paste", "workload"),
    [
        (
            "alertname=KubeJobFailed cluster=prod-a condition=true job=kube-state-metrics "
            "job_name=training-job-42 namespace=runai-ml-team "
            "pod=kube-state-metrics-7d9f6c5b8-x2x9q severity=warning",
            "training-job-42",
        ),
        (
            "alertname=GPUXidError cluster=prod-a exported_namespace=runai-vision "
            "exported_pod=resnet-ddp-master-0 namespace=gpu-operator "
            "pod=nvidia-dcgm-exporter-x7k2p gpu=3",
            "resnet-ddp",
        ),
    ],
)
async def test_an_exporters_own_pod_in_an_alert_is_never_asked_about(demo, paste, workload):
    recorder = await demo.say(paste)
    assert [r.report.workload.name for r in reports(recorder) if r.report.workload] == [workload]
    assert not [r for r in recorder.replies() if isinstance(r, Question)]


@pytest.mark.parametrize(
    "table",
    [
        "$ runai list jobs\n"
        "NAME             STATUS  AGE  NODE         IMAGE                              TYPE   "
        "PROJECT  USER   GPUs Allocated (Requested)  PODs Running (Pending)  SERVICE URL(S)\n"
        "training-job-42  Failed  3h   dgx-a100-04  nvcr.io/nvidia/pytorch:24.01-py3  Train  "
        "ml-team  alice  - (1)                       0 (0)",
        "$ runai workload list\n"
        "Workload         Type      Status  Project  Preemptible  Running/Requested Pods  "
        "GPU Allocation\n" + "\u2500" * 80 + "\n"
        "training-job-42  Training  Failed  ml-team  Yes          0/1                     0.00",
    ],
    ids=["v1", "v2"],
)
async def test_a_pasted_runai_list_names_its_workload_and_project_only(demo, table):
    recorder = await demo.say(f"why did this fail on prod-a?\n```\n{table}\n```")
    answered = [r.report.workload.name for r in reports(recorder) if r.report.workload]
    assert answered == ["training-job-42"]
    assert not [r for r in recorder.replies() if isinstance(r, Question)]
    assert reports(recorder)[0].report.category is Category.OOM_KILLED


def _renamed(scenario: str, old: str, new: str) -> Scenario:
    """A bundled scenario with its workload (and that workload's pods) called `new`."""
    text = next(p for p in bundled_paths() if p.stem == scenario).read_text()
    return Scenario.model_validate(json.loads(text.replace(old, new)))


@pytest.mark.parametrize(
    "text",
    [
        "why did qwen-2.5 fail in nlp on prod-a100?",
        "qwen-2.5 failed in nlp on prod-a100",
        "why did the qwen-2.5 job in nlp on prod-a100 fail after the torch-2.3 bump?",
    ],
)
async def test_a_dotted_name_that_failed_is_the_workload_a_version_is_not(text):
    """Run:ai allows dots in a workload name: the subject of `fail` is one, `torch-2.3` not."""
    async for chat in harness(_renamed("oom-killed", "gpt-neox-ft", "qwen-2.5")):
        recorder = await chat.say(text)
        answered = [r.report.workload.name for r in reports(recorder) if r.report.workload]
        assert answered == ["qwen-2.5"]
        assert reports(recorder)[0].report.category is Category.OOM_KILLED


@pytest.mark.parametrize(
    "text",
    [
        "python-3.11 crashed training-job-42 in ml-team on prod-a",
        "is torch-2.3 killed by OOM? training-job-42 in ml-team on prod-a",
        "why did cuda-12.4 fail to load for training-job-42? ml-team on prod-a",
    ],
)
async def test_a_version_beside_a_workload_is_context_never_a_second_diagnosis(demo, text):
    recorder = await demo.say(text)
    answered = [r.report.workload.name for r in reports(recorder) if r.report.workload]
    assert answered == ["training-job-42"]
    assert not [r for r in recorder.replies() if "No workload named" in str(r)]


async def test_a_library_that_hangs_on_a_workload_asks_the_cluster_about_that_workload(demo):
    asked = (await demo.say("why does nccl-2.18 hang on training-job-42 in ml-team?")).last()
    assert isinstance(asked, Question)
    assert asked.text == CLUSTER_QUESTION
    [report] = reports(await demo.say("prod-a", directed=False))
    assert report.report.workload is not None
    assert report.report.workload.name == "training-job-42"


async def test_a_library_alone_is_never_the_workload_so_the_workload_is_asked(demo):
    await demo.say("why does nccl-2.18 hang")
    asked = (await demo.say("prod-a", directed=False)).last()
    assert isinstance(asked, Question)
    assert asked.text.startswith("Which workload?")


async def test_in_a_thread_where_a_library_hangs_is_the_next_workload(demo):
    await demo.say(EVERYTHING)
    [report] = reports(await demo.say("why does nccl-2.18 hang on eval-harness?"))
    assert report.report.workload is not None
    assert report.report.workload.name == "eval-harness"


async def test_where_a_known_cluster_is_named_a_library_leaves_the_workload_asked(demo):
    asked = (await demo.say("why does nccl-2.18 hang on prod-a")).last()
    assert isinstance(asked, Question)
    assert asked.text.startswith("Which workload?")


def _diagnosed(recorder: Recorder) -> list[str]:
    return [str(r) for r in recorder.replies() if "Diagnosing" in str(r)]


@pytest.mark.parametrize(
    "text", ["it was fine on torch 2.2", "OOM on a100 again", "crashing on torch 2.3 too"]
)
async def test_a_library_or_gpu_in_reply_to_a_pick_list_is_never_the_workload(demo, text):
    """After "Pick one below" the bot expects a workload: `torch`, `a100` are never one."""
    await demo.say("why did yolo-train-v3 fail in vision on prod-a")
    recorder = await demo.say(text, directed=False)
    assert _diagnosed(recorder) == []
    state = await demo.store.load(demo.key)
    assert state is not None
    assert state.slots.workload_name == "yolo-train-v3"


@pytest.mark.parametrize(
    ("first", "text"),
    [
        (["why did training-job-42 fail", "1"], "bumped to 128Gi and now pending"),
        (["why did training-job-42 fail on prod-a"], "still OOMing with 64Gi"),
    ],
)
async def test_a_sentence_with_an_amount_never_answers_which_project(demo, first, text):
    for said in first:
        await demo.say(said, directed=said == first[0])
    asked = (await demo.say(text, directed=False)).last()
    assert isinstance(asked, Question)
    assert "Which project is `training-job-42` in?" in asked.text


async def test_a_bare_v3_is_part_of_a_name_and_the_workload_it_may_be_is_offered(demo):
    asked = (await demo.say("why did the v3 one fail in vision on prod-a")).last()
    assert isinstance(asked, Question)
    assert "Did you mean yolo-train-v3?" in asked.text


async def test_a_node_asked_about_in_a_thread_is_never_the_next_workload():
    """`on dgx-a100-07` in a thread about a workload names the machine it ran on."""
    async for h in harness(DEMO):
        out: list[str] = []
        session = ConsoleSession(h.engine, out.append)
        await session.say(EVERYTHING)
        shown = len(out)
        await session.say("did anything change on dgx-a100-07?")
        later = "".join(out[shown:])
        assert "Diagnosing" not in later
        assert "dgx-a100-07" not in later


# --- a project that is none of the asker's ------------------------------------------------


async def test_a_mistyped_project_suggests_only_the_askers_own_near_matches():
    async with as_alice() as chat:
        [asked] = (await chat.say("why did training-job-42 in ml-tem fail on prod-a")).replies()
        assert isinstance(asked, Question)
        assert asked.private
        assert asked.text == (
            "No project called ml-tem on prod-a is readable by you. Did you mean ml-team?"
        )
        assert [c.value for c in asked.choices] == ["project:ml-team"]
        [report] = reports(await chat.click("project:ml-team"))
        assert report.report.category is Category.OOM_KILLED


async def test_a_near_match_the_asker_cannot_read_is_never_suggested():
    async with as_alice() as chat:
        [told] = (await chat.say("why did bert-ft-squad in nlpp fail on prod-a")).replies()
    assert told == Notice(
        "No project called nlpp on prod-a is readable by you. If it is the right name, ask "
        "your Run:ai administrator for read access.",
        private=True,
    )  # nlp exists, but is not alice's to read: not offered, not named


# --- corrections ----------------------------------------------------------------------------


async def test_a_correction_after_an_answer_re_runs_and_says_what_changed(demo):
    await demo.say(EVERYTHING)
    [report] = reports(await demo.say("actually it's eval-harness", directed=False))
    assert report.report.workload is not None
    assert report.report.workload.name == "eval-harness"
    assert report.notes[0] == "Corrected: workload training-job-42 → eval-harness."


async def test_a_corrected_cluster_is_checked_like_any_other(demo):
    await demo.say(EVERYTHING)
    asked = (await demo.say("sorry, wrong cluster: prod-aa", directed=False)).last()
    assert isinstance(asked, Question)
    assert asked.text.startswith("I don't know a cluster called 'prod-aa'")
    assert "Did you mean prod-a?" in asked.text


@pytest.mark.parametrize(
    "text", ["wrong cluster, it's prod-aa", "wrong cluster: prod-aa", "oops, wrong cluster prod-aa"]
)
async def test_the_slot_a_correction_names_is_the_one_corrected(demo, text):
    await demo.say(EVERYTHING)
    [asked] = (await demo.say(text, directed=False)).replies()
    assert isinstance(asked, Question)  # the cluster corrected, never the workload
    assert asked.text == (
        "I don't know a cluster called 'prod-aa'; I only match exact names or IDs. "
        "Did you mean prod-a?"
    )
    assert [c.label for c in asked.choices] == ["prod-a"]
    state = await demo.store.load(demo.key)
    assert state is not None
    assert state.slots.workload_name == "training-job-42"


async def test_a_correction_by_part_of_a_name_finds_the_one_workload(demo):
    await demo.say("why did resnet-ddp in vision fail on prod-a")
    recorder = await demo.say("wrong job, I mean the coco one", directed=False)
    assert recorder.replies()[0] == Notice(
        "Diagnosing prep-coco in vision on prod-a…", progress=True
    )


async def test_a_part_of_several_names_is_a_question_with_buttons(demo):
    await demo.say("why did resnet-ddp in vision fail on prod-a")
    asked = (await demo.say("wrong job, I meant the train one", directed=False)).last()
    assert isinstance(asked, Question)
    assert {c.value for c in asked.choices} == {"name:yolo-train-v3", "name:vit-pretrain-xl"}
    replies = (await demo.click("name:yolo-train-v3")).replies()
    assert Notice("Diagnosing yolo-train-v3 in vision on prod-a…", progress=True) in replies


async def test_someone_elses_correction_without_a_mention_is_not_taken(demo):
    await demo.say(EVERYTHING)
    before = len(demo.simulator.requests)
    recorder = await demo.say("actually it's eval-harness", user="U2", directed=False)
    assert recorder.log == []
    assert len(demo.simulator.requests) == before


# --- "X or Y" is asked, "not X" is never X ---------------------------------------------------


async def test_two_clusters_named_are_asked_about_with_those_as_the_buttons():
    scenario = bundled_scenario("name-several-matches")
    ids = {c["name"]: c["uuid"] for c in scenario.clusters}
    async for chat in harness(scenario):
        text = "why did train-bert fail in nlp on prod-h100 or prod-a100? not sure which one"
        [asked] = (await chat.say(text)).replies()
        assert isinstance(asked, Question)
        assert asked.text == "Which Run:ai cluster is it on: prod-h100 or prod-a100?"
        assert {c.label for c in asked.choices} == {"prod-h100", "prod-a100"}
        assert not [r for r in chat.simulator.requests if "/workloads" in r.path]
        [report] = reports(await chat.click(f"cluster:{ids['prod-a100']}"))
        assert report.cluster_name == "prod-a100"


async def test_two_projects_in_a_reply_are_asked_about_with_buttons(demo):
    await demo.say("why did training-job-42 fail on prod-a?")
    [asked] = (await demo.say("I think it's ml-team or nlp", directed=False)).replies()
    assert isinstance(asked, Question)
    assert asked.text == "Which project is `training-job-42` in: ml-team or nlp?"
    assert [c.value for c in asked.choices] == ["project:ml-team", "project:nlp"]
    [report] = reports(await demo.click("project:ml-team"))
    assert report.report.category is Category.OOM_KILLED


@pytest.mark.parametrize(
    "text",
    [
        "resnet-ddp in vision on prod-a crashed, either in the dataloader or the model, why?",
        "resnet-ddp in vision crashes in forward or backward pass on prod-a",
    ],
)
async def test_an_or_phrase_of_no_names_never_replaces_the_project_named(demo, text):
    [report] = reports(await demo.say(text))
    assert report.report.workload is not None
    assert report.report.workload.name == "resnet-ddp"


async def test_an_or_phrase_after_the_cluster_named_never_replaces_it(demo):
    text = "training-job-42 in ml-team on prod-a died at epoch-3 or epoch-4, why?"
    [report] = reports(await demo.say(text))
    assert report.report.category is Category.OOM_KILLED


async def test_of_x_or_y_the_one_known_is_used_and_the_other_named_unknown(demo):
    text = "why did training-job-42 fail in ml-team on prod-a or prod-z?"
    [report] = reports(await demo.say(text))
    assert report.cluster_name == "prod-a"
    assert "I see no cluster named prod-z, so I used prod-a." in report.notes


async def test_a_reply_of_x_or_y_with_one_known_is_never_a_one_button_question(demo):
    await demo.say("why did training-job-42 fail?")
    asked = (await demo.say("prod-a or prod-b?", directed=False)).last()
    assert isinstance(asked, Question)
    assert asked.text == "Which project is `training-job-42` in?"
    [report] = reports(await demo.say("ml-team", directed=False))
    assert "I see no cluster named prod-b, so I used prod-a." in report.notes


async def test_not_a_project_never_fills_the_project(demo):
    await demo.say("why did training-job-42 fail on prod-a?")
    before = len(demo.simulator.requests)
    [again] = (await demo.say("not nlp", directed=False)).replies()
    assert isinstance(again, Question)
    assert again.text.endswith("Which project is `training-job-42` in?")
    assert not [r for r in demo.simulator.requests[before:] if "/workloads" in r.path]


@pytest.mark.parametrize("text", ["oops, it's vision not ml-team", "not ml-team, vision"])
async def test_not_this_project_but_that_one_is_never_taken_for_a_workload(demo, text):
    await demo.say("why did resnet-ddp fail in ml-team on prod-a?")  # asks which workload
    [report] = reports(await demo.say(text, directed=False))
    assert report.report.workload is not None
    assert report.report.workload.name == "resnet-ddp"


async def test_a_new_question_with_not_in_it_is_no_correction(demo):
    await demo.say(EVERYTHING)
    [report] = reports(await demo.say("also eval-harness is not finishing, why?"))
    assert not [n for n in report.notes if n.startswith("Corrected")]


async def test_not_this_but_that_re_targets_only_that(demo):
    await demo.say(EVERYTHING)
    recorder = await demo.say("not training-job-42, eval-harness")
    assert [r.report.workload.name for r in reports(recorder) if r.report.workload] == [
        "eval-harness"
    ]
    assert reports(recorder)[0].notes[0] == "Corrected: workload training-job-42 → eval-harness."
    assert not [r for r in recorder.replies() if isinstance(r, Notice) and not r.progress]


# --- several workloads ------------------------------------------------------------------------


async def test_two_workloads_in_one_message_get_one_answer_each(demo):
    recorder = await demo.say("why did training-job-42 and eval-harness in ml-team fail on prod-a")
    names = [r.report.workload.name for r in reports(recorder) if r.report.workload]
    assert names == ["training-job-42", "eval-harness"]


async def test_several_workloads_wait_for_the_cluster_question(demo):
    asked = (await demo.say("why did training-job-42 and eval-harness in ml-team fail")).last()
    assert isinstance(asked, Question)
    recorder = await demo.say("prod-a", directed=False)
    names = [r.report.workload.name for r in reports(recorder) if r.report.workload]
    assert names == ["training-job-42", "eval-harness"]


async def test_past_the_limit_the_rest_are_named_never_dropped(demo):
    text = "why did training-job-42, eval-harness, llama-sft-qlora, x-1 in ml-team fail on prod-a"
    recorder = await demo.say(text)
    answered = reports(recorder)
    assert len(answered) == 3
    assert "I answer at most 3 workloads per message; ask again about x-1." in answered[0].notes


# --- time words, chatter, help ------------------------------------------------------------


@pytest.mark.parametrize(
    ("earlier", "used"),
    [
        pytest.param("", "24h", id="none: the default"),
        pytest.param("lookback=5h", "6h", id="5h: rounded up, as the answer names it"),
    ],
)
async def test_an_unreadable_time_says_which_lookback_was_used(demo, earlier, used):
    if earlier:  # a thread whose lookback was set earlier, then a workload of its project
        await demo.say(f"{EVERYTHING} {earlier}")
    ask = "<@UBOT> and eval-harness" if earlier else EVERYTHING
    [report] = reports(await demo.say(f"{ask} since the deploy"))
    assert report.lookback == used
    assert (
        f"I could not read “since the deploy” as a time, so the lookback is {used}; say e.g. "
        "`last 3 days` to change it." in report.notes
    )


async def test_a_weekday_sets_the_lookback(demo):
    [report] = reports(await demo.say(f"{EVERYTHING} since monday"))
    assert report.lookback.endswith("d")
    assert report.lookback != "24h"


@pytest.mark.parametrize(
    ("day", "lookback"),
    [
        ("2025-11-03", "2d"),  # the demo's clock: 2025-11-04 09:30 UTC
        ("2025-11-03T22:10:00Z", "2d"),
        ("2025/11/03", "2d"),
        ("Nov 3", "2d"),
        ("3 Nov 2025", "2d"),
        ("11/03/2025", "24h"),  # 3 November or 11 March: no day is guessed
    ],
)
async def test_a_date_is_the_day_asked_about_never_a_cluster(demo, day, lookback):
    asked = (await demo.say(f"why did training-job-42 in ml-team fail on {day}?")).last()
    assert isinstance(asked, Question)
    assert asked.text == CLUSTER_QUESTION
    [report] = reports(await demo.say("prod-a", directed=False))
    assert report.report.category is Category.OOM_KILLED
    assert report.lookback == lookback


async def test_a_date_past_the_longest_lookback_is_said_so_and_never_stretched(demo):
    recorder = await demo.say("why did training-job-42 in ml-team fail on prod-a on 2025-09-01?")
    assert recorder.replies()[0] == Notice(
        "I could not use part of that: 2025-09-01 is 64 days ago, and lookback '65d' must be "
        "more than 0 and at most 30d",
        private=True,
    )
    [report] = reports(recorder)
    assert report.lookback == "24h"
    assert [r.report.workload.name for r in reports(recorder) if r.report.workload] == [
        "training-job-42"
    ]  # the date queued no second "workload"


async def test_a_day_without_its_year_is_this_years_and_said_when_too_far_back(demo):
    recorder = await demo.say(f"{EVERYTHING} since May 2")
    assert recorder.replies()[0] == Notice(
        "I could not use part of that: May 2 is 186 days ago, and lookback '187d' must be "
        "more than 0 and at most 30d",
        private=True,
    )  # not next May's, ahead and so silently no lookback


@pytest.mark.parametrize(
    "text",
    [
        "training-job-42 was submitted 2025-09-01 and failed on 2025-11-03, ml-team on prod-a",
        "why did training-job-42 in ml-team fail on prod-a? ImagePullBackOff for "
        "acme/train:2025-09-01 since 2025-11-03",
    ],
)
async def test_the_day_of_the_failure_counts_never_another(demo, text):
    recorder = await demo.say(text)
    assert not [r for r in recorder.replies() if isinstance(r, Notice) and r.private]
    [report] = reports(recorder)
    assert report.lookback == "2d"


async def test_thanks_to_the_bot_while_it_waits_is_not_an_answer(demo):
    await demo.say("why did training-job-42 in ml-team fail?")
    assert (await demo.say("<@UBOT> thanks")).log == []
    assert (await demo.say("@runai-why thanks!")).log == []
    assert (await demo.say("brb", directed=False)).log == []
    assert (await demo.say("<@U2> can you check?", directed=False)).log == []


async def test_a_stuck_question_about_a_scheduling_wait_gets_the_pending_answer(demo):
    [report] = reports(await demo.say("vit-pretrain-xl in vision still waiting after 2h, prod-a"))
    assert report.report.outcome is Outcome.PENDING_SCHEDULING
    assert report.lookback == "24h"  # "after 2h" is how long it waited, not a lookback


async def test_a_stuck_question_about_a_failing_start_diagnoses_that_failure(demo):
    [report] = reports(await demo.say("yolo-train-v3 in vision hasn't started in 20 min, prod-a"))
    assert report.report.category is Category.IMAGE_PULL_FAILED


@pytest.mark.parametrize("platform", ["teams", "slack", "console"])
async def test_help_says_what_to_type_on_the_platform(platform):
    async for h in harness(DEMO):
        h.key = ThreadKey(platform, "T1", "C1", "1")
        [help_reply] = (await h.say("help")).replies()
        assert isinstance(help_reply, Notice)
        assert help_reply.text == help_text(platform)
    if platform == "teams":
        assert "/runai-why" not in help_text(platform)
        assert "`@runai-why watch nlp on prod-a`" in help_text(platform)
    else:
        assert help_text(platform) == HELP
        assert "`/runai-why watch nlp on prod-a`" in help_text(platform)
    assert "stuck Pending, or was preempted" in help_text(platform)


async def test_two_pods_in_one_alert_are_two_answers(demo):
    paste = (
        "cluster=prod-a namespace=runai-ml-team pod=training-job-42-0-1\n"
        "cluster=prod-a namespace=runai-ml-team pod=eval-harness-0-0"
    )
    recorder = await demo.say(paste)
    names = [r.report.workload.name for r in reports(recorder) if r.report.workload]
    assert names == ["training-job-42", "eval-harness"]


async def test_the_console_takes_a_new_question_as_a_plain_line():
    """The console cannot mention the bot: a new question after an answer is just asked."""
    async for h in harness(DEMO):
        out: list[str] = []
        session = ConsoleSession(h.engine, out.append)
        await session.say(EVERYTHING)
        shown = len(out)
        await session.say("why did eval-harness in ml-team fail on prod-a?")
        later = "".join(out[shown:])
        assert "Diagnosing eval-harness in ml-team on prod-a" in later
        assert "mention" not in later


async def test_a_pod_given_as_a_workload_is_read_as_the_pod_it_is(demo):
    """No workload is called `training-job-42-0-1`: it is a pod, found through its workload."""
    [report] = reports(await demo.say("why did training-job-42-0-1 in ml-team fail on prod-a"))
    assert report.report.workload is not None
    assert report.report.workload.name == "training-job-42"
    assert "Pod training-job-42-0-1 belongs to workload training-job-42." in report.notes
