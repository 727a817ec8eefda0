"""One plan for every platform: the answer's few deciding lines, everything one click away.

The report says which facts decide its verdict and which gaps matter; `bot.render.plan` picks
the answer's lines from that, at most six, and every renderer (Slack, Teams, the console)
shows exactly those, says how many more there are, and shows all of them, every fact, change
and gap, when "Show all evidence" is asked for.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from bot.app.demo.console import render_reply
from bot.conversation import EvidenceReply, ReportReply
from bot.render import plan
from bot.render.plan import MAX_SHOWN, LineKind
from bot.render.text import render_text
from bot.slack.render.blocks import render_evidence, render_report
from bot.teams.render.card_parts import Card, activity
from bot.teams.render.cards import render_evidence_cards, render_report_cards
from diagnosis import Change, Changes, EvidenceLine, Report, WorkloadRef
from diagnosis.compose import compose
from diagnosis.rules import classify
from tests.bot.render.reports import report
from tests.bot.slack.render.checks import all_text, left_out
from tests.bot.teams.adaptive import texts
from tests.factories import event, evidence, spec, usage, workload

WORKLOAD = WorkloadRef(
    id="3f1c2a9e-5b7d-4c1e-9a2f-8d6b0e4c7a11",
    name="train-bert",
    project="nlp",
    cluster_id="2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92",
    phase="Failed",
)
DESCRIBE = "kubectl describe pod, namespace runai-nlp"
OOM = "Pod bert-ft-0-0 at 2025-11-04 09:05:59Z: container trainer state: terminated, reason OOMKilled, exit code 137"
EVIDENCE = (
    EvidenceLine(text=OOM, source=DESCRIBE, deciding=True, fact="oom", pod="bert-ft-0-0"),
    EvidenceLine(
        text="Phase message at 2025-11-04 09:06:01Z: Container trainer was OOMKilled",
        source="get_workload_status",
        deciding=True,
        fact="oom",
    ),
    EvidenceLine(
        text="Pod bert-ft-0-0 at 2025-11-04 09:06:00Z: Pod bert-ft-0-0 k8sPhase: OOMKilled",
        source="get_workload_pods",
        deciding=True,
        fact="oom",
    ),
    EvidenceLine(
        text="CPU-memory request/limit of container trainer: 32 GiB / 32 GiB",
        source=DESCRIBE,
        deciding=True,
    ),
    EvidenceLine(
        text="Peak CPU-memory usage: 31.6 GiB = 99% of the limit",
        source="get_workload_metrics",
        deciding=True,
    ),
    *(
        EvidenceLine(text=f"CONTEXT{i} supporting line", source="get_workload_status")
        for i in range(6)
    ),
)
CHANGES = Changes(
    since_id="9d1c0b7a-0f3e-4a5b-8c6d-7e8f9a0b1c2d",
    since_name="bert-ft",
    since_at=datetime(2025, 11, 3, 18, 0, tzinfo=UTC),
    since_phase="Succeeded",
    items=(
        Change(what="image", before="nvcr.io/acme/bert:1.3", after="nvcr.io/acme/bert:1.4"),
        Change(what="CPU-memory limit", before="48Gi", after="32Gi"),
    ),
)
GAPS = ("GAP-A the one that matters", "GAP-B", "GAP-C")


def _report(**overrides: object) -> Report:
    return report(
        **{
            "workload": WORKLOAD,
            "evidence": EVIDENCE,
            "missing": GAPS,
            "deciding_missing": GAPS[:1],
            "changes": CHANGES,
            **overrides,
        }
    )


SHOWN = ("OOMKilled, exit code 137", "32 GiB / 32 GiB", "Peak CPU-memory usage", "Changed since")
HIDDEN = ("CONTEXT0", "CONTEXT5", "GAP-B", "GAP-C", "image: nvcr.io/acme/bert:1.3")


def test_the_plan_is_the_deciding_facts_the_change_and_the_gap_that_matters():
    answer = plan.answer(_report())

    assert [line.kind for line in answer.lines] == [
        LineKind.FACT,
        LineKind.FACT,
        LineKind.FACT,
        LineKind.CHANGE,
        LineKind.GAP,
    ]
    oom = answer.lines[0]
    assert oom.text == OOM  # one line for the fact, its most telling report
    assert oom.sources == (DESCRIBE, "get_workload_status", "get_workload_pods")
    assert answer.lines[3].text.startswith(
        "Changed since bert-ft on 2025-11-03 (Succeeded): image, CPU-memory limit"
    )
    everything = plan.everything(_report())
    assert answer.left_out == len(everything) - len(answer.lines)
    assert not any("more of the same kind" in line.text for line in everything)


def test_the_answer_is_at_most_six_lines():
    many = tuple(EvidenceLine(text=f"DECIDING{i}", source="s", deciding=True) for i in range(10))
    answer = plan.answer(_report(evidence=many, deciding_missing=GAPS))
    assert len(answer.lines) <= MAX_SHOWN
    assert [line.kind for line in answer.lines].count(LineKind.GAP) == 2


def _without_other_text(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_slack_teams_and_the_console_show_the_same_lines():
    full = _report()
    answer = plan.answer(full)
    [slack] = render_report(full, lookback="24h")
    [teams] = render_report_cards(full, lookback="24h")
    console = render_reply(ReportReply(full, "24h"))
    shown = {
        "slack": all_text(slack),
        "teams": card_text(teams),
        "console": console,
    }
    for name, text in shown.items():
        flat = _without_other_text(text)
        for part in SHOWN:
            assert part in flat, (name, part)
        for part in HIDDEN:
            assert part not in flat, (name, part)
    assert left_out([slack]) == answer.left_out
    assert f"{answer.left_out} more lines were left out" in shown["teams"]
    assert f"({answer.left_out} more lines were left out" in console


def card_text(card: Card) -> str:
    return "\n".join(texts(activity(card)))


def test_show_all_evidence_shows_every_fact_change_and_gap_everywhere():
    full = _report()
    every = plan.everything(full)
    slack = "\n".join(all_text(m) for m in render_evidence(full, lookback="24h"))
    teams = "\n".join(card_text(c) for c in render_evidence_cards(full, lookback="24h"))
    console = render_reply(EvidenceReply(full, "24h"))
    for name, text in {"slack": slack, "teams": teams, "console": console}.items():
        flat = _without_other_text(text)
        for part in (*SHOWN, *HIDDEN, "also: Phase message", "GAP-A"):
            assert part in flat, (name, part)
        assert "more of the same kind" not in flat
        assert "left out" not in flat, name
    assert len(every) == 3 + 6 + 2 + 3 + 3  # facts, context, other wordings, changes, gaps


def test_the_terminal_view_is_everything():
    text = render_text(_report(), everything=True)
    for part in (*SHOWN, *HIDDEN):
        assert part in _without_other_text(text)
    assert "left out" not in text


def test_json_keeps_every_line_and_the_sources_of_each_fact():
    data = _report().to_json_dict("24h")

    assert [e["text"] for e in data["evidence"]] == [e.text for e in EVIDENCE]
    assert data["facts"][0]["sources"] == [DESCRIBE, "get_workload_status", "get_workload_pods"]
    assert data["facts"][0]["pod"] == "bert-ft-0-0"
    assert data["missing_deciding"] == ["GAP-A the one that matters"]
    assert data["changes"]["since_name"] == "bert-ft"
    assert [c["what"] for c in data["changes"]["items"]] == ["image", "CPU-memory limit"]


def test_a_limit_read_and_not_set_is_evidence_everywhere_never_not_measured():
    """The configuration was read and sets no limit: a fact every front end shows as one."""
    ev = evidence(
        workload(phase="Failed"),
        events=[event("OOMKilled", "Container trainer was OOMKilled", 5)],
        spec_=spec(compute={"cpuMemoryRequest": "32Gi", "cpuMemoryLimit": None}),
        metrics=[usage(2**30)],
        metrics_requested=True,
    )
    oom = compose(ev, classify(ev))
    fact = "32 GiB / not set (the node's memory is the ceiling)"
    assert any(fact in line.text for line in plan.answer(oom).evidence)
    assert not any("CPU-memory" in line.text for line in plan.everything(oom) if not line.sources)
    [slack] = render_report(oom, lookback="24h")
    [teams] = render_report_cards(oom, lookback="24h")
    console = render_reply(ReportReply(oom, "24h"))
    for name, text in {
        "slack": all_text(slack),
        "teams": card_text(teams),
        "console": console,
    }.items():
        flat = _without_other_text(text)
        assert fact in flat, name
        assert "none configured" not in flat, name
        gaps = flat.split("Not measured", 1)[1] if "Not measured" in flat else ""
        assert "CPU-memory" not in gaps, name
