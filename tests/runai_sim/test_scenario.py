import json
from pathlib import Path

import pytest

from runai_sim import Scenario, ScenarioError
from runai_sim.scenario_parts import WorkloadEntry
from tests.runai_sim.sim_helpers import BASIC


def write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


def minimal(**extra: object) -> dict:
    return {"name": "t", "now": "2025-11-03T09:40:00Z", **extra}


def test_basic_scenario_loads_and_matches_the_official_schemas():
    scenario = Scenario.load(BASIC)
    assert scenario.name == "basic"
    assert scenario.now.isoformat() == "2025-11-03T09:40:00+00:00"
    assert scenario.schema_problems() == []
    assert scenario.credentials.client_id == "runai-why-demo"
    assert scenario.credentials.client_secret == "demo-secret"


def test_minimal_scenario_gets_defaults(tmp_path):
    scenario = Scenario.load(write(tmp_path, minimal()))
    assert scenario.workloads == []
    assert scenario.latency_ms == 0
    assert scenario.faults == []


def test_missing_file_names_the_file(tmp_path):
    missing = tmp_path / "nope.json"
    with pytest.raises(ScenarioError, match=r"nope\.json: cannot read"):
        Scenario.load(missing)


def test_invalid_json_names_file_and_position(tmp_path):
    with pytest.raises(ScenarioError, match=r"scenario\.json: not valid JSON: .*line 1"):
        Scenario.load(write(tmp_path, "{not json"))


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"now": "2025-11-03T09:40:00Z"}, "name"),
        ({"name": "t"}, "now"),
        (minimal(now="2025-11-03T09:40:00"), "now"),  # naive times are ambiguous
        (minimal(workloads=[{"workload": {"name": "x"}}]), "workloads.0.workload"),
        (minimal(workloads=[{"workload": {"id": "a"}, "podz": []}]), "workloads.0.podz"),
        (minimal(workloads=[{"workload": {"id": "a"}, "kind": "jobs"}]), "workloads.0.kind"),
        (minimal(workloads=[{"workload": {"id": "a"}}, {"workload": {"id": "a"}}]), "workloads"),
        (minimal(workloads=[{"workload": {"id": "a"}, "events": [{"type": "Normal"}]}]), "events"),
        (
            minimal(workloads=[{"workload": {"id": "a"}, "metrics": [{"values": []}]}]),
            "workloads.0.metrics",
        ),
        (minimal(clusters=[{"name": "c"}]), "clusters"),
        (minimal(nodes=[{"status": "Ready"}]), "nodes"),
        (minimal(faults=[{"path": "(", "status": 503}]), "faults.0.path"),
        (minimal(faults=[{"path": "/x", "status": 999}]), "faults.0.status"),
        (minimal(latency_ms=-1), "latency_ms"),
        (minimal(credentials={"client_id": "x", "secret": "y"}), "credentials.secret"),
        (minimal(workload=[]), "workload"),  # typo of a top-level key
        ([], "<top level>"),
    ],
)
def test_invalid_scenarios_name_file_and_key(tmp_path, data, key):
    with pytest.raises(ScenarioError) as caught:
        Scenario.load(write(tmp_path, data))
    message = str(caught.value)
    assert message.startswith(str(tmp_path / "scenario.json"))
    assert key in message


def test_optional_keys_are_accepted_and_underscore_keys_are_comments(tmp_path):
    data = minimal(
        _comment="ignored",
        description="d",
        kubernetes={"pods": []},
        expect={"category": "OOM_KILLED"},
        credentials={"client_id": "me", "client_secret": "s3cret"},
        workloads=[{"_why": "comment", "workload": {"id": "a"}, "events": None}],
    )
    scenario = Scenario.load(write(tmp_path, data))
    assert scenario.expect == {"category": "OOM_KILLED"}
    listed = Scenario.parse(minimal(expect=[{"outcome": "diagnosed"}]))
    assert listed.expect == [{"outcome": "diagnosed"}]
    assert scenario.credentials.client_id == "me"
    assert scenario.workloads[0].events is None


def test_absent_events_mean_an_empty_list_and_null_means_null():
    assert WorkloadEntry.model_validate({"workload": {"id": "a"}}).events == []
    assert WorkloadEntry.model_validate({"workload": {"id": "a"}, "events": None}).events is None


@pytest.mark.parametrize(
    ("entry", "kind"),
    [
        ({"workload": {"id": "a", "type": "Training"}}, "trainings"),
        ({"workload": {"id": "a", "type": "workspace"}}, "workspaces"),
        ({"workload": {"id": "a", "type": "INFERENCE"}}, "inferences"),
        ({"workload": {"id": "a", "type": "Distributed"}}, "distributed"),
        ({"workload": {"id": "a", "type": "runai-job"}}, "trainings"),
        ({"workload": {"id": "a"}}, "trainings"),
        ({"workload": {"id": "a", "type": "Training"}, "kind": "v2"}, "v2"),
        ({"workload": {"id": "a"}, "kind": "distributed-inferences"}, "distributed-inferences"),
    ],
)
def test_spec_kind_resolution(entry, kind):
    assert WorkloadEntry.model_validate(entry).resolved_kind == kind


def test_schema_problems_lists_missing_required_members(tmp_path):
    data = minimal(workloads=[{"workload": {"id": "a", "name": "x"}, "pods": [{"name": "p"}]}])
    problems = Scenario.load(write(tmp_path, data)).schema_problems()
    assert any(p.startswith("workloads[0].workload (Workload) lacks type") for p in problems)
    assert any(p.startswith("workloads[0].pods[0] (Pod1) lacks id") for p in problems)
