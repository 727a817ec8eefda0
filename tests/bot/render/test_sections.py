"""A message's parts in one order, its lists with their names, the same for every platform."""

from __future__ import annotations

import pytest

from bot.render import plan
from bot.render.plan import LineKind, PlanLine
from bot.render.plan.sections import (
    ORDER,
    FactKind,
    Slot,
    arrange,
    asked_back,
    evidence_layout,
    report_layout,
    workload_facts,
)
from diagnosis import EvidenceLine, Outcome
from tests.bot.render.reports import WORKLOAD, report


def test_the_order_of_a_message():
    assert ORDER == (
        Slot.HEAD,
        Slot.EVIDENCE,
        Slot.RECURRENCE,
        Slot.RECOMMENDATIONS,
        Slot.CANDIDATES,
        Slot.NOT_MEASURED,
        Slot.CLOSING,
    )
    parts = {Slot.CLOSING: ["buttons"], Slot.HEAD: ["title"], Slot.EVIDENCE: ["e1", "e2"]}
    assert arrange(parts) == ["title", "e1", "e2", "buttons"]


def test_the_lists_of_an_answer_in_order_with_their_names():
    shown = report(candidates=(WORKLOAD,), recommendations=("Raise the limit.",))
    layout = report_layout(shown, plan.answer(shown))
    sections = layout.translate(lambda line: line.text, str.upper, lambda c: c.name)
    assert [(s.slot, s.title, s.noun, s.more) for s in sections] == [
        (Slot.EVIDENCE, "Evidence", "evidence", ("evidence line", "evidence lines")),
        (Slot.RECOMMENDATIONS, "Recommendation", "recommendations",
         ("recommendation", "recommendations")),
        (Slot.CANDIDATES, "Candidates", "candidates", ("candidate", "candidates")),
        (Slot.NOT_MEASURED, "Not measured", "not measured",
         ("not-measured item", "not-measured items")),
    ]  # fmt: skip
    assert [s.items for s in sections] == [
        ("Peak CPU-memory usage: 31 GiB = 97% of the limit",),
        ("RAISE THE LIMIT.",),
        ("training-job-42",),
        ("GPU memory (metrics unavailable)",),
    ]


def test_show_all_evidence_is_every_line_facts_first_then_gaps():
    many = report(
        evidence=tuple(EvidenceLine(text=f"fact {i}", source="s") for i in range(9)),
        missing=("gap a", "gap b", "gap c"),
    )
    evidence, gaps = evidence_layout(many)
    assert [line.text for line in evidence.items] == [f"fact {i}" for i in range(9)]
    assert gaps.items == tuple(PlanLine(LineKind.GAP, g) for g in ("gap a", "gap b", "gap c"))
    assert (*evidence.items, *gaps.items) == plan.everything(many)


@pytest.mark.parametrize(
    ("outcome", "question", "shown"),
    [
        (Outcome.RUNNING_NO_FAILURE, "Did you mean a past run?", "Did you mean a past run?"),
        (Outcome.NEEDS_INPUT, "Which workload?", None),  # the message is the question itself
        (Outcome.RUNNING_NO_FAILURE, None, None),
    ],
)
def test_the_question_asked_back_is_shown_under_the_headline(outcome, question, shown):
    assert asked_back(report(outcome=outcome, category=None, question=question)) == shown


def test_the_workload_facts_of_the_head_in_order():
    shown = report(recovery_owner="Workload owner")
    assert [(f.title, f.value, f.kind) for f in workload_facts(shown, "prod")] == [
        ("Workload", "training-job-42", FactKind.NAME),
        ("Project", "ml-team", FactKind.NAME),
        ("Cluster", "prod", FactKind.NAME),
        ("Phase", "Failed", FactKind.WORD),
        ("Who fixes it", "Workload owner", FactKind.TEXT),
    ]
    bare = WORKLOAD.model_copy(update={"project": None, "phase": None})
    unowned = report(workload=bare, recovery_owner=None)
    assert [(f.title, f.value) for f in workload_facts(unowned, None)] == [
        ("Workload", "training-job-42"),
        ("Project", "unknown"),
        ("Cluster", "prod-a"),
        ("Phase", "unknown"),
    ]
    assert workload_facts(report(workload=None), "prod") == ()
