"""A report shown again to a teammate names only what the teammate may read.

Scenario `t2-ddp-node-xid`: a NODE_FAILURE whose blast radius names bert-eval (nlp) and
sam-notebook (vision). The radius was counted for the asker; shown again to someone else,
it is left out and said to be left out, never replaced by "no other workload ended".
Scenario `t2-oom-changed-since-good-run`, with its good run made a Workspace: the comparison
with it is shown again only to someone who may read that Workspace too.
"""

from __future__ import annotations

from bot.app.backends import simulated
from bot.app.demo.scenarios import request_from_expectation
from diagnosis import Report, WorkloadAccess, diagnose, for_viewer
from diagnosis.viewer import BLAST_NOT_SHOWN, CHANGES_NOT_SHOWN
from tests.diagnosis.doubles import Refusing
from tests.diagnosis.good_runs import GOOD_ID, with_good_run_as
from tests.diagnosis.node_xid import NODE_XID, REQUEST

WORKSPACE_GOOD_RUN = with_good_run_as("workspaces", "Workspace")


async def _report():
    async with simulated(NODE_XID, retries=0, transport="asgi") as up:
        return await diagnose(REQUEST, runai=up.runai, kube=up.kube, now=NODE_XID.now)


async def test_the_askers_blast_radius_is_a_gap_for_anyone_else():
    report = await _report()
    assert any("sam-notebook" in e.text for e in report.evidence)

    shown = await for_viewer(report, Refusing(("vision", "Workspace")))

    said = " ".join(e.text for e in shown.evidence)
    assert "sam-notebook" not in said
    assert "No other workload" not in said  # not counted for them: not "none"
    assert shown.missing == (*report.missing, BLAST_NOT_SHOWN)
    assert shown.category is report.category
    assert len(shown.evidence) == len(report.evidence) - 1


async def test_a_report_without_a_radius_is_shown_as_it_is():
    report = await _report()
    without = report.model_copy(
        update={"evidence": tuple(e for e in report.evidence if "you can read" not in e.text)}
    )
    assert await for_viewer(without, Refusing()) is without


async def _compared() -> Report:
    """The OOM kill compared with its last good run, a Workspace the asker may read."""
    scenario = WORKSPACE_GOOD_RUN
    request = request_from_expectation(scenario, scenario.expect[0])
    async with simulated(scenario, retries=0, transport="asgi") as up:
        report = await diagnose(request, runai=up.runai, kube=up.kube, now=scenario.now)
    assert report.changes is not None
    assert report.changes.since_id == GOOD_ID
    return report


async def test_the_comparison_is_shown_again_only_to_who_may_read_the_run_compared_with():
    report = await _compared()
    trainings_only = Refusing(("nlp", "Workspace"))

    shown = await for_viewer(report, trainings_only)

    cluster = WORKSPACE_GOOD_RUN.clusters[0]["uuid"]
    assert WorkloadAccess(cluster, "nlp", "Workspace") in trainings_only.asked  # its own kind
    assert shown.changes is None
    assert shown.missing == (*report.missing, CHANGES_NOT_SHOWN)
    assert GOOD_ID not in str(shown.to_json_dict("24h"))
    assert shown.category is report.category
    assert await for_viewer(report, Refusing()) is report, "who may read it sees it all"


async def test_a_comparison_stored_without_the_run_s_kind_is_not_shown_again():
    report = await _compared()
    assert report.changes is not None
    unknown = report.changes.model_copy(update={"since_kind": None})

    shown = await for_viewer(report.model_copy(update={"changes": unknown}), Refusing())

    assert shown.changes is None
    assert CHANGES_NOT_SHOWN in shown.missing
