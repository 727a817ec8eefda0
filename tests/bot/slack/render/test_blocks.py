"""Block Kit rendering (`bot.slack.render.blocks`): category first, hostile text neutralised, every message within limits."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.render.clean import truncate
from bot.render.wording import first_line_label
from bot.slack.render.blocks import (
    MAX_REPLIES,
    Choice,
    render_notice,
    render_question,
    render_report,
)
from bot.slack.render.mrkdwn import code, escape, slack_len
from diagnosis import Category, EvidenceLine, Outcome, Recurrence, Report
from tests.bot.render.reports import (
    WORKLOAD,
    report,
    reports,
    untrusted,
)
from tests.bot.slack.render.checks import (
    all_text,
    assert_within_limits,
    evidence_coverage,
    left_out,
    text_objects,
)

# ------------------------------------------------------------------ sized as sent


@pytest.mark.parametrize("name", ["\U0001f680" * 200, "r&d<ml>" * 60, "a&b" * 100])
def test_the_header_and_the_notification_text_are_sized_as_sent(name: str):
    """Each limit holds for the text Slack is sent: entities and UTF-16 units counted."""
    long = report(workload=WORKLOAD.model_copy(update={"name": name}), headline="H" * 5_000)
    [main, *_] = render_report(long)
    assert_within_limits(main)
    header = main.blocks[0]["text"]["text"]
    assert slack_len(header) <= 150
    assert slack_len(main.text) <= 1_500
    assert main.text.split("\n")[1].startswith("HHH")  # the headline still has its room
    for text in (header, main.text):
        amp = text.rfind("&", 0, text.index("…"))
        assert amp == -1 or text[amp:].split(";")[0] in {"&amp", "&lt", "&gt"}


# ------------------------------------------------------------------ first line


@pytest.mark.parametrize("category", list(Category))
def test_category_is_the_first_line_of_text_and_header(category):
    message = render_report(report(category=category))[0]
    assert message.blocks[0] == {
        "type": "header",
        "text": {"type": "plain_text", "text": f"{category.value} · training-job-42"},
    }
    assert message.text.split("\n")[0] == f"{category.value} · training-job-42"


@pytest.mark.parametrize(
    ("outcome", "label"),
    [
        (Outcome.SUCCEEDED, "SUCCEEDED — not a failure"),
        (Outcome.PREEMPTED, "PREEMPTED — not a failure"),
        (Outcome.PENDING_SCHEDULING, "PENDING — scheduling, not a failure"),
        (Outcome.SUSPENDED, "SUSPENDED — out of scope"),
        (Outcome.RUNNING_NO_FAILURE, "RUNNING — no failure confirmed"),
        (Outcome.NOT_TERMINAL, "NOT TERMINAL — no category assigned"),
        (Outcome.CLUSTER_MISMATCH, "CLUSTER MISMATCH — stopped"),
        (Outcome.NEEDS_INPUT, "NEED MORE INFORMATION"),
        (Outcome.NOT_FOUND, "NOT FOUND"),
        (Outcome.DIAGNOSED, "DIAGNOSED"),  # no category: should not happen, still labelled.
    ],
)
def test_outcome_is_the_first_line_when_there_is_no_category(outcome, label):
    messages = render_report(report(outcome=outcome, category=None, recurrence=None))
    assert first_line_label(report(outcome=outcome, category=None)) == label
    assert messages[0].blocks[0]["text"]["text"] == f"{label} · training-job-42"
    assert messages[0].text.split("\n")[0] == f"{label} · training-job-42"
    assert_within_limits(messages[0])


def test_a_report_without_workload_is_just_the_label():
    """NOT_FOUND with nothing resolved: header is the outcome alone, still a valid message."""
    (message,) = render_report(Report(outcome=Outcome.NOT_FOUND, headline="No such workload."))
    assert message.blocks[0]["text"]["text"] == "NOT FOUND"
    assert message.text == "NOT FOUND\nNo such workload."
    assert_within_limits(message)


def test_a_long_workload_name_is_cut_but_the_category_is_not():
    (message,) = render_report(report(workload=WORKLOAD.model_copy(update={"name": "n" * 400})))
    header = message.blocks[0]["text"]["text"]
    assert header.startswith("OOM_KILLED · nnn")
    assert header.endswith("…")
    assert len(header) == 150


# ------------------------------------------------------------------ content


def test_the_report_reads_in_render_text_order():
    """Header, fields, IDs, headline, evidence, history, recommendation, gaps, actions, notes."""
    (message,) = render_report(
        report(), notes=["Using this channel's default cluster prod-a"], cluster_name="prod-a100"
    )
    blocks = message.blocks
    assert [b["type"] for b in blocks] == [
        "header", "section", "context", *["section"] * 5, "actions", "context",
    ]  # fmt: skip
    assert [f["text"] for f in blocks[1]["fields"]] == [
        "*Workload*\n`training-job-42`",
        "*Project*\n`ml-team`",
        "*Cluster*\n`prod-a100`",
        "*Phase*\nFailed",
        "*Who fixes it*\nUser: raise memory; administrator: node memory",
    ]
    assert blocks[2]["elements"][0]["text"] == "Cluster ID `prod-a` · Workload ID `3f1c2a9e`"
    assert blocks[3]["text"]["text"] == report().headline
    assert blocks[4]["text"]["text"] == (
        "*Evidence*\n• Peak CPU-memory usage: 31 GiB = 97% of the limit  _(get_workload_metrics)_"
    )
    assert (
        blocks[5]["text"]["text"] == "History: 3 OOM_KILLED failures in the last 24h (recurring)."
    )
    assert blocks[6]["text"]["text"] == "*Recommendation*\n• Raise the memory limit to 40 GiB."
    assert blocks[7]["text"]["text"] == "*Not measured*\n• GPU memory (metrics unavailable)"
    assert [e["text"] for e in blocks[9]["elements"]] == [
        "Using this channel's default cluster prod-a",
        "2 sensitive values redacted",
    ]


@pytest.mark.parametrize(
    ("recurrence", "expected"),
    [
        (
            Recurrence(count=3, lookback="24h", recurring=True),
            "History: 3 OOM_KILLED failures in the last 24h (recurring).",
        ),
        (
            Recurrence(count=1, lookback="7d", recurring=False),
            "History: 1 OOM_KILLED failure in the last 7d (one-off).",
        ),
        (
            Recurrence(count=None, lookback="24h", recurring=False),
            "History: not measured (history unavailable for the last 24h).",
        ),
        (
            Recurrence(count=0, lookback="24h", recurring=False),
            "History: no OOM_KILLED failures in the last 24h; this one is older than the "
            "lookback (ask with a longer lookback to count it).",
        ),
    ],
)
def test_recurrence_wording(recurrence, expected):
    (message,) = render_report(report(recurrence=recurrence))
    assert expected in [b.get("text", {}).get("text") for b in message.blocks]


def test_needs_input_shows_candidates_and_hides_missing():
    """As in render_text: the question is the headline; gaps are what it asks about."""
    candidate = WORKLOAD.model_copy(
        update={
            "name": "job`1",
            "id": "id-1",
            "submitted_at": datetime(2025, 11, 4, 0, 17, 57, tzinfo=UTC),
            "phase_updated_at": datetime(2025, 11, 4, 8, 52, 1, tzinfo=UTC),
        }
    )
    rendered = render_report(
        report(
            outcome=Outcome.NEEDS_INPUT,
            category=None,
            headline="Which workload did you mean?",
            candidates=(candidate,),
        )
    )[0]
    texts = all_text(rendered)
    assert (
        "*Candidates*\n• `job\u02cb1` (ml-team) · phase Failed · submitted 2025-11-04 00:17:57Z · "
        "phase updated 2025-11-04 08:52:01Z · workload ID `id-1`"
    ) in texts
    assert "Not measured" not in texts
    assert "Check again" not in texts  # a question back has nothing to check again yet.


def test_redaction_count_and_notes_fit_one_context_block():
    (message,) = render_report(report(redactions=1), notes=[f"note {i}" for i in range(15)])
    elements = [e["text"] for e in message.blocks[-1]["elements"]]
    assert len(elements) == 10
    assert elements[-1] == "1 sensitive value redacted"
    assert elements[-2] == " · ".join(f"note {i}" for i in range(8, 15))


@pytest.mark.parametrize(
    ("overflowing", "shown"),
    [
        (["cluster R&D <prod>", "team A&B"], "cluster R&amp;D &lt;prod&gt; · team A&amp;B"),
        (["&amp; stays literal", "x"], "&amp;amp; stays literal · x"),
        (["*bold*", "two\nlines"], "\u2217bold\u2217 · two lines"),
    ],
)
def test_notes_sharing_the_last_element_are_escaped_once(overflowing, shown):
    notes = [f"note {i}" for i in range(9)] + overflowing
    (message,) = render_report(report(redactions=0), notes=notes)
    elements = [e["text"] for e in message.blocks[-1]["elements"]]
    assert len(elements) == 10
    assert elements[-1] == shown


# ------------------------------------------------------------------ safety


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("<!channel> look", "&lt;!channel&gt; look"),
        ("<!here>", "&lt;!here&gt;"),
        ("<!everyone>", "&lt;!everyone&gt;"),
        ("ping <@U123>", "ping &lt;@U123&gt;"),
        ("<#C123|general>", "&lt;#C123|general&gt;"),
        ("<https://evil|click>", "&lt;https://evil|click&gt;"),
        ("<!subteam^S1>", "&lt;!subteam^S1&gt;"),
        ("a & b", "a &amp; b"),
        ("&amp; stays literal", "&amp;amp; stays literal"),
        ('it\'s "quoted"', 'it\'s "quoted"'),  # only & < > are escaped.
        ("@channel typed as text", "@channel typed as text"),
        ("zero\u200bwidth\u2060joiner\ufeff", "zerowidthjoiner"),
        ("bidi \u202eevil\u202c \u2066x\u2069", "bidi evil x"),
        ("ansi \x1b[31mred\x1b[0m\x00\x07", "ansi [31mred[0m"),
        ("line one\nline two", "line one\nline two"),
        ("tag\U000e0041chars", "tagchars"),
    ],
)
def test_untrusted_text_is_escaped_and_cleaned(raw, shown):
    (message,) = render_report(
        report(headline=raw, evidence=(EvidenceLine(text=raw, source="get_workload_events"),))
    )
    assert message.blocks[3]["text"]["text"] == shown
    assert f"• {shown}  _(get_workload_events)_" in message.blocks[4]["text"]["text"]
    assert message.text == f"OOM_KILLED · training-job-42\n{shown}"
    assert_within_limits(message)


@pytest.mark.parametrize(
    ("name", "span"),
    [
        ("job`42", "`job\u02cb42`"),
        ("```", "`\u02cb\u02cb\u02cb`"),
        ("<@U1>", "`&lt;@U1&gt;`"),
        ("\u200b", "`?`"),  # nothing visible left.
        ("two\nlines", "`two lines`"),
    ],
)
def test_code_spans_neutralise_backticks_and_stay_on_one_line(name, span):
    assert code(name, 100) == span
    (message,) = render_report(report(workload=WORKLOAD.model_copy(update={"name": name})))
    assert message.blocks[1]["fields"][0]["text"] == f"*Workload*\n{span}"


def test_every_mrkdwn_object_is_verbatim():
    """Walks every block of a report with all sections, a question and a notice."""
    messages = [
        *render_report(
            report(
                candidates=(WORKLOAD,), evidence=(EvidenceLine(text="x" * 900, source="s"),) * 40
            ),
            notes=["a note"],
        ),
        render_question("Which?", [Choice("a", "1", "pick_1")], block_id_prefix="q1"),
        render_notice("Diagnosing training-job-42 in ml-team on prod-a…"),
    ]
    objects = [o for m in messages for o in text_objects(m.blocks)]
    mrkdwn = [o for o in objects if o["type"] == "mrkdwn"]
    assert len(mrkdwn) > 10
    assert all(o["verbatim"] is True for o in mrkdwn)
    for message in messages:
        assert_within_limits(message)


@pytest.mark.parametrize(
    ("text", "limit", "cut"),
    [
        ("abcdef", 6, "abcdef"),
        ("abcdef", 4, "abc…"),
        ("ab&amp;cd", 6, "ab…"),  # never leaves half an escape behind.
        ("ab&amp;cd", 8, "ab&amp;…"),
        ("a😀b", 3, "a…"),  # outside the BMP counts as two units.
        ("a😀b", 4, "a😀b"),
    ],
)
def test_truncate(text, limit, cut):
    assert truncate(text, limit) == cut
    assert slack_len(truncate(text, limit)) <= limit


# ------------------------------------------------------------------ limits and overflow


def test_a_huge_report_shows_its_deciding_lines_and_counts_the_rest():
    """300 evidence lines of 2,500 chars, 3 of them deciding: the answer shows those 3.

    In order, within Block Kit's limits, without thread replies; the rest is counted, with
    the button and the real command that shows them all.
    """
    huge = report(
        headline="H" * 10_000,
        evidence=tuple(
            EvidenceLine(
                text=f"EV{i:03d}|" + "x" * 2_500,
                source="get_workload_logs",
                deciding=i in {7, 8, 9},
            )
            for i in range(300)
        ),
    )
    messages = render_report(
        huge, notes=["Using this channel's default cluster prod-a"], lookback="7d"
    )
    assert len(messages) == 1
    [main] = messages
    assert_within_limits(main)
    assert main.blocks[3]["text"]["text"].endswith("…")
    assert slack_len(main.text) <= 4_000
    assert re.findall(r"EV(\d{3})\|", all_text(main)) == ["007", "008", "009"]
    assert "Not measured" not in all_text(main)  # no gap decides this verdict
    assert left_out(messages) == 297 + 1  # the other lines and the one gap
    closing = main.blocks[-1]["elements"][0]["text"]
    assert closing.endswith(
        "To see them all, press *Show all evidence* or run "
        "`runai-why diagnose --cluster-id prod-a --workload-id 3f1c2a9e --lookback 7d`."
    )
    assert "History: 3 OOM_KILLED failures" in all_text(main)  # the summary stays in main.


@pytest.mark.parametrize("max_replies", [0, 1, 3, 10])
def test_the_number_of_replies_is_capped(max_replies):
    long = report(recommendations=tuple(f"REC{i:03d} " + "r" * 900 for i in range(200)))
    messages = render_report(long, max_replies=max_replies)
    assert len(messages) <= 1 + max_replies
    shown = len(re.findall(r"REC\d{3}", "\n".join(all_text(m) for m in messages)))
    assert shown + left_out(messages) == 200  # every recommendation shown or counted
    for message in messages:
        assert_within_limits(message)


def test_long_lists_other_than_evidence_overflow_too():
    many = report(
        recommendations=tuple(f"REC{i:03d} " + "r" * 400 for i in range(60)),
        missing=tuple(f"MIS{i:03d} " + "m" * 400 for i in range(60)),
        candidates=tuple(WORKLOAD.model_copy(update={"id": f"CAN{i:03d}"}) for i in range(60)),
    )
    messages = render_report(many, max_replies=10)
    for message in messages:
        assert_within_limits(message)
    text = "\n".join(all_text(m) for m in messages)
    for prefix in ("REC", "CAN"):
        assert re.findall(rf"{prefix}(\d{{3}})", text) == [f"{i:03d}" for i in range(60)]
    # the answer shows the gaps that matter (with none marked: the first two); the rest wait
    # behind "Show all evidence", counted
    assert re.findall(r"MIS(\d{3})", text) == ["000", "001"]
    assert left_out(messages) == 58
    assert re.search(r"_\d+ more recommendations in the thread_", all_text(messages[0]))
    capped = render_report(many)
    assert len(capped) == 1 + MAX_REPLIES
    counted = len(re.findall(r"(?:REC|MIS|CAN)\d{3}", "\n".join(all_text(m) for m in capped)))
    assert counted + left_out(capped) == 180


def test_escape_is_only_the_three_characters():
    assert escape("<a href='x'>&\"") == "&lt;a href='x'&gt;&amp;\""


# ------------------------------------------------------------------ property


# A few hundred generated reports take ~10 s of CPU; on a loaded 2-core machine that can
# pass the suite's 60 s per-test timeout, so these properties get a longer one.
@pytest.mark.timeout(300)
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(report=reports(), notes=st.lists(untrusted, max_size=12))
def test_any_report_renders_to_valid_inert_messages(report, notes):
    """Arbitrary and hostile text anywhere: within limits, valid, inert, label first."""
    messages = render_report(report, notes=notes)
    label = first_line_label(report)
    assert messages[0].text.split("\n")[0].startswith(label)
    assert messages[0].blocks[0]["text"]["text"].startswith(label)
    for message in messages:
        assert_within_limits(message)
    for message in messages[1:]:
        assert message.text.startswith(f"(continued) {label}")
    shown, left = evidence_coverage(messages, len(report.evidence))
    assert shown + left == len(report.evidence)
    assert left <= left_out(messages)  # the closing line counts every list's left-out lines.
    assert len(messages) <= 1 + MAX_REPLIES
