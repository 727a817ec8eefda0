"""The bundled scenario of a failure with an earlier good run, and that run made another kind."""

from __future__ import annotations

from bot.app.demo.scenarios import bundled_scenario
from runai_sim.scenario import Scenario

__all__ = ["CHANGED", "FAILED_ID", "GOOD_ID", "with_good_run_as"]

CHANGED = bundled_scenario("t2-oom-changed-since-good-run")
FAILED_ID = CHANGED.expect[0]["request"]["workload_id"]
GOOD_ID = CHANGED.expect[1]["request"]["workload_id"]


def with_good_run_as(kind: str, type_: str) -> Scenario:
    """The scenario with the good run of another kind (same name, same project)."""
    data = CHANGED.model_dump(mode="json")
    entry = next(w for w in data["workloads"] if w["workload"]["id"] == GOOD_ID)
    entry["kind"], entry["workload"]["type"] = kind, type_
    return Scenario.parse(data)
