"""Questions and notices in Block Kit (`bot.slack.render.questions`): within every limit, inert."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.render.clean import utf16_len
from bot.render.wording import candidate_labels
from bot.slack.render.blocks import Choice, SlackMessage, render_notice, render_question
from diagnosis import WorkloadRef
from tests.bot.render.reports import maybe_long, untrusted
from tests.bot.slack.render.checks import assert_within_limits

# ------------------------------------------------------------------ question and notice


def test_question_buttons_come_25_to_an_actions_block():
    choices = [
        Choice(f"<!here> workload {i} " + "w" * 80, f"id-{i}", f"pick_{i}") for i in range(60)
    ]
    message = render_question("Which <@U1> workload?", choices, block_id_prefix="q-7")
    assert_within_limits(message)
    assert message.blocks[0]["text"]["text"] == "Which &lt;@U1&gt; workload?"
    actions = [b for b in message.blocks if b["type"] == "actions"]
    assert [len(b["elements"]) for b in actions] == [25, 25, 10]
    assert [b["block_id"] for b in actions] == ["q-7:choices:0", "q-7:choices:1", "q-7:choices:2"]
    first = actions[0]["elements"][0]
    assert first["text"]["text"].startswith("&lt;!here&gt; workload 0")
    assert first["text"]["text"].endswith("…")
    assert (first["value"], first["action_id"]) == ("id-0", "pick_0")


@pytest.mark.parametrize(
    "name",
    ["r&d<ml>&co-" * 8, "&" * 90, "a<b>" * 30, "q&a"],
    ids=["mixed", "ampersands", "angles", "short"],
)
def test_candidate_buttons_keep_their_facts_once_escaped(name: str):
    """Labels are sized as Slack is sent them, entities included.

    A name with `&`, `<`, `>`: the facts that tell the candidates apart survive, within
    Slack's 75 units, and no entity is split.
    """
    when = datetime(2025, 11, 4, 0, 17, tzinfo=UTC)
    candidates = [
        WorkloadRef(
            id=f"id-{i}", name=name, project="p", cluster_id="c", phase=phase, submitted_at=when
        )
        for i, phase in enumerate(("Failed", "Running"))
    ]
    labels = candidate_labels(candidates)
    choices = [Choice(label, f"workload:{i}", f"pick_{i}") for i, label in enumerate(labels)]
    message = render_question("Which workload?", choices, block_id_prefix="q")
    assert_within_limits(message)
    buttons = [
        e["text"]["text"] for b in message.blocks if b["type"] == "actions" for e in b["elements"]
    ]
    for shown, phase in zip(buttons, ("Failed", "Running"), strict=True):
        assert utf16_len(shown) <= 75
        assert shown.endswith(f" · {phase} · submitted 11-04 00:17Z"), shown
        amp = shown.rfind("&", 0, shown.index(" · "))
        assert amp == -1 or shown[amp:].split(";")[0] in {"&amp", "&lt", "&gt"}
    assert len(set(buttons)) == 2


def test_too_many_choices_are_cut_and_say_so():
    choices = [Choice("c" * 75, "v" * 200, f"a{i}") for i in range(2_000)]
    message = render_question("Which?", choices, block_id_prefix="q")
    assert_within_limits(message)
    shown = sum(len(b["elements"]) for b in message.blocks if b["type"] == "actions")
    assert message.blocks[-1]["elements"][0]["text"] == f"_{2_000 - shown} more choices not shown_"


@pytest.mark.parametrize(
    ("choices", "prefix"),
    [
        ([Choice("a", "1", "same"), Choice("b", "2", "same")], "q"),
        ([Choice("a", "v" * 2_001, "x")], "q"),
        ([Choice("a", "1", "x" * 256)], "q"),
        ([Choice("a", "1", "")], "q"),
        ([Choice("a", "1", "x")], "p" * 250),
        ([Choice("a", "1", "x")], ""),
    ],
)
def test_question_rejects_ids_and_values_slack_would_reject(choices, prefix):
    with pytest.raises(ValueError, match=r"block_id_prefix|action_id|value"):
        render_question("Which?", choices, block_id_prefix=prefix)


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (
            "Diagnosing training-job-42 in ml-team on prod-a…",
            "Diagnosing training-job-42 in ml-team on prod-a…",
        ),
        ("Workload <!channel> not found", "Workload &lt;!channel&gt; not found"),
        ("\u200b", "(no details)"),
        ("e" * 5_000, "e" * 2_999 + "…"),
    ],
)
def test_notice(raw, shown):
    message = render_notice(raw)
    assert message == SlackMessage(
        text=shown,
        blocks=[{"type": "section", "text": {"type": "mrkdwn", "text": shown, "verbatim": True}}],
    )
    assert_within_limits(message)


@settings(max_examples=200, deadline=None)
@given(text=maybe_long, labels=st.lists(untrusted, max_size=30))
def test_any_question_and_notice_render_valid_and_inert(text, labels):
    choices = [Choice(label, str(i), f"pick_{i}") for i, label in enumerate(labels)]
    assert_within_limits(render_question(text, choices, block_id_prefix="q"))
    assert_within_limits(render_notice(text))
