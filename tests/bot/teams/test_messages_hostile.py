"""Hostile and huge reports in Teams: nothing upstream renders live, every activity fits.

The hostile fragments and report strategies are every renderer's (`tests.injection`,
`tests.bot.render.reports`); the planted scenarios run through the simulator and the real
pipeline before they are rendered.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot.app.demo.scenarios import request_from_expectation as request_for
from bot.conversation import Choice, EvidenceReply, Notice, Question, ReportReply
from bot.slack.render.blocks import MAX_REPLIES
from bot.slack.render.evidence import MAX_EVIDENCE_MESSAGES
from bot.teams.messages import to_teams
from diagnosis import EvidenceLine, Report, WorkloadRef
from runai_sim.scenario import Scenario
from tests.bot.render.reports import report, reports
from tests.bot.teams.adaptive import texts
from tests.bot.teams.inert import CHART, RUNAI, assert_inert
from tests.injection import (
    FULL,
    HOSTILE,
    PLANTED,
    hostile,
    hostile_reports,
    plant,
    raw_scenario,
    run_scenario,
)


def replies(report: Report, notes: list[str]) -> list[Any]:
    return [
        ReportReply(report, "24h", notes=tuple(notes), cluster_name=notes[0] if notes else None),
        EvidenceReply(report, "24h"),
    ]


def test_the_planted_report_is_inert_and_its_text_is_still_there():
    [main, *rest] = to_teams(ReportReply(PLANTED, "24h"), runai_url=RUNAI, chart_url=CHART)
    assert_inert([main, *rest], PLANTED.workload)
    shown = "\n".join(t for a in (main, *rest) for t in texts(a))
    assert "kubectl delete pod --all" in shown  # quoted as data, not removed
    assert "\u2039@U0123ABCD\u203a" in shown
    assert "\u2217URGENT\u2217" in shown
    assert main["attachments"][0]["content"]["body"][0]["text"] == "CRASH_APP_ERROR"


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(report=hostile_reports(), notes=st.lists(hostile, max_size=3))
def test_any_hostile_report_is_inert(report, notes):
    for reply in replies(report, notes):
        assert_inert(to_teams(reply, runai_url=RUNAI, chart_url=CHART), report.workload)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(report=reports())
def test_any_report_fits_in_at_most_four_activities(report):
    activities = to_teams(ReportReply(report, "24h"), runai_url=RUNAI)
    assert_inert(activities, report.workload)
    assert len(activities) <= 1 + MAX_REPLIES
    evidence = to_teams(EvidenceReply(report, "24h"), runai_url=RUNAI)
    assert_inert(evidence, report.workload)
    assert len(evidence) <= MAX_EVIDENCE_MESSAGES


@settings(max_examples=60, deadline=None)
@given(text=hostile, labels=st.lists(st.tuples(hostile, st.text(max_size=40)), max_size=30))
@example(text="`0*`", labels=[])  # a star inside a kept code span shows as written
def test_any_hostile_question_or_notice_is_inert(text, labels):
    choices = tuple(Choice(label, value) for label, value in labels)
    assert_inert(to_teams(Question(text, choices), runai_url=RUNAI))
    picked = Question(text, picked=Choice(text, "v"))
    assert_inert(to_teams(picked, runai_url=RUNAI))
    [notice] = to_teams(Notice(text), runai_url=RUNAI)
    assert_inert([notice])  # backticks are not checked: the bot's own code spans are kept


def many(prefix: str, count: int, size: int = 40) -> tuple[str, ...]:
    return tuple(f"{prefix}{i} " + "y" * size for i in range(count))


BIG = WorkloadRef(id="w1", name="n" * 10_000, project="p" * 5_000, cluster_id="c1", phase="F" * 900)
#: (case, report overrides): each is far over one activity.
HUGE = [
    ("2000 short evidence lines", {"evidence": many("ev", 2000)}),
    ("100 evidence lines of 5000 characters", {"evidence": many("ev", 100, 5000)}),
    ("astral evidence", {"evidence": tuple(f"ev{i} " + "😀" * 900 for i in range(300))}),
    ("300 recommendations", {"recommendations": many("rec", 300)}),
    ("500 gaps", {"missing": many("gap", 500)}),
    ("a 100k headline and a 10k name", {"headline": "h" * 100_000, "workload": BIG}),
    ("all at once", {
        "evidence": many("ev", 1000, 800), "recommendations": many("rec", 200, 800),
        "missing": many("gap", 200, 800), "headline": FULL, "question": FULL, "workload": BIG,
    }),
]  # fmt: skip


@pytest.mark.parametrize("overrides", [c[1] for c in HUGE], ids=[c[0] for c in HUGE])
def test_huge_reports_fit_and_every_line_is_shown_or_counted(overrides):
    body = dict(overrides)
    if body.get("evidence") and isinstance(body["evidence"][0], str):
        body["evidence"] = tuple(
            EvidenceLine(text=t, source="get_workload_events") for t in body["evidence"]
        )
    small = WorkloadRef(id="w1", name="n", project="p", cluster_id="c1", phase="Failed")
    big = report(
        **{"workload": small, "evidence": (), "recommendations": (), "missing": (), **body}
    )
    activities = to_teams(ReportReply(big, "24h"), runai_url=RUNAI)
    assert_inert(activities, big.workload)
    assert len(activities) <= 1 + MAX_REPLIES
    total = len(big.evidence) + len(big.recommendations) + len(big.missing)
    shown = sum(
        1
        for a in activities
        for t in texts(a)
        if re.match(r"^(• )?(ev|rec|gap)[0-9]+ ", t) or re.match(r"^• (ev|rec|gap)[0-9]+", t)
    )
    left = [
        int(m.group(1))
        for a in activities
        for t in texts(a)
        if (m := re.match(r"^_([0-9]+) more lines? (?:was|were) left out", t))
    ]
    assert shown + sum(left) == total
    assert len(left) <= 1


SCENARIOS = ["oom-killed", "crash-app-error", "image-pull-auth"]


@pytest.mark.e2e
@pytest.mark.parametrize("name", SCENARIOS)
async def test_planted_scenarios_render_inert_in_teams(name):
    raw = raw_scenario(name)
    expectation = raw["expect"][0] if isinstance(raw["expect"], list) else raw["expect"]
    request = request_for(Scenario.parse(raw, source=name), expectation)
    planted = Scenario.parse(plant(raw, rename=request.workload_id is not None), source=name)
    after, _ = await run_scenario(planted, request)
    for reply in replies(after, [HOSTILE]):
        assert_inert(to_teams(reply, runai_url=RUNAI, chart_url=CHART), after.workload)
