"""The workload index answers as a scan of the scenario's list would, however it changes."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.app.demo.scenarios import bundled_scenario
from runai_sim.scenario import Scenario, WorkloadEntry


def _scan(scenario: Scenario, workload_id: str) -> WorkloadEntry | None:
    return next((e for e in scenario.workloads if e.id == workload_id), None)


def _renamed(entry: WorkloadEntry, **changes: str) -> WorkloadEntry:
    copy = entry.model_copy(deep=True)
    copy.workload.update(changes)
    return copy


def _append(s: Scenario) -> None:
    s.workloads.append(_renamed(s.workloads[0], id="new-id", name="new-name"))


def _replace(s: Scenario) -> None:
    s.workloads[0] = _renamed(s.workloads[0], name="replaced-name")


def _delete(s: Scenario) -> None:
    del s.workloads[0]


def _edit_id_in_place(s: Scenario) -> None:
    s.workloads[1].workload["id"] = "edited-id"


def _edit_name_in_place(s: Scenario) -> None:
    s.workloads[1].workload["name"] = "edited-name"


def _reassign(s: Scenario) -> None:
    s.workloads = list(reversed(s.workloads))


def _duplicate_id_first(s: Scenario) -> None:
    s.workloads.insert(0, _renamed(s.workloads[2], name="an-earlier-twin"))


CHANGES: list[Callable[[Scenario], None]] = [
    _append,
    _replace,
    _delete,
    _edit_id_in_place,
    _edit_name_in_place,
    _reassign,
    _duplicate_id_first,
]


@pytest.mark.parametrize("change", CHANGES, ids=lambda c: c.__name__.strip("_"))
def test_after_each_change_lookups_match_a_scan(change: Callable[[Scenario], None]):
    scenario = bundled_scenario("demo").model_copy(deep=True)
    asked = [e.id for e in scenario.workloads] + ["new-id", "edited-id", "nobody"]
    assert all(scenario.workload(i) is _scan(scenario, i) for i in asked)  # indexed before
    change(scenario)
    for workload_id in asked:
        assert scenario.workload(workload_id) is _scan(scenario, workload_id), workload_id
    names = {str(e.workload.get("name")) for e in scenario.workloads} | {"nobody"}
    for name in names:
        expected = [e for e in scenario.workloads if e.workload.get("name") == name]
        found = [e for e in scenario.index.named(name) if e.workload.get("name") == name]
        assert found == expected, name


def test_a_deep_copy_indexes_its_own_list():
    original = bundled_scenario("demo")
    copy = original.model_copy(deep=True)
    first = copy.workloads[0].id
    assert original.workload(first) is original.workloads[0]
    del copy.workloads[0]
    assert copy.workload(first) is None
    assert original.workload(first) is original.workloads[0]
