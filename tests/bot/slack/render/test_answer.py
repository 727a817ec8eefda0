"""The richer answer in Block Kit and text: cluster name, question, buttons, chart, literal logs."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.render.actions import OPEN_IN_RUNAI, RERUN, SHOW_ALL_EVIDENCE, answer_id
from bot.render.text import render_text
from bot.render.wording import OUTCOME_WORDS, cli_command, first_line_label
from bot.slack.render.blocks import (
    ACTIONS_BLOCK_ID,
    MAX_EVIDENCE_MESSAGES,
    ChartImage,
    render_evidence,
    render_notice,
    render_report,
)
from bot.slack.render.mrkdwn import neutralise
from diagnosis import (
    Category,
    EvidenceLine,
    MemoryFigures,
    MemorySample,
    Outcome,
    Report,
    WorkloadRef,
)
from tests.bot.render.reports import report, reports, untrusted
from tests.bot.slack.render.checks import all_text, assert_within_limits

CLUSTER = "2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92"
ID = "3f1c2a9e-5b7d-4c1e-9a2f-8d6b0e4c7a11"
WORKLOAD = WorkloadRef(id=ID, name="train-bert", project="nlp", cluster_id=CLUSTER, phase="Failed")
GIB = 1024**3


def answer(**overrides: Any) -> Report:
    return report(**{"workload": WORKLOAD, **overrides})


def buttons(blocks: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    found = [b for b in blocks if b.get("block_id") == ACTIONS_BLOCK_ID]
    return {e["action_id"]: e for b in found for e in b["elements"]}


# ------------------------------------------------------------------ cluster and candidates


def test_the_cluster_is_shown_by_name_with_its_id_in_the_details():
    (message,) = render_report(answer(), cluster_name="prod-a")
    assert message.blocks[1]["fields"][2]["text"] == "*Cluster*\n`prod-a`"
    assert message.blocks[2]["elements"][0]["text"] == (
        f"Cluster ID `{CLUSTER}` · Workload ID `{ID}`"
    )
    text = render_text(answer(), cluster_name="prod-a")
    assert f"Cluster: prod-a ({CLUSTER})" in text.splitlines()[1]
    assert f"Workload ID: {ID}" in text.splitlines()


@pytest.mark.parametrize(
    ("submitted", "updated", "shown"),
    [
        (
            datetime(2025, 11, 4, 0, 17, 57, tzinfo=UTC),
            datetime(2025, 11, 4, 8, 52, 1, tzinfo=UTC),
            "phase Failed · submitted 2025-11-04 00:17:57Z · phase updated 2025-11-04 08:52:01Z",
        ),
        (
            datetime(2025, 11, 4, 1, 0, tzinfo=UTC) + timedelta(hours=-3),  # any zone: UTC.
            None,
            "phase Failed · submitted 2025-11-03 22:00:00Z · phase updated ?",
        ),
        (None, None, "phase Failed · submitted ? · phase updated ?"),
    ],
)
def test_candidates_show_phase_submission_and_last_phase_update(submitted, updated, shown):
    candidate = WORKLOAD.model_copy(update={"submitted_at": submitted, "phase_updated_at": updated})
    asking = Report(
        outcome=Outcome.NEEDS_INPUT,
        headline="Which one?",
        question="Which one?",
        candidates=(candidate,),
    )
    (message,) = render_report(asking)
    assert f"(nlp) · {shown} · workload ID `{ID}`" in all_text(message)
    assert f"- train-bert (nlp) {shown}: workload ID {ID}" in render_text(asking)


# ------------------------------------------------------------------ the question back


def test_running_no_failure_asks_whether_a_past_run_was_meant():
    question = "Did you mean a past run of this workload? Give that run's workload ID."
    running = Report(
        outcome=Outcome.RUNNING_NO_FAILURE,
        workload=WORKLOAD.model_copy(update={"phase": "Running"}),
        headline="The workload is Running and nothing confirms a crash loop.",
        question=question,
    )
    (message,) = render_report(running)
    assert f"*Question:* {question}" in [b.get("text", {}).get("text") for b in message.blocks]
    assert f"Question: {question}" in render_text(running).splitlines()
    assert_within_limits(message)


# ------------------------------------------------------------------ buttons


def test_buttons_show_all_evidence_rerun_and_open_in_run_ai():
    shown = answer()
    (message,) = render_report(shown, lookback="7d", runai_url="https://acme.run.ai")
    found = buttons(message.blocks)
    assert list(found) == [SHOW_ALL_EVIDENCE, RERUN, OPEN_IN_RUNAI]
    assert [b["text"]["text"] for b in found.values()] == [
        "Show all evidence",
        "Check again",
        "Open in Run:ai",
    ]
    digest = answer_id(shown)
    value = f'{{"cluster_id":"{CLUSTER}","workload_id":"{ID}","lookback":"7d","answer":"{digest}"}}'
    assert found[SHOW_ALL_EVIDENCE]["value"] == found[RERUN]["value"] == value
    assert found[OPEN_IN_RUNAI]["url"] == (
        f"https://acme.run.ai/workloads?clusterId={CLUSTER}&workloadId={ID}"
    )
    assert_within_limits(message)


@pytest.mark.parametrize(
    ("overrides", "kwargs", "expected"),
    [
        ({}, {}, [SHOW_ALL_EVIDENCE, RERUN]),  # no RUNAI_URL configured: no link.
        ({"evidence": ()}, {}, [RERUN]),
        ({}, {"actions": False}, []),
        ({"outcome": Outcome.NEEDS_INPUT, "category": None}, {}, []),
        ({"outcome": Outcome.CLUSTER_MISMATCH, "category": None}, {}, []),
        ({"workload": None}, {"runai_url": "https://acme.run.ai"}, []),
        (  # upstream put text in the ID field: no value, no link.
            {"workload": WORKLOAD.model_copy(update={"id": "<!channel>"})},
            {"runai_url": "https://acme.run.ai"},
            [],
        ),
    ],
)
def test_which_buttons_a_report_gets(overrides, kwargs, expected):
    (message,) = render_report(answer(**overrides), **kwargs)
    assert list(buttons(message.blocks)) == expected


# ------------------------------------------------------------------ memory


def _memory() -> MemoryFigures:
    start = datetime(2025, 11, 4, 0, 18, tzinfo=UTC)
    series = tuple(
        MemorySample(at=start + timedelta(minutes=30 * i), usage_bytes=v * GIB)
        for i, v in enumerate([8, 16, 31])
    )
    return MemoryFigures(
        request_bytes=32 * GIB, limit_bytes=32 * GIB, peak_bytes=31 * GIB, samples=series
    )


def test_an_uploaded_chart_is_an_image_block_of_its_slack_file():
    chart = ChartImage(file_id="F0000000001", alt_text="CPU memory <b>of</b> x", title="CPU mem")
    (message,) = render_report(answer(memory=_memory()), chart=chart)
    [image] = [b for b in message.blocks if b["type"] == "image"]
    assert image == {
        "type": "image",
        "slack_file": {"id": "F0000000001"},
        "alt_text": "CPU memory &lt;b&gt;of&lt;/b&gt; x",
        "title": {"type": "plain_text", "text": "CPU mem"},
    }
    assert "▁" not in all_text(message)  # the picture, not the sparkline.
    assert_within_limits(message)


def test_without_a_chart_the_series_is_a_sparkline():
    (message,) = render_report(answer(memory=_memory()))
    assert [b for b in message.blocks if b["type"] == "image"] == []
    assert re.search(r"CPU memory .*: [▁-█]{3} peak 31 GiB, limit 32 GiB", all_text(message))
    assert re.search(r"CPU memory .*: [▁-█]{3} peak 31 GiB", render_text(answer(memory=_memory())))


# ------------------------------------------------------------------ literal upstream text


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("*bold* and _italic_", "\u2217bold\u2217 and \u02cditalic\u02cd"),
        ("~strike~", "\u223cstrike\u223c"),
        ("`code` and ```block```", "\u02cbcode\u02cb and \u02cb\u02cb\u02cbblock\u02cb\u02cb\u02cb"),
        ("> quoted", "\u203a quoted"),
        ("snake_case_name and CUDA_VISIBLE_DEVICES=0,1", "snake_case_name and CUDA_VISIBLE_DEVICES=0,1"),
        ("2*3*4 stays arithmetic", "2*3*4 stays arithmetic"),
        ("<!channel> *x*", "&lt;!channel&gt; \u2217x\u2217"),
    ],
)  # fmt: skip
def test_upstream_text_cannot_format(raw, shown):
    evidence = (EvidenceLine(text=raw, source="get_workload_events"),)
    (message,) = render_report(answer(headline=raw, evidence=evidence))
    assert message.blocks[3]["text"]["text"] == shown
    assert f"• {shown}  _(get_workload_events)_" in message.blocks[4]["text"]["text"]
    assert_within_limits(message)


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("Traceback: *args **kwargs _private_", "```Traceback: *args **kwargs _private_```"),
        ("`x` ```y```", "```\u02cbx\u02cb \u02cb\u02cb\u02cby\u02cb\u02cb\u02cb```"),
        ("<@U1> & <!here>", "```&lt;@U1&gt; &amp; &lt;!here&gt;```"),
    ],
)
def test_log_lines_are_preformatted_and_shown_as_written(raw, shown):
    line = EvidenceLine(text=raw, source="kubectl logs --previous -n ml-team")
    (message,) = render_report(answer(evidence=(line,)))
    assert message.blocks[4]["text"]["text"] == (
        f"*Evidence*\n• {shown}  _(kubectl logs --previous -n ml-team)_"
    )
    assert_within_limits(message)


def test_the_bots_own_notices_keep_their_code_spans():
    message = render_notice("Try `/runai-why help` — *not* a failure of <!here>")
    assert message.blocks[0]["text"]["text"] == (
        "Try `/runai-why help` — \u2217not\u2217 a failure of &lt;!here&gt;"
    )


def test_recommendations_keep_the_engines_code_spans():
    rec = "Read the previous log (`kubectl logs --previous`) before *rerunning*."
    (message,) = render_report(answer(recommendations=(rec,)))
    assert (
        "• Read the previous log (`kubectl logs --previous`) before \u2217rerunning\u2217."
        in all_text(message)
    )


def test_neutralise_leaves_plain_text_alone():
    assert neutralise("Peak CPU-memory usage: 31.6 GiB = 99% of the limit") == (
        "Peak CPU-memory usage: 31.6 GiB = 99% of the limit"
    )


# ------------------------------------------------------------------ outcome labels


@pytest.mark.parametrize("outcome", [o for o in Outcome if o is not Outcome.DIAGNOSED])
def test_outcome_labels_come_from_one_table(outcome):
    name, why = OUTCOME_WORDS[outcome]
    plain = Report(outcome=outcome, headline="h")
    assert first_line_label(plain) == (f"{name} — {why}" if why else name)
    assert render_text(plain).splitlines()[0] == (
        f"Outcome: {name} ({why})" if why else f"Outcome: {name}"
    )


# ------------------------------------------------------------------ show all evidence


def test_show_all_evidence_posts_every_line_in_order():
    lines = tuple(EvidenceLine(text=f"EV{i:03d} " + "e" * 300, source="s") for i in range(60))
    messages = render_evidence(answer(evidence=lines), lookback="24h")
    text = "\n".join(all_text(m) for m in messages)
    assert re.findall(r"EV(\d{3})", text) == [f"{i:03d}" for i in range(60)]
    assert messages[0].text.startswith("All evidence · OOM_KILLED · train-bert — evidence 1")
    for message in messages:
        assert_within_limits(message)


def test_show_all_evidence_is_capped_too_and_names_the_command():
    lines = tuple(EvidenceLine(text=f"{i:03d} " + "x" * 900, source="s") for i in range(400))
    messages = render_evidence(answer(evidence=lines), lookback="24h")
    assert len(messages) == MAX_EVIDENCE_MESSAGES
    closing = messages[-1].blocks[-1]["elements"][0]["text"]
    assert "left out to keep the thread short" in closing
    assert "Show all evidence" not in closing  # that is the button already pressed.
    assert f"`runai-why diagnose --cluster-id {CLUSTER} --workload-id {ID} --lookback 24h`" in (
        closing
    )


def test_show_all_evidence_without_evidence_says_so():
    (message,) = render_evidence(answer(evidence=(), missing=()))
    assert message.text == "OOM_KILLED · train-bert — no evidence lines were recorded."


@pytest.mark.parametrize(
    ("workload", "lookback", "command"),
    [
        (WORKLOAD, "24h",
         f"runai-why diagnose --cluster-id {CLUSTER} --workload-id {ID} --lookback 24h"),
        (WORKLOAD, None, f"runai-why diagnose --cluster-id {CLUSTER} --workload-id {ID}"),
        (WORKLOAD.model_copy(update={"id": "a b"}), None,
         f"runai-why diagnose --cluster-id {CLUSTER} --workload-id 'a b'"),
        (None, "24h", None),
    ],
)  # fmt: skip
def test_the_command_that_prints_everything(workload, lookback, command):
    subject = Report(outcome=Outcome.DIAGNOSED, category=Category.UNKNOWN, workload=workload)
    assert cli_command(subject, lookback) == command


# A few hundred generated reports take ~10 s of CPU; on a loaded 2-core machine that can
# pass the suite's 60 s per-test timeout, so these properties get a longer one.
@pytest.mark.timeout(300)
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(subject=reports(), lookback=st.none() | untrusted)
def test_any_report_renders_valid_inert_evidence_messages(subject, lookback):
    messages = render_evidence(subject, lookback=lookback)
    assert 1 <= len(messages) <= MAX_EVIDENCE_MESSAGES
    for message in messages:
        assert_within_limits(message)
