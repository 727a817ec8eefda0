"""The Pending and preemption answers through `diagnose`, against the simulator.

Who may see the preemptor (per asker, also when many askers share one report), which reads
run at once, and what happens when a read fails.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from bench.stats import chain_levels
from bot.app.backends import simulated
from bot.app.demo.scenarios import bundled_scenario, request_from_expectation
from diagnosis import (
    Authorize,
    DepartmentAccess,
    DiagnosisRequest,
    Outcome,
    Report,
    Symptom,
    WorkloadAccess,
    diagnose,
)
from runai_sim.scenario import Scenario
from tests.diagnosis.doubles import Memo
from tests.diagnosis.timed import LATENCY_MS, level, timed_calls

DEMO = bundled_scenario("demo")
CLUSTER = DEMO.clusters[0]["uuid"]
QLORA = next(w.id for w in DEMO.workloads if w.workload["name"] == "llama-sft-qlora")


def reads(*projects: str, departments: tuple[str, ...] = ()) -> Authorize:
    """An access check that reads every kind in `projects`, and the `departments` (IDs)."""

    async def authorize(access: WorkloadAccess | DepartmentAccess, /) -> bool:
        if isinstance(access, DepartmentAccess):
            return access.department_id in departments
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
        with timed_calls() as calls:
            report = await diagnose(request, runai=up.runai, now=scenario.now)
    assert report.pending is not None
    assert report.pending.reason == "NODE_POOL_FULL"
    levels = {c.path.rsplit("/", 1)[-1] or c.path: level(c, calls) for c in calls}
    # status, then events (they decide Pending vs failed), then everything else at once
    assert chain_levels(calls) == 3, sorted((c.start, c.path) for c in calls)
    assert {levels[k] for k in ("pods", "history", "node-pools", "telemetry", "nodes")} == {3}
    assert {level(c, calls) for c in calls if "/org-unit/projects/" in c.path} == {3}
    # The workload names its department: its quota is read on that level too, once.
    assert [level(c, calls) for c in calls if "/org-unit/departments/" in c.path] == [3]


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


VIT = next(w for w in DEMO.workloads if w.workload["name"] == "vit-pretrain-xl")


def _demo_with(
    *,
    workload: dict[str, Any] | None = None,
    events: list[dict[str, Any]] | None = None,
    queues: list[dict[str, Any]] | None = None,
) -> tuple[Scenario, DiagnosisRequest]:
    """The demo with vit-pretrain-xl's body, events or the queues changed; its request."""
    entry = VIT.model_copy(deep=True)
    entry.workload.update(workload or {})
    if events is not None:
        entry.events = events
        entry.history = [r for r in entry.history if r["meta"]["type"] == "PhaseUpdate"]
    kube = DEMO.kubernetes.model_copy(deep=True) if DEMO.kubernetes else None
    if kube is not None and queues is not None:
        kube.queues = queues
    workloads = [entry if w.id == entry.id else w for w in DEMO.workloads]
    scenario = DEMO.model_copy(update={"workloads": workloads, "kubernetes": kube})
    return scenario, DiagnosisRequest(cluster_id=CLUSTER, workload_id=entry.id)


async def _pending(
    scenario: Scenario, request: DiagnosisRequest, *faults: dict[str, object]
) -> Report:
    async with simulated(scenario, retries=0, transport="asgi") as up:
        assert up.simulator is not None
        for fault in faults:
            up.simulator.add_fault(fault)
        return await diagnose(request, runai=up.runai, kube=up.kube, now=scenario.now)


async def test_the_podgroup_named_by_a_pods_annotation_and_its_missing_queue():
    scenario, request = _demo_with(events=[], queues=[])
    report = await _pending(scenario, request)
    assert report.pending is not None
    assert report.pending.reason == "QUEUE_MISSING"
    assert "its PodGroup names queue vision, which does not exist" in report.headline


async def test_a_queue_that_cannot_be_read_is_a_gap_not_a_missing_queue():
    scenario, request = _demo_with()
    report = await _pending(scenario, request, {"path": "/k8s/.*/queues/vision", "status": 503})
    assert report.pending is not None
    assert report.pending.reason == "NODE_POOL_FULL"
    assert any(m.startswith("queue vision unavailable (HTTP 503") for m in report.missing)


async def test_without_a_podgroup_name_kubernetes_says_so():
    scenario, request = _demo_with(events=[])
    fault = {"path": "/k8s/.*/pods/vit-pretrain-xl-0-0", "status": 404}
    report = await _pending(scenario, request, fault)
    assert any("the PodGroup (no event or pod annotation names it)" in m for m in report.missing)


async def test_no_project_id_and_no_requested_pool_are_gaps_never_guesses():
    scenario, request = _demo_with(workload={"projectId": None, "requestedNodePools": []})
    report = await _pending(scenario, request)
    assert report.pending is not None
    # the PodGroup's condition names the pool; without the quota the split is not made
    assert (report.pending.reason, report.pending.node_pool) == ("UNKNOWN", "default")
    assert report.pending.deserved_gpus is None
    assert "the project's quota (the workload names no project ID)" in report.missing
    assert "the project's deserved GPUs in node pool default" in report.missing


async def test_without_requested_pools_the_projects_defaults_are_read():
    scenario, request = _demo_with(workload={"requestedNodePools": []})
    report = await _pending(scenario, request)
    assert report.pending is not None
    assert (report.pending.reason, report.pending.node_pool) == ("NODE_POOL_FULL", "default")
    assert report.pending.deserved_gpus == 16


async def test_without_a_namespace_or_project_kubernetes_is_skipped_and_said():
    scenario, request = _demo_with(workload={"namespace": None, "projectName": None})
    report = await _pending(scenario, request)
    assert "Kubernetes evidence: the workload has no namespace or project" in report.missing


async def test_a_preemptor_whose_workload_cannot_be_read_is_named_as_such_and_hidden():
    scenario = bundled_scenario("preempted-reclaim")
    request = request_from_expectation(scenario, scenario.expect[0])
    async with simulated(scenario, retries=0, transport="asgi") as up:
        assert up.simulator is not None
        up.simulator.add_fault({"path": "/api/v1/org-unit/projects", "status": 503})
        plain = await diagnose(request, runai=up.runai, now=scenario.now)
        asked = await diagnose(request, runai=up.runai, now=scenario.now, authorize=BOB)
    assert "Named preemptor: serve-llama-70b (its workload could not be read)" in [
        e.text for e in plain.evidence
    ]
    assert any(
        m.startswith("the projects (to find the preemptor's project) unavailable")
        for m in plain.missing
    )
    assert "serve-llama-70b" not in json.dumps(asked.to_json_dict("24h"))  # not checkable


@pytest.mark.parametrize(
    ("name", "outcome"),
    [
        ("preempted", Outcome.PREEMPTED),  # failed: the early reads' history is the one read
        ("preempted-priority", Outcome.PREEMPTED),  # requeued as Pending: no early reads
        ("preempted-survived-history", Outcome.DIAGNOSED),  # ran again: the failure's answer
        ("preempted-survived-then-oom", Outcome.DIAGNOSED),
    ],
)
async def test_history_read_to_tell_a_survived_eviction_is_read_once(name, outcome):
    """Reading the history before routing to the preemption answer costs no second read."""
    scenario = bundled_scenario(name)
    request = request_from_expectation(scenario, scenario.expect[0])
    async with simulated(scenario, retries=0, transport="asgi") as up:
        assert up.simulator is not None
        report = await diagnose(request, runai=up.runai, kube=up.kube, now=scenario.now)
        paths = [r.path for r in up.simulator.requests]
    assert report.outcome is outcome, report.headline
    assert sum(p.endswith("/history") for p in paths) == 1, paths


async def test_the_department_is_read_only_for_an_asker_who_may_see_it_never_unconstrained():
    """Its usage sums other projects': read only for whoever may read it, else UNKNOWN."""
    scenario = bundled_scenario("pending-department-over-quota")
    request = request_from_expectation(scenario, scenario.expect[0])
    department = "/api/v1/org-unit/departments/1"
    async with simulated(scenario, retries=0, transport="asgi") as up:
        assert up.simulator is not None
        operator = await diagnose(request, runai=up.runai, now=scenario.now)
        assert [r.path for r in up.simulator.requests].count(department) == 1
        up.simulator.clear_requests()
        reader = await diagnose(
            request,
            runai=up.runai,
            now=scenario.now,
            authorize=reads("ml-team", departments=("1",)),
        )
        assert [r.path for r in up.simulator.requests].count(department) == 1
        up.simulator.clear_requests()
        asker = await diagnose(
            request, runai=up.runai, now=scenario.now, authorize=reads("ml-team")
        )
        assert department not in [r.path for r in up.simulator.requests]
    for shown in (operator, reader):
        assert shown.pending is not None
        assert shown.pending.reason == "PROJECT_OVER_QUOTA"
        assert "department ml-platform's quota in node pool default: 14 of 8" in shown.headline
    assert asker.pending is not None
    assert asker.pending.reason == "UNKNOWN"  # never "unconstrained", never the project's alone
    assert "whether department ml-platform is too is not known" in asker.headline
    assert "14 of 8" not in json.dumps(asker.to_json_dict("24h"))
    assert any(m.startswith("department ml-platform's quota and usage") for m in asker.missing)
