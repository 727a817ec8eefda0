"""A department's quota and usage reach only whoever may read that department, on every path.

A department's figures sum its projects' usage, which reading one project's workloads does
not cover. Scenario `preempted-reclaim-department`: the scheduler's reclaim line gives both
departments' queues (ml-platform, the victim's, id 1; research, the reclaimer's, id 2).
Scenario `pending-department-over-quota`: the project is within its quota, its department
ml-platform (id 1) is not. Each answer is asked through `diagnose(authorize=...)` as the bot
asks it, against the simulator, and then shared (one report for many askers) and shown
again to someone else (`for_viewer`): the figures go only to who may read the department.
"""

from __future__ import annotations

import pytest

from bot.app.backends import simulated
from bot.app.demo.scenarios import bundled_scenario, request_from_expectation
from diagnosis import (
    Authorize,
    DepartmentAccess,
    Report,
    WorkloadAccess,
    diagnose,
    for_viewer,
)
from tests.diagnosis.doubles import Memo

RECLAIM = bundled_scenario("preempted-reclaim-department")
OVER = bundled_scenario("pending-department-over-quota")
ML_PLATFORM, RESEARCH = "1", "2"
#: What the reclaim line says of each department's queue.
VICTIMS = ("ml-platform uses 30 GPUs", "quota of 24", "fair-share of 26", "30 GPUs with a quota")
THEIRS = ("research uses 10 GPUs", "quota of 40", "10 of its 40")


class Asker:
    """Reads every kind in ml-team and nlp (the reclaimer's), and the `departments` (IDs).

    It records department checks. (Who may not read the reclaimer gets nothing of its queue
    at all: `tests/diagnosis/test_preemptor_unseen.py`.)
    """

    def __init__(self, *departments: str) -> None:
        self.departments = set(departments)
        self.asked: list[DepartmentAccess] = []

    async def __call__(self, access: WorkloadAccess | DepartmentAccess, /) -> bool:
        if isinstance(access, DepartmentAccess):
            self.asked.append(access)
            return access.department_id in self.departments
        return access.project in {"ml-team", "nlp"}


async def _asked(
    scenario, authorize: Authorize | None, *, share: Memo | None = None, up=None
) -> Report:
    request = request_from_expectation(scenario, scenario.expect[0])
    if up is not None:
        return await diagnose(
            request, runai=up.runai, now=scenario.now, authorize=authorize, share=share
        )
    async with simulated(scenario, retries=0, transport="asgi") as found:
        return await diagnose(
            request, runai=found.runai, now=scenario.now, authorize=authorize, share=share
        )


def _everything(report: Report) -> str:
    """All a stored report holds (what a conversation store would keep, the JSON included)."""
    return report.model_dump_json()


@pytest.mark.parametrize(
    ("readable", "victims", "theirs"),
    [
        pytest.param((), False, False, id="neither-department"),
        pytest.param((ML_PLATFORM,), True, False, id="the-victims-department"),
        pytest.param((RESEARCH,), False, True, id="the-reclaimers-department"),
        pytest.param((ML_PLATFORM, RESEARCH), True, True, id="both-departments"),
    ],
)
async def test_a_reclaims_department_figures_only_for_who_may_read_each_department(
    readable, victims, theirs
):
    report = await _asked(RECLAIM, Asker(*readable))
    text = _everything(report)
    for figure in VICTIMS:
        assert (figure in text) is victims, figure
    for figure in THEIRS:
        assert (figure in text) is theirs, figure
    eviction = report.evidence[0].text
    assert eviction.startswith("Event at 2025-11-04 09:10:00Z: Pod runai-ml-team/bert-pretrain-0-0")
    assert ("[this workload's department's queue: not shown here]" in eviction) is not victims
    assert ("[the reclaimer's department's queue: not shown here]" in eviction) is not theirs
    assert ("its GPUs were on loan" in report.headline) is victims
    said_missing = " ".join(report.missing)
    assert ("this workload's department's queue figures" in said_missing) is not victims
    assert ("the reclaimer's department's queue figures" in said_missing) is not theirs
    if not victims:  # the advice follows what is shown: nothing of the department's position
        assert not any("Its department used more" in r for r in report.recommendations)
        assert "This workload's department's quota position then is not shown here" in (
            report.headline
        )


def _failed_after_the_reclaim():
    """The reclaim scenario with the victim Failed (no Pending answer could read anything)."""
    workloads = [w.model_copy(deep=True) for w in RECLAIM.workloads]
    for entry in workloads:
        if entry.workload["name"] == "bert-pretrain":
            entry.workload["phase"] = "Failed"
    return RECLAIM.model_copy(update={"workloads": workloads})


async def test_a_shared_reclaim_report_is_cut_to_each_askers_departments():
    scenario, memo = _failed_after_the_reclaim(), Memo()
    async with simulated(scenario, retries=0, transport="asgi") as up:
        first = await _asked(scenario, Asker(ML_PLATFORM, RESEARCH), share=memo, up=up)
        second = await _asked(scenario, Asker(), share=memo, up=up)
        third = await _asked(scenario, Asker(ML_PLATFORM, RESEARCH), share=memo, up=up)
    assert len([k for k in memo.kept if k[0] == "report"]) == 1  # computed once
    assert all(f in _everything(first) for f in (*VICTIMS, *THEIRS))
    assert not any(f in _everything(second) for f in (*VICTIMS, *THEIRS))
    assert third == first  # the shared copy was never cut in place


async def test_all_evidence_shown_again_is_cut_to_the_viewers_departments():
    report = await _asked(RECLAIM, Asker(ML_PLATFORM, RESEARCH))
    shown = await for_viewer(report, Asker())
    assert not any(f in _everything(shown) for f in (*VICTIMS, *THEIRS))
    assert await for_viewer(report, Asker(ML_PLATFORM, RESEARCH)) == report
    again = await for_viewer(shown, Asker(ML_PLATFORM, RESEARCH))  # cut stays cut
    assert again == shown


async def test_a_department_that_cannot_be_checked_is_hidden():
    """The reclaimer's workload not found: its department is unknown, so never shown."""
    async with simulated(RECLAIM, retries=0, transport="asgi") as up:
        assert up.simulator is not None
        up.simulator.add_fault({"path": "/api/v1/workloads", "status": 503})
        report = await _asked(RECLAIM, Asker(ML_PLATFORM, RESEARCH), up=up)
    text = _everything(report)
    assert not any(f in text for f in THEIRS)
    assert all(f in text for f in VICTIMS)


async def test_the_reclaim_answer_says_whose_line_says_what():
    """The reclaimer's line is its department's: no "GPUs its project deserves" (review #2).

    Line one says who reclaimed and whose position was over; the reclaimer's figures are an
    evidence line, and the project's own position is named under Not measured.
    """
    report = await _asked(RECLAIM, None)
    assert report.headline == (
        "Reclaimed at 2025-11-04 09:10:00Z by serve-llama-70b (project nlp, priority 125 (high)). "
        "This workload's department ml-platform was over its quota then, so its GPUs were on "
        "loan."
    )
    said = [e.text for e in report.evidence]
    assert (
        "The reclaimer's department research: 10 of its 40 quota GPUs in use at the eviction"
        in (said)
    )
    assert any(
        m.startswith("the project's own quota position at the eviction") for m in report.missing
    )


async def test_a_pending_answer_reads_the_department_only_for_who_may_read_it():
    reader, other = Asker(ML_PLATFORM), Asker()
    async with simulated(OVER, retries=0, transport="asgi") as up:
        assert up.simulator is not None
        shown = await _asked(OVER, reader, up=up)
        reads = [r.path for r in up.simulator.requests].count("/api/v1/org-unit/departments/1")
        up.simulator.clear_requests()
        withheld = await _asked(OVER, other, up=up)
        unread = [r.path for r in up.simulator.requests]
    asked = {DepartmentAccess(OVER.clusters[0]["uuid"], "1")}
    assert set(reader.asked) == set(other.asked) == asked
    assert (reads, "/api/v1/org-unit/departments/1" in unread) == (1, False)
    assert shown.pending is not None
    assert withheld.pending is not None
    assert (shown.pending.reason, withheld.pending.reason) == ("PROJECT_OVER_QUOTA", "UNKNOWN")
    assert "department ml-platform's quota in node pool default: 14 of 8 deserved GPUs" in (
        shown.headline
    )
    assert "14 of 8" not in _everything(withheld)
    assert withheld.recovery_owner == "Undetermined"


async def test_askers_who_may_and_may_not_read_the_department_never_share_a_report():
    memo = Memo()
    async with simulated(OVER, retries=0, transport="asgi") as up:
        first = await _asked(OVER, Asker(ML_PLATFORM), share=memo, up=up)
        second = await _asked(OVER, Asker(), share=memo, up=up)
        third = await _asked(OVER, Asker(ML_PLATFORM), share=memo, up=up)
    assert len([k for k in memo.kept if k[0] == "report"]) == 2  # one each, reused
    assert "14 of 8" in first.headline
    assert "14 of 8" not in _everything(second)
    assert third == first


async def test_a_pending_answer_shown_again_is_the_one_without_the_department_for_others():
    report = await _asked(OVER, Asker(ML_PLATFORM))
    assert "14 of 8" in report.headline
    shown = await for_viewer(report, Asker())
    assert shown.pending is not None
    assert shown.pending.reason == "UNKNOWN"
    assert "14 of 8" not in _everything(shown)
    assert "get_department" not in _everything(shown)
    assert any("not read for you" in m for m in shown.missing)
    assert await for_viewer(report, Asker(ML_PLATFORM)) == report


async def test_a_pending_answer_of_a_workload_without_a_department_misses_nothing():
    entry = next(iter(OVER.workloads)).model_copy(deep=True)
    entry.workload.update({"departmentId": None, "departmentName": None})
    projects = [{**p, "parentId": None, "parent": None} for p in OVER.projects or []]
    scenario = OVER.model_copy(update={"workloads": [entry], "projects": projects})
    report = await _asked(scenario, Asker())
    assert report.pending is not None
    assert report.pending.reason == "NODE_POOL_FULL", report.headline
    assert not any("department" in m for m in report.missing)
    assert "department" not in report.headline


def _contradicted():
    """The reclaim record, naming a preemptor in the victim's own namespace.

    It contradicts itself (a reclaim is across queues): the kind is UNKNOWN, the mapping
    untrusted.
    """
    workloads = [w.model_copy(deep=True) for w in RECLAIM.workloads]
    for entry in workloads:
        events = [*(entry.events or ()), *(r["spec"].get("event") or {} for r in entry.history)]
        for record in events:
            if "message" in record:
                record["message"] = record["message"].replace("runai-nlp/", "runai-ml-team/")
    return RECLAIM.model_copy(update={"workloads": workloads})


@pytest.mark.parametrize(
    ("readable", "victims"),
    [
        pytest.param((), False, id="neither-department"),
        pytest.param((ML_PLATFORM, RESEARCH), True, id="both-departments"),
    ],
)
async def test_a_contradicted_records_queues_are_cut_like_a_reclaims(readable, victims):
    """Its queue lines are cut as a reclaim's are, though no reclaim is stated.

    The victim's department's only for its readers, the other queue (whose, the record
    cannot be trusted to say) for nobody who is checked.
    """
    report = await _asked(_contradicted(), Asker(*readable))
    assert report.preemption is not None
    assert report.preemption.kind == "UNKNOWN"
    text = _everything(report)
    for figure in VICTIMS:
        assert (figure in text) is victims, figure
    for figure in THEIRS:
        assert figure not in text, figure
    assert "[the reclaimer's queue: not shown here]" in report.evidence[0].text
    unchecked = await _asked(_contradicted(), None)  # the command line: all of it
    assert all(f in _everything(unchecked) for f in (*VICTIMS, THEIRS[0], THEIRS[1]))
