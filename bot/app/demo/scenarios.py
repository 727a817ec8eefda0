"""The bundled scenario library (`runai_sim/scenarios/`) and its `expect` requests."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from diagnosis import DiagnosisRequest, Symptom, parse_lookback
from runai_sim.scenario import Scenario, ScenarioError

__all__ = ["bundled_paths", "bundled_scenario", "request_from_expectation"]


def bundled_paths() -> list[Path]:
    """Every bundled scenario file, sorted by name."""
    folder = resources.files("runai_sim") / "scenarios"
    return sorted(Path(str(p)) for p in folder.iterdir() if p.name.endswith(".json"))


def bundled_scenario(name: str) -> Scenario:
    """Load the bundled scenario `<name>.json`."""
    for path in bundled_paths():
        if path.stem == name:
            return Scenario.load(path)
    raise ScenarioError(f"no bundled scenario named {name!r}")


def request_from_expectation(scenario: Scenario, expectation: dict[str, Any]) -> DiagnosisRequest:
    """The request of one `expect` entry; the cluster defaults to the scenario's first one."""
    fields = dict(expectation.get("request", {}))
    if "cluster_id" not in fields and scenario.clusters:
        fields["cluster_id"] = scenario.clusters[0]["uuid"]
    lookback = parse_lookback(fields.pop("lookback", "24h"))
    symptom = fields.pop("symptom", None)
    return DiagnosisRequest(
        **fields, lookback=lookback, symptom=Symptom(symptom) if symptom else None
    )
