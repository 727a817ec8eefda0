"""The minimal Teams renderer: cards of plain `TextRun`s, buttons, overflow, the chart image."""

from __future__ import annotations

import json

from bot.conversation import (
    SHOW_EVIDENCE,
    Choice,
    EvidenceReply,
    Notice,
    Question,
    ReportReply,
)
from bot.teams.messages import CARD_BUDGET_BYTES, to_teams
from diagnosis import Category, EvidenceLine, Outcome, Report, WorkloadRef
from tests.bot.teams.fake_teams import Call

WORKLOAD = WorkloadRef(
    id="3f1c2a9e-0000-4000-8000-000000000042",
    name="training-job-42",
    project="ml-team",
    cluster_id="7c1e2a3b-0000-4000-8000-00000000c1a5",
    phase="Failed",
)


def _call(activity) -> Call:
    return Call("send", "", "", activity, "")


def _report() -> Report:
    return Report(
        outcome=Outcome.DIAGNOSED,
        category=Category.OOM_KILLED,
        workload=WORKLOAD,
        headline="The main container was OOM-killed.",
        evidence=(EvidenceLine(text="Peak memory 97% of the limit", source="metrics"),),
    )


def test_a_report_card_has_its_category_first_and_its_actions():
    [activity] = to_teams(
        ReportReply(_report(), "24h", ("Cluster prod-a is the default.",), cluster_name="prod-a"),
        runai_url="https://acme.run.ai",
        chart_url="https://bot.example/charts/abc.png",
    )
    card = _call(activity).card
    assert card["version"] == "1.5"
    first = card["body"][0]["inlines"][0]
    assert (first["size"], first["weight"]) == ("Large", "Bolder")
    assert first["text"].startswith("Category: ")
    assert card["body"][1] == {
        "type": "Image",
        "url": "https://bot.example/charts/abc.png",
        "altText": "Memory over time",
    }
    kinds = {a["type"]: a for a in card["actions"]}
    assert kinds["Action.OpenUrl"]["url"].startswith("https://acme.run.ai/")
    assert kinds["Action.Submit"]["data"] == {"runai_why": "choice", "value": SHOW_EVIDENCE}
    assert any("Cluster prod-a is the default." in t for t in _call(activity).texts)


def test_questions_asked_and_answered():
    [asked] = to_teams(
        Question("Which cluster?", (Choice("prod-a\n**b**", "cluster:1"),)), runai_url=None
    )
    [button] = _call(asked).buttons
    assert button["title"] == "prod-a **b**"
    [answered] = to_teams(
        Question("Which cluster?", picked=Choice("prod-a", "cluster:1")), runai_url=None
    )
    assert _call(answered).buttons == []
    assert _call(answered).texts == ["Which cluster?", "→ prod-a"]


def test_a_long_reply_overflows_into_further_activities():
    text = "\n".join(f"line {i} " + "x" * 500 for i in range(200))
    activities = to_teams(Notice(text), runai_url=None)
    assert len(activities) > 1
    for activity in activities:
        assert len(json.dumps(activity)) < CARD_BUDGET_BYTES + 4_000
        assert "text" not in activity
    shown = [t for a in activities for t in _call(a).texts]
    assert len(shown) == 200


def test_evidence_and_an_empty_notice():
    [evidence] = to_teams(EvidenceReply(_report(), "7d"), runai_url=None)
    assert _call(evidence).texts[0] == "All evidence (7d)"
    [empty] = to_teams(Notice(""), runai_url=None)
    assert _call(empty).texts == ["…"]
