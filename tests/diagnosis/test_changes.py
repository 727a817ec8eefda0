"""What changed since the last good run: which run is compared, and what is compared.

The skill's step 2 inspects the submitted spec (image, command, memory request and limit,
mounts) to corroborate runtime evidence; comparing it with the last run of the same name
that worked answers "what changed?". Values are redacted, environment variables are compared
by name only, and a run the asker may not read is never compared with.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from bot.app.backends import simulated
from bot.app.demo.scenarios import request_from_expectation
from bot.render.plan import answer
from diagnosis import WorkloadAccess, diagnose
from diagnosis.changes import compare, earlier_good_runs
from diagnosis.report_parts import Change
from diagnosis.runai.models import Workload, WorkloadSpec
from tests.diagnosis.doubles import Refusing
from tests.diagnosis.good_runs import CHANGED, FAILED_ID, GOOD_ID, with_good_run_as
from tests.factories import NOW, ago, iso, workload

HF = "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"


def spec(**fields: Any) -> WorkloadSpec:
    body: dict[str, Any] = {
        "image": "nvcr.io/acme/llm-ft:1.3",
        "command": "torchrun",
        "args": "train.py --epochs 3",
        "compute": {"cpuMemoryRequest": "48Gi", "cpuMemoryLimit": "48Gi", "gpuDevicesRequest": 8},
        "nodePools": ["a100"],
        "environmentVariables": [{"name": "WANDB_PROJECT", "value": "llm"}],
        "storage": {"pvc": [{"name": "data", "claimName": "nlp-data", "path": "/data"}]},
    }
    body.update(fields)
    return WorkloadSpec.model_validate({"workloadId": "x", "spec": body})


GOOD = workload(id="good", phase="Succeeded")
FAILED = workload()

CASES = [
    # id, the failed run's spec fields, the changes
    ("nothing", {}, []),
    ("image", {"image": "nvcr.io/acme/llm-ft:1.4"},
     [Change(what="image", before="nvcr.io/acme/llm-ft:1.3", after="nvcr.io/acme/llm-ft:1.4")]),
    ("same-quantity-another-unit", {"compute": {"cpuMemoryRequest": "51539607552",
                                                "cpuMemoryLimit": "48Gi", "gpuDevicesRequest": 8}},
     []),
    ("memory-limit-and-gpus", {"compute": {"cpuMemoryRequest": "48Gi", "cpuMemoryLimit": "32Gi",
                                           "gpuDevicesRequest": 4}},
     [Change(what="CPU-memory limit", before="48Gi", after="32Gi"),
      Change(what="GPU count", before="8", after="4")]),
    ("gpu-fraction", {"compute": {"cpuMemoryRequest": "48Gi", "cpuMemoryLimit": "48Gi",
                                  "gpuPortionRequest": 0.5}},
     [Change(what="GPU count", before="8", after=None),
      Change(what="GPU fraction", before=None, after="0.5")]),
    ("node-pool", {"nodePools": ["h100"]},
     [Change(what="node pools", before="a100", after="h100")]),
    ("env-names-never-values", {"environmentVariables": [
        {"name": "WANDB_PROJECT", "value": "other"}, {"name": "HF_TOKEN", "value": HF}]},
     [Change(what="environment variables", before=None, after="HF_TOKEN", kind="set")]),
    ("data-sources", {"storage": {"pvc": [{"name": "data", "claimName": "nlp-data-v2"}],
                                  "s3": [{"name": "ckpt", "bucket": "ckpts"}]}},
     [Change(what="data sources", before="pvc nlp-data",
             after="pvc nlp-data-v2, s3 ckpt", kind="set")]),
]  # fmt: skip


@pytest.mark.parametrize(("fields", "expected"), [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_compare(fields, expected):
    assert compare(spec(), GOOD, spec(**fields), FAILED) == expected


def test_command_and_arguments_are_compared_redacted():
    [change] = compare(spec(), GOOD, spec(args=f"train.py --hf-token {HF}"), FAILED)

    assert change.what == "arguments"
    assert HF not in (change.after or "")
    assert "[REDACTED:" in (change.after or "")


def test_without_specs_the_workload_records_are_compared():
    old = workload(id="good", images=["nvcr.io/acme/a:1"], command="python")
    new = workload(images=["nvcr.io/acme/a:2"], command="python")
    assert compare(None, old, None, new) == [
        Change(what="image", before="nvcr.io/acme/a:1", after="nvcr.io/acme/a:2")
    ]


def _submission(wid: str, phase: str, *, created: float, updated: float, ran: float) -> Workload:
    return workload(
        id=wid,
        phase=phase,
        createdAt=iso(ago(created)),
        phaseUpdatedAt=iso(ago(updated)),
        totalRunningTimeSeconds=ran,
    )


def test_which_earlier_run_is_the_last_good_one():
    failed = _submission("now", "Failed", created=60, updated=10, ran=600)
    runs = [
        failed,
        _submission(
            "later", "Succeeded", created=30, updated=20, ran=900
        ),  # after the failure's start
        _submission("good", "Succeeded", created=300, updated=200, ran=3000),
        _submission("long-failed", "Failed", created=500, updated=400, ran=7200),  # ran longer
        _submission("short-failed", "Failed", created=700, updated=600, ran=60),  # did not
        _submission("too-old", "Completed", created=3000, updated=2000, ran=3000),
    ]
    found = earlier_good_runs(failed, runs, cutoff=NOW - timedelta(hours=24))
    assert [w.id for w in found] == ["good", "long-failed"]


# ------------------------------------------------------------------ end to end, per asker


async def test_the_last_good_run_is_compared_only_if_the_asker_may_read_it():
    scenario = with_good_run_as("workspaces", "Workspace")
    request = request_from_expectation(scenario, scenario.expect[0])
    refusing = Refusing(("nlp", "Workspace"))
    async with simulated(scenario, retries=0, transport="asgi") as up:
        assert up.simulator is not None
        report = await diagnose(request, runai=up.runai, kube=up.kube, now=scenario.now)
        up.simulator.clear_requests()
        refused = await diagnose(
            request, runai=up.runai, kube=up.kube, now=scenario.now, authorize=refusing
        )
        specs = [r.path for r in up.simulator.requests if GOOD_ID in r.path]

    assert report.changes is not None
    assert report.changes.since_id == GOOD_ID
    assert refused.changes is None
    assert WorkloadAccess(CHANGED.clusters[0]["uuid"], "nlp", "Workspace") in refusing.asked
    assert specs == [], "nothing of a workload the asker may not read is fetched"


async def test_json_changes_and_the_answer_s_one_line():
    request = request_from_expectation(CHANGED, CHANGED.expect[0])
    async with simulated(CHANGED, retries=0, transport="asgi") as up:
        report = await diagnose(request, runai=up.runai, kube=up.kube, now=CHANGED.now)
    data = report.to_json_dict("24h")

    assert data["changes"]["since_phase"] == "Succeeded"
    assert {c["what"] for c in data["changes"]["items"]} >= {"image", "CPU-memory limit"}
    assert HF not in str(data)
    [summary] = [line for line in answer(report).lines if line.text.startswith("Changed since")]
    assert summary.sources == ("get_workload_spec",)


async def test_by_name_the_submissions_resolution_listed_are_used():
    by_id = request_from_expectation(CHANGED, CHANGED.expect[0])
    failed = CHANGED.workload(FAILED_ID)
    assert failed is not None
    by_name = by_id.model_copy(
        update={
            "workload_id": None,
            "workload_name": failed.workload["name"],
            "project": failed.workload["projectName"],
        }
    )
    async with simulated(CHANGED, retries=0, transport="asgi") as up:
        assert up.simulator is not None
        report = await diagnose(by_name, runai=up.runai, kube=up.kube, now=CHANGED.now)
        listed = [r for r in up.simulator.requests if r.path == "/api/v1/workloads"]

    assert report.changes is not None
    assert report.changes.since_id == GOOD_ID
    assert len(listed) == 1, "resolution's list of the name is the one compared"
