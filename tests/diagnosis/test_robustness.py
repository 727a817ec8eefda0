"""Robustness end to end: wrong shapes, one events read, the deadline, retries, long histories.

Per-pod Kubernetes collection is checked too: what it returns must not depend on which pod
answers first.
"""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from typing import Any

import pytest

from bot.app.backends import simulated
from bot.app.demo.scenarios import bundled_paths, request_from_expectation
from diagnosis import DiagnosisRequest, UpstreamTimeout, diagnose
from diagnosis.kube.collect import collect_tier2
from diagnosis.kube.event_models import KubeEvent
from diagnosis.kube.models import KubeNode, Pod
from diagnosis.kube.scheduling_models import PodGroup, Queue
from diagnosis.redact import Redactor
from diagnosis.runai import history_client
from diagnosis.runai.models import Pod as RunaiPod
from runai_sim.scenario import Scenario
from tests.factories import NOW, workload

KUBE_POD = r"/k8s/[^/]+/api/v1/namespaces/[^/]+/pods/[^/]+"


def _bundled(name: str, *faults: dict[str, Any], days_later: int = 0) -> Scenario:
    [path] = [p for p in bundled_paths() if p.stem == name]
    data = json.loads(path.read_text(encoding="utf-8"))
    data["faults"] = [*data.get("faults", []), *faults]
    if days_later:
        data["now"] = (Scenario.parse(data).now + timedelta(days=days_later)).isoformat()
    return Scenario.parse(data, source=str(path))


async def _run(scenario: Scenario, **options: Any) -> tuple[Any, list[Any]]:
    request = request_from_expectation(scenario, scenario.expect[0])
    async with simulated(scenario, retries=0, transport="asgi") as up:
        report = await diagnose(request, runai=up.runai, kube=up.kube, now=scenario.now, **options)
        assert up.simulator is not None
        return report, up.simulator.requests


WRONG_KUBE_BODIES = [
    # id, fault path, body, the gap that must be named
    ("events-items-null", r"/k8s/[^/]+/api/v1/namespaces/[^/]+/events", {"items": None},
     "events of pod"),
    ("events-a-string", r"/k8s/[^/]+/api/v1/namespaces/[^/]+/events", "no events", "events of pod"),
    ("events-no-items", r"/k8s/[^/]+/api/v1/namespaces/[^/]+/events", {"kind": "EventList"},
     "events of pod"),
    ("pod-a-string", KUBE_POD, "Running", "pod rag-embedder-ft-0-0"),
    ("pod-status-a-list", KUBE_POD, {"status": []}, "pod rag-embedder-ft-0-0"),
    ("logs-json", rf"{KUBE_POD}/log", {"kind": "Status", "status": "Success"}, "logs of container"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("path", "body", "gap"), [pytest.param(*c[1:], id=c[0]) for c in WRONG_KUBE_BODIES]
)
async def test_wrong_shaped_kubernetes_body_is_a_stated_gap(path, body, gap):
    scenario = _bundled("t2-still-running", {"path": path, "body": body})
    report, _ = await _run(scenario)

    assert report.outcome.value == "diagnosed"
    named = [m for m in report.missing if gap in m]
    assert named, report.missing
    assert "not the documented shape" in named[0]


SPEC = r"/api/v1/workloads/(?:trainings|workspaces|inferences|distributed)/[^/]+"
CRASH_POD = "clip-ft-laion-0-0"
WRONG_BODIES = [
    # id, fault path, body, the gap that must be named, the category that stays (None: any)
    ("kube-pod-empty-object", KUBE_POD, {}, f"pod {CRASH_POD}", None),
    ("kube-pod-a-pod-list", KUBE_POD, {"kind": "PodList", "items": []}, f"pod {CRASH_POD}", None),
    ("kube-pod-status-null", KUBE_POD,
     {"metadata": {"name": CRASH_POD, "namespace": "runai-vision"}, "status": None},
     f"pod {CRASH_POD}", None),
    ("kube-pod-another-pod", KUBE_POD,
     {"metadata": {"name": "other-0-0", "namespace": "runai-vision"}, "status": {"phase": "Running"}},
     f"pod {CRASH_POD}", None),
    ("runai-spec-empty-object", SPEC, {}, "submitted spec", "CRASH_APP_ERROR"),
    ("runai-spec-a-status", SPEC, {"kind": "Status", "status": "Failure"}, "submitted spec",
     "CRASH_APP_ERROR"),
    ("runai-spec-without-spec", SPEC,
     {"workloadId": "0cb036e0-e3e9-4153-8118-ff25c40f4e8e", "name": "clip-ft-laion", "spec": None},
     "kind-specific spec", "CRASH_APP_ERROR"),
    ("runai-pods-null", r"/api/v1/workloads/[^/]+/pods", {"pods": None}, "pods unavailable", None),
    ("runai-history-null", r"/api/v1/workloads/[^/]+/history", {"records": None},
     "history unavailable", "CRASH_APP_ERROR"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("path", "body", "gap", "category"), [pytest.param(*c[1:], id=c[0]) for c in WRONG_BODIES]
)
async def test_a_read_that_cannot_be_used_is_a_gap_never_a_silent_drop(path, body, gap, category):
    """Lost evidence is a gap: a wrong-shaped body on any read is named in what is missing."""
    scenario = _bundled("t2-crash-exit1-traceback", {"path": path, "body": body})
    report, _ = await _run(scenario)

    assert report.outcome.value == "diagnosed"
    assert [m for m in report.missing if gap in m], report.missing
    if category is not None:
        assert report.category is not None
        assert report.category.value == category


async def test_a_wrong_shaped_node_is_a_gap():
    body = {"metadata": {"name": "dgx-a100-12"}, "status": None}
    scenario = _bundled(
        "t2-node-notready", {"path": r"/k8s/[^/]+/api/v1/nodes/[^/]+", "body": body}
    )
    report, _ = await _run(scenario)

    assert [m for m in report.missing if "node dgx-a100-12" in m], report.missing


async def test_null_metrics_are_a_gap_not_an_empty_series():
    scenario = _bundled(
        "t2-oom-lastState",
        {"path": r"/api/v1/workloads/[^/]+/metrics", "body": {"measurements": None}},
    )
    report, _ = await _run(scenario)

    assert [m for m in report.missing if "CPU-memory metrics unavailable" in m], report.missing


@pytest.mark.parametrize(("name", "days_later"), [("crash-app-error", 0), ("mount-failed", 3)])
async def test_events_are_fetched_once_per_diagnosis(name, days_later):
    scenario = _bundled(name, days_later=days_later)
    _, requests = await _run(scenario)
    events = [r for r in requests if r.path.startswith("/api/v1/") and r.path.endswith("/events")]
    assert len(events) == 1, [r.query for r in events]


async def test_a_hung_endpoint_is_a_gap_at_the_deadline():
    scenario = _bundled(
        "crash-app-error", {"path": r"/api/v1/workloads/[^/]+/history", "latency_ms": 1500}
    )
    report, _ = await _run(scenario, deadline_s=0.4)

    assert report.outcome.value == "diagnosed"
    assert any(
        "history unavailable (no answer before the 0.4 s diagnosis deadline)" in m
        for m in report.missing
    ), report.missing


async def test_a_hung_status_call_fails_at_the_deadline():
    scenario = _bundled("crash-app-error", {"path": r"/api/v1/workloads/[^/]+", "latency_ms": 1500})
    with pytest.raises(UpstreamTimeout, match="diagnosis deadline"):
        await _run(scenario, deadline_s=0.3)


async def test_kubernetes_calls_are_retried_as_in_production():
    scenario = _bundled("t2-still-running", {"path": KUBE_POD, "status": 503, "count": 1})
    report, requests = await _run(scenario)

    assert not [m for m in report.missing if "kubectl describe pod" in m], report.missing
    assert [r.status for r in requests if r.path.endswith("/pods/rag-embedder-ft-0-0")] == [
        503,
        200,
    ]


@pytest.mark.parametrize(("newest_first", "missing"), [(True, "older than"), (False, "newer than")])
async def test_history_past_the_cap_keeps_what_was_read(monkeypatch, newest_first, missing):
    monkeypatch.setattr(history_client, "HISTORY_PAGE_SIZE", 2)
    monkeypatch.setattr(history_client, "HISTORY_MAX_PAGES", 2)
    scenario = _bundled("events-unavailable")
    if newest_first:
        entry = scenario.workloads[0]
        entry = entry.model_copy(update={"history": list(reversed(entry.history))})
        scenario = scenario.model_copy(update={"workloads": [entry]})
    report, _ = await _run(scenario)

    assert report.recurrence is not None
    assert report.recurrence.count is not None  # history was read, partly: not "unavailable"
    gap = next(m for m in report.missing if m.startswith("history"))
    assert f"history {missing} " in gap
    assert "the 4 records within the lookback that were read are used" in gap
    if newest_first:  # the newest records hold the failure: it is still classified
        assert report.category is not None
        assert report.category.value == "CRASH_APP_ERROR"


class _OrderedKube:
    """A Kubernetes reader whose pods answer in the order given, whatever was asked first."""

    def __init__(self, order: list[str]) -> None:
        self._order = order
        self._turn = asyncio.Condition()
        self._done: list[str] = []

    async def get_pod(self, namespace: str, name: str) -> Pod:
        async with self._turn:
            await asyncio.wait_for(
                self._turn.wait_for(lambda: self._order[len(self._done)] == name), timeout=5
            )
            self._done.append(name)
            self._turn.notify_all()
        return Pod.model_validate(
            {
                "metadata": {"name": name, "namespace": namespace},
                "spec": {"nodeName": "n-1"},
                "status": {
                    "phase": "Failed",
                    "containerStatuses": [
                        {"name": "trainer", "state": {"terminated": {"exitCode": 1}}}
                    ],
                },
            }
        )

    async def list_pod_events(self, *_: str) -> list[KubeEvent]:
        return []

    async def get_logs(
        self,
        namespace: str,
        pod: str,
        container: str,
        *,
        previous: bool,
        tail_lines: int = 200,
        limit_bytes: int = 64_000,
    ) -> str:
        del namespace, container, previous, tail_lines, limit_bytes  # the protocol's signature
        return f"RuntimeError: {pod} failed\n"

    async def get_node(self, name: str) -> KubeNode:
        raise AssertionError(f"node {name} is not implicated")

    async def list_node_events(self, name: str) -> list[KubeEvent]:
        raise AssertionError(f"node {name} is not implicated")

    async def get_podgroup(self, namespace: str, name: str) -> PodGroup:
        raise AssertionError(f"podgroup {namespace}/{name} is not read for a failure")

    async def get_queue(self, name: str) -> Queue:
        raise AssertionError(f"queue {name} is not read for a failure")

    async def list_object_events(self, namespace: str, kind: str, name: str) -> list[KubeEvent]:
        raise AssertionError(f"{kind} {namespace}/{name} is not read for a failure")


@pytest.mark.parametrize("order", [["t-0-0", "t-0-1", "t-0-2"], ["t-0-2", "t-0-1", "t-0-0"]])
async def test_per_pod_collection_does_not_depend_on_completion_order(order):
    pods = tuple(RunaiPod(name=f"t-0-{i}", k8s_phase="Failed") for i in range(3))
    tier2 = await collect_tier2(
        _OrderedKube(order), workload(), pods, since=NOW - timedelta(days=1), redactor=Redactor()
    )
    assert [s.text for s in tier2.signals if s.kind.value == "log_error"] == [
        "RuntimeError: t-0-0 failed",
        "RuntimeError: t-0-1 failed",
        "RuntimeError: t-0-2 failed",
    ]
    assert [s.origin for s in tier2.signals if s.kind.value == "exit_code"] == [
        "pod t-0-0",
        "pod t-0-1",
        "pod t-0-2",
    ]


async def test_a_wrong_request_is_still_not_found_by_id():
    scenario = _bundled("not-found")
    cluster = scenario.clusters[0]["uuid"]
    request = DiagnosisRequest(
        cluster_id=cluster, workload_id="00000000-0000-4000-8000-0000000000ff"
    )
    async with simulated(scenario, retries=0, transport="asgi") as up:
        report = await diagnose(request, runai=up.runai, now=scenario.now)
    assert report.outcome.value == "not_found"
    assert report.missing == ()  # no meaningless "Not measured: workload"
