"""Lost events never turn a failure into "not a failure": the phase gate reads history first.

Each row is a bundled Pending, Running or Failed scenario whose events call fails one way or
another (403, 503, `events: null`, a wrong-shaped body), with history holding (or not) the
evidence of a failed pod, run end to end over real HTTP.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.app.backends import simulated
from bot.app.demo.scenarios import bundled_paths
from diagnosis import DiagnosisRequest, diagnose
from runai_sim.scenario import Scenario

PULL = 'Failed to pull image "nvcr.io/acme/x:9": rpc error: code = NotFound desc = x:9: not found'
MOUNT = 'MountVolume.SetUp failed for volume "data" : persistentvolumeclaim "nlp-data" not found'
LOOP = "Back-off restarting failed container trainer in pod t-0-0_runai-nlp(1f2e)"

FAULTS: dict[str, dict[str, Any]] = {
    "403": {"status": 403},
    "503": {"status": 503},
    "null": {"body": "null-events"},
    "malformed": {"body": {"events": "unavailable"}},
    "none": {},
}


def _scenario(name: str, fault: str, history_events: list[tuple[str, str]]) -> Scenario:
    [path] = [p for p in bundled_paths() if p.stem == name]
    data = json.loads(path.read_text(encoding="utf-8"))
    entry = data["workloads"][0]
    workload = entry["workload"]
    workload["phaseMessage"] = ""
    when = workload["phaseUpdatedAt"]
    for index, (reason, message) in enumerate(history_events):
        entry["history"].append(
            {
                "meta": {"creationTimestamp": when, "type": "Event"},
                "spec": {
                    "event": {
                        "createdAt": when,
                        "id": f"00000000-0000-4000-8000-{index:012d}",
                        "type": "Warning",
                        "reason": reason,
                        "message": message,
                        "clusterId": workload["clusterId"],
                    }
                },
            }
        )
    if FAULTS[fault]:
        path_rx = f"/api/v1/workloads/{workload['id']}/events"
        data["faults"] = [{"path": path_rx, **FAULTS[fault]}]
    return Scenario.parse(data, source=str(path))


CASES = [
    # id, scenario, events fault, history events, outcome, category, headline parts
    (
        "pending-403-history-pull",
        "pending-scheduling",
        "403",
        [("Failed", PULL)],
        "diagnosed",
        "IMAGE_PULL_FAILED",
        [],
    ),
    (
        "pending-503-history-mount",
        "pending-scheduling",
        "503",
        [("FailedMount", MOUNT)],
        "diagnosed",
        "DATASOURCE_MOUNT_FAILED",
        [],
    ),
    (
        "pending-null-history-pull",
        "pending-scheduling",
        "null",
        [("Failed", PULL)],
        "diagnosed",
        "IMAGE_PULL_FAILED",
        [],
    ),
    (
        "pending-malformed-history-pull",
        "pending-scheduling",
        "malformed",
        [("Failed", PULL)],
        "diagnosed",
        "IMAGE_PULL_FAILED",
        [],
    ),
    (
        "pending-403-nothing-confirms",
        "pending-scheduling",
        "403",
        [],
        "pending_scheduling",
        None,
        ["events are unavailable (HTTP 403)", "cannot be told apart from a failed pod"],
    ),
    (
        "running-403-history-crashloop",
        "running-no-failure",
        "403",
        [("BackOff", LOOP), ("Failed", "container trainer terminated with exit code 1")],
        "diagnosed",
        "CRASH_APP_ERROR",
        [],
    ),
    (
        "running-503-crashloop-alone-is-in-scope",
        "running-no-failure",
        "503",
        [("BackOff", LOOP)],
        "diagnosed",
        "UNKNOWN",
        [],
    ),
    (
        "running-null-nothing-confirms",
        "running-no-failure",
        "null",
        [],
        "running_no_failure",
        None,
        ["events are unavailable (the API returned events: null)", "cannot be excluded"],
    ),
    (
        "failed-null-still-classified",
        "events-unavailable",
        "none",
        [],
        "diagnosed",
        "CRASH_APP_ERROR",
        [],
    ),
]


@pytest.mark.parametrize(
    ("name", "fault", "history", "expected"),
    [pytest.param(*row[1:4], row[4:], id=row[0]) for row in CASES],
)
async def test_lost_events_are_a_gap_not_an_answer(name, fault, history, expected):
    outcome, category, headline = expected
    scenario = _scenario(name, fault, history)
    workload = scenario.workloads[0].workload
    request = DiagnosisRequest(cluster_id=workload["clusterId"], workload_id=workload["id"])
    async with simulated(scenario, retries=0, transport="asgi") as up:
        report = await diagnose(request, runai=up.runai, kube=up.kube, now=scenario.now)

    assert report.outcome.value == outcome, report.headline
    assert (report.category.value if report.category else None) == category, report.headline
    for part in headline:
        assert part in report.headline
    assert "no pod has failed" not in report.headline
    assert any("events unavailable" in m for m in report.missing)


async def test_history_lost_too_names_both_gaps_and_claims_nothing():
    scenario = _scenario("pending-scheduling", "403", [])
    workload = scenario.workloads[0].workload
    history = {"path": f"/api/v1/workloads/{workload['id']}/history", "status": 503}
    scenario = Scenario.parse(
        {**scenario.model_dump(mode="json"), "faults": [*scenario.model_dump()["faults"], history]}
    )
    request = DiagnosisRequest(cluster_id=workload["clusterId"], workload_id=workload["id"])
    async with simulated(scenario, retries=0, transport="asgi") as up:
        report = await diagnose(request, runai=up.runai, kube=up.kube, now=scenario.now)

    assert report.outcome.value == "pending_scheduling"
    assert "cannot be told apart from a failed pod" in report.headline
    assert "shows no failed pod" not in report.headline
    assert any("history unavailable (HTTP 503" in m for m in report.missing)


async def test_a_symptom_that_could_not_be_checked_is_said_so():
    """Resolving by symptom: a candidate whose events were lost was not checked, not cleared."""
    [path] = [p for p in bundled_paths() if p.stem == "name-several-matches"]
    data = json.loads(path.read_text(encoding="utf-8"))
    data["faults"] = [{"path": r"/api/v1/workloads/[^/]+/events", "status": 403}]
    for entry in data["workloads"]:
        if entry["workload"]["phase"] == "Running":  # the crash loop is only in its events
            entry["workload"].update(phaseMessage="", conditions=[])
    scenario = Scenario.parse(data, source=str(path))
    request = DiagnosisRequest(
        cluster_id=scenario.clusters[0]["uuid"],
        workload_name="train-bert",
        project="nlp",
        symptom="crashloop",
    )
    async with simulated(scenario, retries=0, transport="asgi") as up:
        report = await diagnose(request, runai=up.runai, kube=up.kube, now=scenario.now)

    assert report.outcome.value == "needs_input"
    assert "the events were unavailable (HTTP 403), so it could not be checked" in report.headline


PENDING_POD = {
    "metadata": {"name": "llama-70b-ft-0-0", "namespace": "runai-ml-team"},
    "spec": {"containers": [{"name": "trainer"}]},
    "status": {
        "phase": "Pending",
        "conditions": [
            {
                "type": "PodScheduled",
                "status": "False",
                "reason": "Unschedulable",
                "message": "0/12 nodes are available: 12 Insufficient nvidia.com/gpu.",
            }
        ],
    },
}


@pytest.mark.parametrize(
    ("pods", "said"),
    [
        ([PENDING_POD], "History and Kubernetes show no failed pod either."),
        ([], "History shows no failed pod either."),  # the pod read failed: not cited
    ],
)
async def test_only_what_was_read_is_said_to_show_nothing(pods, said):
    scenario = _scenario("pending-scheduling", "403", [])
    data = scenario.model_dump(mode="json", by_alias=True)
    data["kubernetes"] = {"pods": pods}
    scenario = Scenario.parse(data)
    workload = scenario.workloads[0].workload
    request = DiagnosisRequest(cluster_id=workload["clusterId"], workload_id=workload["id"])
    async with simulated(scenario, retries=0, transport="asgi") as up:
        report = await diagnose(request, runai=up.runai, kube=up.kube, now=scenario.now)

    assert report.outcome.value == "pending_scheduling", report.headline
    assert report.headline.endswith(said), report.headline
