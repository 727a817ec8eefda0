"""A report shown again to a teammate names only what the teammate may read.

Scenario `t2-ddp-node-xid`: a NODE_FAILURE whose blast radius names bert-eval (nlp) and
sam-notebook (vision). The radius was counted for the asker; shown again to someone else,
it is left out and said to be left out, never replaced by "no other workload ended".
"""

from __future__ import annotations

from bot.app.backends import simulated
from diagnosis import diagnose, for_viewer
from diagnosis.viewer import BLAST_NOT_SHOWN
from tests.diagnosis.doubles import Refusing
from tests.diagnosis.node_xid import NODE_XID, REQUEST


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
