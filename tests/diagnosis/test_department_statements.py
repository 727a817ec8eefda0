"""What the scheduler says of a department's limit reaches only whoever may read that department.

Scenario `tests.diagnosis.department_limit`: llama-8b-eval is over its department
ml-platform's GPU limit, and the scheduler's typed reason, its message and its events give
that department's limit and usage. An asker who may read the department gets them; anyone
else gets the same reason without a figure of the department's: asked, shared with others,
shown again to them, or asked when the department's own read fails.
"""

from __future__ import annotations

from bot.app.backends import simulated
from bot.app.demo.scenarios import request_from_expectation
from diagnosis import DepartmentAccess, Report, WorkloadAccess, diagnose, for_viewer
from runai_sim.scenario import Scenario
from tests.diagnosis.department_limit import FIGURES, ML_PLATFORM, over_department_limit
from tests.diagnosis.doubles import Memo

LIMITED = over_department_limit()
DEPARTMENT_READ = "/api/v1/org-unit/departments/1"


class Asker:
    """Reads ml-team's workloads, and the `departments` (IDs)."""

    def __init__(self, *departments: str) -> None:
        self.departments = set(departments)

    async def __call__(self, access: WorkloadAccess | DepartmentAccess, /) -> bool:
        if isinstance(access, DepartmentAccess):
            return access.department_id in self.departments
        return access.project == "ml-team"


READER, OTHER = Asker(ML_PLATFORM), Asker()


async def _asked(
    asker: Asker, *, scenario: Scenario = LIMITED, share: Memo | None = None, up=None
) -> Report:
    request = request_from_expectation(scenario, scenario.expect[0])
    if up is not None:
        return await diagnose(
            request, runai=up.runai, now=scenario.now, authorize=asker, share=share
        )
    async with simulated(scenario, retries=0, transport="asgi") as found:
        return await diagnose(
            request, runai=found.runai, now=scenario.now, authorize=asker, share=share
        )


def _leaked(report: Report) -> list[str]:
    """The department's figures anywhere in what is kept of `report` (its JSON included)."""
    text = report.model_dump_json()
    return [figure for figure in FIGURES if figure in text]


def _without_them(report: Report) -> None:
    """The answer for who may not read ml-platform: its reason, none of its figures."""
    assert _leaked(report) == []
    assert report.pending is not None
    assert report.pending.reason == "OVER_LIMIT"
    assert report.headline.startswith(
        "Over the department's GPUs limit in node pool default: requested 4 GPUs (the "
        "department's figures: not shown here)."
    )
    quoted = "Pending scheduling message: OverLimit: [the scheduler's words on department "
    assert any(e.text.startswith(quoted) for e in report.evidence)
    assert any("as the scheduler stated them (not shown to you" in m for m in report.missing)


async def test_the_reader_gets_the_departments_limit_and_carries_the_answer_for_others():
    report = await _asked(READER)
    assert report.headline.startswith(
        "Over the department's GPUs limit in node pool default: limit 12 GPUs, allocated 14 "
        "GPUs, requested 4 GPUs (the scheduler's figures for the department)."
    )
    assert report.without_department is not None
    assert report.without_department.department_id == ML_PLATFORM
    _without_them(report.without_department.report)


async def test_who_may_not_read_the_department_gets_the_reason_without_its_figures():
    async with simulated(LIMITED, retries=0, transport="asgi") as up:
        assert up.simulator is not None
        report = await _asked(OTHER, up=up)
        read = [r.path for r in up.simulator.requests]
    _without_them(report)
    assert report.without_department is None
    assert DEPARTMENT_READ not in read


async def test_a_shared_answer_is_each_askers_own():
    memo = Memo()
    async with simulated(LIMITED, retries=0, transport="asgi") as up:
        first = await _asked(READER, share=memo, up=up)
        second = await _asked(OTHER, share=memo, up=up)
        third = await _asked(READER, share=memo, up=up)
    assert "limit 12 GPUs" in first.headline
    _without_them(second)
    assert third == first


async def test_all_evidence_shown_again_to_someone_else_has_none_of_its_figures():
    report = await _asked(READER)
    shown = await for_viewer(report, OTHER)
    _without_them(shown)
    assert await for_viewer(report, READER) == report
    assert await for_viewer(shown, READER) == shown  # cut stays cut


async def test_the_statements_are_cut_for_others_when_the_departments_read_fails():
    """Only the scheduler's statements carry the department's figures: cut all the same."""
    async with simulated(LIMITED, retries=0, transport="asgi") as up:
        assert up.simulator is not None
        up.simulator.add_fault({"path": DEPARTMENT_READ, "status": 503})
        report = await _asked(READER, up=up)
    assert "limit 12 GPUs" in report.headline
    assert report.without_department is not None
    _without_them(await for_viewer(report, OTHER))


async def test_a_department_that_cannot_be_checked_is_cut():
    """The workload names no department ID; its project does: no one checked may see it."""
    workloads = [w.model_copy(deep=True) for w in LIMITED.workloads]
    for entry in workloads:
        entry.workload["departmentId"] = None
    scenario = LIMITED.model_copy(update={"workloads": workloads})
    _without_them(await _asked(Asker(ML_PLATFORM, ""), scenario=scenario))
    unchecked = await _asked_unchecked(scenario)
    assert "limit 12 GPUs" in unchecked.headline


async def _asked_unchecked(scenario: Scenario) -> Report:
    request = request_from_expectation(scenario, scenario.expect[0])
    async with simulated(scenario, retries=0, transport="asgi") as up:
        return await diagnose(request, runai=up.runai, now=scenario.now)
