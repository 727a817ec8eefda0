"""The Pending and preemption answers through `diagnose`, against the simulator.

Who may see the preemptor (per asker, also when many askers share one report), which reads
run at once, and what happens when a read fails.
"""

from __future__ import annotations

import json

import pytest

from bench.stats import chain_levels
from bot.backends import simulated
from bot.scenarios import bundled_scenario, request_from_expectation
from diagnosis import Authorize, DiagnosisRequest, Outcome, Symptom, WorkloadAccess, diagnose
from tests.diagnosis.test_chain import LATENCY_MS, _level, _timed_calls
from tests.diagnosis.test_sharing import Memo

DEMO = bundled_scenario("demo")
CLUSTER = DEMO.clusters[0]["uuid"]
QLORA = next(w.id for w in DEMO.workloads if w.workload["name"] == "llama-sft-qlora")


def reads(*projects: str) -> Authorize:
    """An access check that reads every kind in `projects`."""

    async def authorize(access: WorkloadAccess, /) -> bool:
        return access.project in projects

    return authorize


ALICE = reads("ml-team", "vision")  # the demo's alice: not nlp
BOB = reads("ml-team", "vision", "nlp")


@pytest.mark.parametrize(
    ("asker", "named"),
    [
        pytest.param(ALICE, False, id="alice-may-not-read-nlp"),
        pytest.param(BOB, True, id="bob-reads-nlp"),
    ],
)
async def test_the_preemptor_is_named_only_to_whoever_may_read_it(asker, named):
    request = DiagnosisRequest(cluster_id=CLUSTER, workload_id=QLORA)
    async with simulated(DEMO, retries=0, transport="asgi") as up:
        report = await diagnose(
            request, runai=up.runai, kube=up.kube, now=DEMO.now, authorize=asker
        )
    assert report.outcome is Outcome.PREEMPTED
    text = json.dumps(report.to_json_dict("24h"))
    assert ("serve-llama-70b" in text) is named
    assert ("runai-nlp" in text) is named
    by = report.to_json_dict("24h")["preemption"]["by"]
    assert by == ({"name": "serve-llama-70b", "project": "nlp", "priority": 125} if named else
                  {"name": None, "project": None, "priority": None})  # fmt: skip


async def test_one_shared_report_is_cut_to_each_askers_access():
    memo = Memo()
    request = DiagnosisRequest(cluster_id=CLUSTER, workload_id=QLORA)
    async with simulated(DEMO, retries=0, transport="asgi") as up:
        first = await diagnose(request, runai=up.runai, now=DEMO.now, authorize=BOB, share=memo)
        second = await diagnose(request, runai=up.runai, now=DEMO.now, authorize=ALICE, share=memo)
        third = await diagnose(request, runai=up.runai, now=DEMO.now, authorize=BOB, share=memo)
    assert [kind for kind, _ in memo.asked].count("report") == 3
    assert len([k for k in memo.kept if k[0] == "report"]) == 1  # computed once
    assert "serve-llama-70b" in first.headline
    assert "serve-llama-70b" not in json.dumps(second.to_json_dict("24h"))
    assert third == first  # the shared copy was never masked in place


async def test_a_pending_workloads_reads_that_need_only_its_ids_run_at_once():
    scenario = bundled_scenario("pending-node-pool-full").model_copy(
        update={"latency_ms": LATENCY_MS}
    )
    request = request_from_expectation(scenario, scenario.expect[0])
    async with simulated(scenario, retries=0, transport="asgi") as up:
        await diagnose(request, runai=up.runai, now=scenario.now)  # the token, warm
        with _timed_calls() as calls:
            report = await diagnose(request, runai=up.runai, now=scenario.now)
    assert report.pending is not None
    assert report.pending.reason == "NODE_POOL_FULL"
    levels = {c.path.rsplit("/", 1)[-1] or c.path: _level(c, calls) for c in calls}
    # status, then events (they decide Pending vs failed), then everything else at once
    assert chain_levels(calls) == 3, sorted((c.start, c.path) for c in calls)
    assert {levels[k] for k in ("pods", "history", "node-pools", "telemetry", "nodes")} == {3}
    assert {_level(c, calls) for c in calls if "/org-unit/projects/" in c.path} == {3}


async def test_kubernetes_failing_is_a_gap_and_run_ai_still_decides():
    scenario = bundled_scenario("demo")
    request = request_from_expectation(scenario, scenario.expect[-1])
    assert request.symptom is Symptom.PENDING
    async with simulated(scenario, retries=0, transport="asgi") as up:
        assert up.simulator is not None
        up.simulator.add_fault({"path": "/k8s/.*/podgroups/.*", "status": 403})
        report = await diagnose(request, runai=up.runai, kube=up.kube, now=scenario.now)
    assert report.pending is not None
    assert report.pending.reason == "NODE_POOL_FULL"
    assert any("PodGroup pg-vit-pretrain-xl-0-3b9d2f4e" in m and "403" in m for m in report.missing)


async def test_the_podgroups_condition_is_read_when_kubernetes_is_configured():
    request = request_from_expectation(DEMO, DEMO.expect[-1])
    async with simulated(DEMO, retries=0, transport="asgi") as up:
        assert up.simulator is not None
        report = await diagnose(request, runai=up.runai, kube=up.kube, now=DEMO.now)
        paths = [r.path for r in up.simulator.requests]
    assert any(p.endswith("/podgroups/pg-vit-pretrain-xl-0-3b9d2f4e") for p in paths)
    assert any(p.endswith("/queues/vision") for p in paths)
    assert not any("Kubernetes Tier 2 access is not configured" in m for m in report.missing)


async def test_a_pending_question_about_a_running_workload_asks_which_one():
    request = DiagnosisRequest(
        cluster_id=CLUSTER, workload_name="sdxl-finetune", project="vision", symptom=Symptom.PENDING
    )
    async with simulated(DEMO, retries=0, transport="asgi") as up:
        report = await diagnose(request, runai=up.runai, now=DEMO.now)
    assert report.outcome is Outcome.NEEDS_INPUT
    assert "No workload named sdxl-finetune in vision is waiting to run" in report.headline
    assert "(current phase: Running)" in report.headline
    assert [c.name for c in report.candidates] == ["sdxl-finetune"]


async def test_two_equally_new_waiting_workloads_are_a_question():
    entry = next(w for w in DEMO.workloads if w.workload["name"] == "vit-pretrain-xl")
    twin = entry.model_copy(deep=True)
    twin.workload["id"] = "0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
    scenario = DEMO.model_copy(update={"workloads": [*DEMO.workloads, twin]})
    request = DiagnosisRequest(
        cluster_id=CLUSTER,
        workload_name="vit-pretrain-xl",
        project="vision",
        symptom=Symptom.PENDING,
    )
    async with simulated(scenario, retries=0, transport="asgi") as up:
        report = await diagnose(request, runai=up.runai, now=DEMO.now)
    assert report.outcome is Outcome.NEEDS_INPUT
    assert report.headline.startswith("2 workloads named vit-pretrain-xl in vision are waiting")
    assert len(report.candidates) == 2
