"""A node failure's blast radius: the other workloads it ended, counted and named per asker.

Scenario `t2-ddp-node-xid`: node dgx-a100-07 went down; bert-eval (nlp, Training) and
sam-notebook (vision, Workspace) also ended on it within the window; old-job ended there
hours earlier and elsewhere ran on another node. Only what the asker may read, by project
and kind, is counted and named.
"""

from __future__ import annotations

import pytest

from bot.app.backends import simulated
from diagnosis import diagnose
from tests.diagnosis.doubles import Memo, Refusing
from tests.diagnosis.node_xid import NODE_XID, REQUEST


def _radius(report) -> str:
    [line] = [e.text for e in report.evidence if "you can read" in e.text]
    return line


@pytest.mark.parametrize(
    ("refused", "expected"),
    [
        pytest.param((), "2 other workloads you can read also ended on node dgx-a100-07 within "
                     "30 min of this failure: bert-eval (nlp), sam-notebook (vision)", id="all"),
        pytest.param((("vision", "Workspace"),), "1 other workload you can read also ended on node "
                     "dgx-a100-07 within 30 min of this failure: bert-eval (nlp)",
                     id="a workspace the asker may not read"),
        pytest.param((("vision", "Training"),), "2 other workloads you can read",
                     id="the kind is part of the check"),
        pytest.param((("vision", "Workspace"), ("nlp", "Training")),
                     "No other workload you can read ended on node dgx-a100-07",
                     id="none readable"),
    ],
)  # fmt: skip
async def test_only_readable_workloads_are_counted_and_named(refused, expected):
    """The failed workload is a Distributed one in nlp: refusing nlp *trainings* spares it."""
    authorize = Refusing(*refused) if refused else None
    async with simulated(NODE_XID, retries=0, transport="asgi") as up:
        report = await diagnose(
            REQUEST, runai=up.runai, kube=up.kube, now=NODE_XID.now, authorize=authorize
        )

    assert _radius(report).startswith(expected)
    if ("vision", "Workspace") in refused:
        assert "sam-notebook" not in " ".join(e.text for e in report.evidence)


async def test_a_second_asker_shares_the_reads_and_sees_its_own_radius():
    memo = Memo()
    async with simulated(NODE_XID, retries=0, transport="asgi") as up:
        assert up.simulator is not None
        everyone = await diagnose(
            REQUEST, runai=up.runai, kube=up.kube, now=NODE_XID.now, share=memo
        )
        read = len(up.simulator.requests)
        refused = Refusing(("vision", "Workspace"))
        second = await diagnose(
            REQUEST, runai=up.runai, kube=up.kube, now=NODE_XID.now, share=memo, authorize=refused
        )
        again = [r.path for r in up.simulator.requests[read:]]
    assert "sam-notebook" in _radius(everyone)
    assert "sam-notebook" not in _radius(second)
    assert again == [], "its reads (the node's pods, each workload) were shared"


async def test_a_failed_read_of_the_node_s_pods_is_a_gap():
    async with simulated(NODE_XID, retries=0, transport="asgi") as up:
        assert up.simulator is not None
        up.simulator.add_fault({"path": "/api/v1/workloads/pods", "status": 503})
        report = await diagnose(REQUEST, runai=up.runai, kube=up.kube, now=NODE_XID.now)

    assert report.category is not None
    assert report.category.value == "NODE_FAILURE"
    assert [m for m in report.missing if "other workloads ended on node dgx-a100-07" in m]
    assert not [e for e in report.evidence if "you can read" in e.text]
