"""Line one of a Pending or preemption answer: `PENDING · <reason>` / `PREEMPTED · <kind>`.

The same in text, Block Kit and Adaptive Cards; never a failure category.
"""

from __future__ import annotations

import pytest

from bot.render.text import render_text
from bot.render.wording import first_line_label, verdict_label
from bot.slack.render.blocks import render_report
from bot.teams.render.cards import render_report_cards
from diagnosis import Outcome, PendingFacts, PreemptionFacts, Report, WorkloadRef

WORKLOAD = WorkloadRef(
    id="3b9d2f4e-6a1c-4e8b-b7d5-2c4f6a8e0b13",
    name="vit-pretrain-xl",
    project="vision",
    cluster_id="2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92",
    phase="Pending",
)
PENDING = Report(
    outcome=Outcome.PENDING_SCHEDULING,
    workload=WORKLOAD,
    headline="Node pool default is full: it asks for 4 GPUs and only 2 of 56 are free.",
    pending=PendingFacts(reason="NODE_POOL_FULL", node_pool="default", requested_gpus=4),
)
PREEMPTED = Report(
    outcome=Outcome.PREEMPTED,
    workload=WORKLOAD,
    headline="Reclaimed: a workload in another project took back GPUs its project deserves.",
    preemption=PreemptionFacts(kind="RECLAIM_FAIR_SHARE"),
)


@pytest.mark.parametrize(
    ("report", "label"),
    [(PENDING, "PENDING · NODE_POOL_FULL"), (PREEMPTED, "PREEMPTED · RECLAIM_FAIR_SHARE")],
    ids=["pending", "preempted"],
)
def test_every_renderer_says_the_same_line_one(report: Report, label: str):
    assert verdict_label(report) == label
    assert first_line_label(report) == label
    assert render_text(report).splitlines()[0] == label
    [message, *_] = render_report(report)
    assert message.blocks[0]["text"]["text"] == f"{label} · vit-pretrain-xl"
    assert message.text.splitlines()[0] == f"{label} · vit-pretrain-xl"
    [card, *_] = render_report_cards(report)
    assert card.summary.startswith(f"{label} · vit-pretrain-xl")
    assert card.body[0]["text"] == label
    assert report.category is None


def test_without_the_facts_the_outcome_words_stay():
    bare = PENDING.model_copy(update={"pending": None})
    assert verdict_label(bare) is None
    assert render_text(bare).splitlines()[0] == "Outcome: PENDING (scheduling, not a failure)"
