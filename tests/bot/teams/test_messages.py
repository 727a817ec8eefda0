"""Engine replies as Teams activities: the answer card's layout, its buttons, questions, notices."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.conversation import (
    RERUN,
    SHOW_EVIDENCE,
    Choice,
    EvidenceReply,
    Notice,
    Question,
    ReportReply,
    report_action,
    report_choice,
)
from bot.render.actions import ActionTarget, answer_id, runai_workload_url
from bot.render.sparkline import memory_sparkline
from bot.render.wording import OUTCOME_WORDS, cli_command
from bot.teams.messages import CARD_CONTENT_TYPE, choice_data, to_teams
from bot.teams.render.card_text import ACTIVITY_MAX_BYTES, json_bytes
from bot.teams.render.cards import MAX_CHOICES, render_report_cards
from diagnosis import (
    Category,
    EvidenceLine,
    MemoryFigures,
    MemorySample,
    Outcome,
    Recurrence,
    Report,
    WorkloadRef,
)
from tests.bot.render.reports import report
from tests.bot.teams.adaptive import check_activity, elements, texts

CLUSTER = "2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92"
ID = "3f1c2a9e-5b7d-4c1e-9a2f-8d6b0e4c7a11"
WORKLOAD = WorkloadRef(id=ID, name="train-bert", project="nlp", cluster_id=CLUSTER, phase="Failed")
RUNAI = "https://acme.run.ai"
CHART = "https://bot.example.com/teams/charts/abc.png?exp=1&sig=x"
START = datetime(2025, 11, 4, 0, 0, tzinfo=UTC)
GIB = 1024**3
MEMORY = MemoryFigures(
    request_bytes=32 * GIB,
    limit_bytes=32 * GIB,
    peak_bytes=int(31.6 * GIB),
    samples=tuple(
        MemorySample(at=START + timedelta(minutes=10 * i), usage_bytes=int(v * GIB))
        for i, v in enumerate((12, 20, 28, 31.6))
    ),
)


def answer(**overrides: Any) -> Report:
    return report(**{"workload": WORKLOAD, **overrides})


def card(activity: dict[str, Any]) -> dict[str, Any]:
    assert check_activity(activity) == [], check_activity(activity)
    return activity["attachments"][0]["content"]


def actions(activity: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {a["title"]: a for a in card(activity).get("actions", [])}


def render(reply: Any, **options: Any) -> list[dict[str, Any]]:
    activities = to_teams(reply, runai_url=options.pop("runai_url", RUNAI), **options)
    for activity in activities:
        assert check_activity(activity) == [], check_activity(activity)
    return activities


def test_the_answer_card_puts_the_category_first_then_the_workload_facts():
    full = answer(recovery_owner="User: raise the limit", memory=MEMORY)
    [main] = render(ReportReply(full, "24h", cluster_name="prod-a"))
    body = card(main)["body"]
    assert card(main)["version"] == "1.5"
    assert main["attachments"][0]["contentType"] == CARD_CONTENT_TYPE
    assert body[0] == {
        "type": "TextBlock", "text": "OOM_KILLED", "wrap": True, "size": "Large", "weight": "Bolder",
    }  # fmt: skip
    facts = {f["title"]: f["value"] for f in body[1]["facts"]}
    assert facts == {
        "Workload": "train-bert",
        "Project": "nlp",
        "Cluster": "prod-a",
        "Phase": "Failed",
        "Who fixes it": "User: raise the limit",
    }
    assert CLUSTER in body[2]["text"]
    assert ID in body[2]["text"]
    shown = list(texts(main))
    order = [
        "The main container was OOM-killed",
        "Peak CPU-memory usage",
        "History: 3 OOM_KILLED failures in the last 24h (recurring).",
        "**Recommendation**",
        "**Not measured**",
        "2 sensitive values redacted",
    ]
    at = [next(i for i, t in enumerate(shown) if part in t) for part in order]
    assert at == sorted(at)
    assert any("_(get_workload_metrics)_" in t for t in shown)  # each line with its source
    assert main["summary"].startswith("OOM_KILLED · train-bert — The main container")


@pytest.mark.parametrize(
    ("outcome", "category", "label"),
    [
        (Outcome.DIAGNOSED, Category.CRASH_APP_ERROR, "CRASH_APP_ERROR"),
        *((o, None, f"{w[0]} — {w[1]}" if w[1] else w[0]) for o, w in OUTCOME_WORDS.items()),
    ],
)
def test_line_one_is_the_category_or_else_the_outcome(outcome, category, label):
    [main, *_] = render(ReportReply(answer(outcome=outcome, category=category), "24h"))
    assert card(main)["body"][0]["text"] == label


#: (case, report overrides, runai_url, expected action titles)
ACTION_CASES = [
    ("all three", {}, RUNAI, ["Show all evidence", "Check again", "Open in Run:ai"]),
    ("no RUNAI_URL", {}, None, ["Show all evidence", "Check again"]),
    ("no evidence", {"evidence": ()}, RUNAI, ["Check again", "Open in Run:ai"]),
    ("needs input", {"outcome": Outcome.NEEDS_INPUT, "category": None}, RUNAI, []),
    ("not found", {"outcome": Outcome.NOT_FOUND, "category": None}, RUNAI, []),
    ("no workload", {"workload": None}, RUNAI, []),
    (
        "upstream ID",
        {"workload": WORKLOAD.model_copy(update={"id": "x](https://evil)"})},
        RUNAI,
        [],
    ),
]


@pytest.mark.parametrize(
    ("overrides", "runai_url", "titles"),
    [c[1:] for c in ACTION_CASES],
    ids=[c[0] for c in ACTION_CASES],
)
def test_the_report_buttons_are_the_slack_ones(overrides, runai_url, titles):
    report = answer(**overrides)
    [main, *_] = render(ReportReply(report, "24h"), runai_url=runai_url)
    shown = actions(main)
    assert list(shown) == titles
    target = ActionTarget(CLUSTER, ID, "24h", answer_id(report)).to_value()  # the answer they're on
    if "Show all evidence" in shown:
        evidence = report_choice(SHOW_EVIDENCE, target)
        assert shown["Show all evidence"] == {
            "type": "Action.Submit", "title": "Show all evidence", "data": choice_data(evidence),
        }  # fmt: skip
        assert shown["Show all evidence"]["data"] == {"runai_why": "choice", "value": evidence}
        assert report_action(evidence) == (SHOW_EVIDENCE, target)
    if "Check again" in shown:
        rerun = report_choice(RERUN, target)
        assert shown["Check again"]["data"] == {"runai_why": "choice", "value": rerun}
    if "Open in Run:ai" in shown:
        assert shown["Open in Run:ai"]["type"] == "Action.OpenUrl"
        assert shown["Open in Run:ai"]["url"] == runai_workload_url(RUNAI, CLUSTER, ID)


def test_the_memory_chart_is_an_image_when_hosted_else_the_sparkline():
    reply = ReportReply(answer(memory=MEMORY), "24h")
    [with_chart] = render(reply, chart_url=CHART)
    [image] = [e for e in elements(with_chart) if e["type"] == "Image"]
    assert image["url"] == CHART
    assert "peak 31.6 GiB" in image["altText"]
    [without] = render(reply)
    assert not [e for e in elements(without) if e["type"] == "Image"]
    line = memory_sparkline(MEMORY)
    assert line is not None
    [spark] = [e for e in elements(without) if e.get("text") == line]
    assert spark["fontType"] == "Monospace"
    [not_a_url] = render(reply, chart_url="javascript:alert(1)")
    assert not [e for e in elements(not_a_url) if e["type"] == "Image"]
    [no_series] = render(ReportReply(answer(), "24h"), chart_url=CHART)
    assert not [e for e in elements(no_series) if e["type"] == "Image"]


def test_log_lines_are_monospace_with_their_source_below():
    lines = (
        EvidenceLine(text="Traceback: **boom** <at>oncall</at>", source="get_workload_logs"),
        EvidenceLine(text="Exit code 1", source="get_workload_events"),
    )
    [main] = render(ReportReply(answer(evidence=lines), "24h"))
    [log] = [e for e in elements(main) if e["type"] == "Container"]
    text, source = log["items"]
    assert text["fontType"] == "Monospace"
    assert (
        text["text"]
        == "Traceback: \u2217\u2217boom\u2217\u2217 \u2039at\u203aoncall\u2039/at\u203a"
    )
    assert source["text"] == "_(get_workload_logs)_"  # snake_case is no italics
    assert any(t == "• Exit code 1  _(get_workload_events)_" for t in texts(main))


def test_the_question_asked_back_and_the_notes_are_shown():
    past = answer(outcome=Outcome.RUNNING_NO_FAILURE, category=None, question="A past run?")
    [main] = render(ReportReply(past, "24h", notes=("Used the channel's default cluster",)))
    shown = list(texts(main))
    assert "**Question:** A past run?" in shown
    assert any("Used the channel's default cluster" in t for t in shown)


def test_candidates_are_listed_with_their_ids():
    other = WORKLOAD.model_copy(update={"id": "c2", "phase": "Running"})
    [main] = render(ReportReply(answer(candidates=(WORKLOAD, other)), "24h"))
    shown = [t for t in texts(main) if t.startswith("• **train-bert**")]
    assert len(shown) == 2
    assert shown[1].endswith("workload ID c2")


def test_a_question_has_one_submit_button_per_choice():
    choices = tuple(Choice(f"prod-{i}", f"cluster:{i}") for i in range(3))
    [activity] = render(Question("Which cluster?", choices, asker="29:1abc"))
    body = card(activity)["body"]
    assert body[0]["text"] == "Which cluster?"
    rows = [e for e in body if e["type"] == "ActionSet"]
    assert [r["actions"][0]["title"] for r in rows] == ["prod-0", "prod-1", "prod-2"]
    assert [r["actions"][0]["data"] for r in rows] == [
        {"runai_why": "choice", "value": f"cluster:{i}"} for i in range(3)
    ]
    assert "actions" not in card(activity)


def test_too_many_choices_are_counted_not_shown():
    choices = tuple(Choice(f"w{i}", f"pick:{i}") for i in range(MAX_CHOICES + 5))
    [activity] = render(Question("Which one?", choices))
    rows = [e for e in card(activity)["body"] if e["type"] == "ActionSet"]
    assert len(rows) == MAX_CHOICES
    assert card(activity)["body"][-1]["text"] == "_5 more choices not shown_"


def test_a_picked_question_says_what_was_picked_and_has_no_buttons():
    reply = Question("Which cluster?", asker="29:1abc", picked=Choice("prod-a *x*", "cluster:1"))
    [activity] = render(reply)
    body = card(activity)["body"]
    assert [e["type"] for e in body] == ["TextBlock", "TextBlock"]
    assert body[1]["text"] == "Picked by the asker: **prod-a \u2217x\u2217**"
    assert "actions" not in card(activity)


def test_a_notice_is_a_plain_markdown_message_that_keeps_the_bots_code_spans():
    [activity] = render(Notice("Try `runai-why help` <at>x</at>", private=True, progress=True))
    assert activity == {
        "type": "message",
        "text": "Try `runai-why help` \u2039at\u203ax\u2039/at\u203a",
        "textFormat": "markdown",
    }
    [empty] = render(Notice("   "))
    assert empty["text"] == "(no details)"


def test_private_is_metadata_not_rendering():
    full = answer()
    assert render(ReportReply(full, "24h", private=True)) == render(ReportReply(full, "24h"))
    question = Question("Which?", (Choice("a", "a"),))
    assert render(Question("Which?", (Choice("a", "a"),), private=True)) == render(question)


def test_show_all_evidence_lists_every_line_and_gap():
    lines = tuple(EvidenceLine(text=f"line {i}", source="get_workload_events") for i in range(30))
    activities = render(EvidenceReply(answer(evidence=lines, missing=("GPU metrics",)), "7d"))
    shown = [t for a in activities for t in texts(a)]
    assert [t for t in shown if t.startswith("• line ")] == [
        f"• line {i}  _(get_workload_events)_" for i in range(30)
    ]
    assert "• GPU metrics" in shown
    assert card(activities[0])["body"][0]["text"].startswith(
        "All evidence · OOM_KILLED · train-bert — evidence 1\u201330 of 30; not measured 1\u20131 of 1"
    )


def test_show_all_evidence_without_any():
    [activity] = render(EvidenceReply(answer(evidence=(), missing=()), "24h"))
    assert card(activity)["body"][0]["text"] == (
        "OOM_KILLED · train-bert — no evidence lines were recorded."
    )


def test_show_all_evidence_stops_after_five_activities_and_says_how_to_see_the_rest():
    lines = tuple(
        EvidenceLine(text="x" * 900 + f" {i:03d}", source="get_workload_events") for i in range(200)
    )
    full = answer(evidence=lines)
    activities = render(EvidenceReply(full, "7d"))
    assert len(activities) == 5
    shown = sum(1 for a in activities for t in texts(a) if t.startswith("• x"))
    last = list(texts(activities[-1]))
    assert (
        last[-2]
        == f"_{200 - shown} more lines were left out to keep the thread short._ To see them all, run:"
    )
    command = cli_command(full, "7d")
    assert command is not None
    assert last[-1] == command


def test_a_recurrence_without_history_says_not_measured():
    unmeasured = answer(recurrence=Recurrence(count=None, lookback="24h", recurring=False))
    [main] = render(ReportReply(unmeasured, "24h"))
    assert any(t.startswith("History: not measured") for t in texts(main))


def test_report_buttons_without_an_engine_choice_are_left_out():
    [main] = render_report_cards(answer(), lookback="24h", runai_url=RUNAI)
    assert [a["type"] for a in main.actions] == ["Action.OpenUrl"]


def test_choices_are_cut_to_the_size_limit():
    choices = tuple(Choice(f"w{i}", f"pick:{i}:" + "v" * 3000) for i in range(MAX_CHOICES))
    [activity] = render(Question("Which one?", choices))
    rows = [e for e in card(activity)["body"] if e["type"] == "ActionSet"]
    assert 0 < len(rows) < MAX_CHOICES
    assert (
        card(activity)["body"][-1]["text"] == f"_{MAX_CHOICES - len(rows)} more choices not shown_"
    )
    assert json_bytes(activity) <= ACTIVITY_MAX_BYTES


def test_without_ids_the_left_out_line_names_no_command():
    lines = tuple(
        EvidenceLine(text="x" * 900 + f" {i:03d}", source="get_workload_events") for i in range(200)
    )
    activities = render(EvidenceReply(answer(workload=None, evidence=lines), "7d"))
    last = list(texts(activities[-1]))
    assert re.fullmatch(r"_[0-9]+ more lines were left out to keep the thread short\._", last[-1])
