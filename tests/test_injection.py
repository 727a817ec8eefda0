"""Untrusted upstream text is data: instructions in it change nothing, markup in it is inert.

End to end (simulator -> RunaiClient -> diagnose -> renderers): a bundled scenario is run
twice, once as shipped and once with instruction-like text, Slack mentions and links, Block Kit
JSON, code-span breakouts, invisible and bidi characters and a 50,000-character line planted
in every free-text field the bot reads (event messages, phase and condition messages,
annotations, the submitted command and arguments, the workload name). The outcome, category,
recurrence and the requests sent upstream must be identical, and the planted text may only
show up as escaped, quoted data. Then both renderers are fuzzed with hostile strings.
(`tests/bot/slack/render/test_blocks.py` owns the Block Kit renderer's own property tests;
the planted text, the planting and the runs are `tests/injection.py`, shared with Teams.)
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.app.demo.scenarios import request_from_expectation
from bot.render.text import render_text
from bot.slack.render.blocks import SlackMessage, render_report
from diagnosis import Outcome, Report
from runai_sim.app import TOKEN_PATHS, RecordedRequest
from runai_sim.scenario import Scenario
from tests.bot.slack.fake_slack import check_blocks
from tests.injection import (
    HOSTILE,
    INSTRUCTION,
    INVISIBLE,
    LONG_LINE,
    MENTIONS,
    PLANTED,
    hostile,
    hostile_reports,
    plant,
    raw_scenario,
    run_scenario,
)
from tests.unicode_classes import category_class

#: Anything that would be live markup in Slack mrkdwn: mentions, links, dates.
LIVE = re.compile(r"<[!@#]|<(?:https?|mailto):|<!subteam\^|<!channel>|<!here>|<!everyone>")
#: Characters no renderer output may contain: controls (but newline), format (zero-width,
#: bidi embeddings/overrides/isolates, marks, soft hyphen, tags) and lone surrogates.
UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs"})
#: Zero-width characters and the bidi embeddings, overrides, isolates and marks that
#: `bot.render.text.sanitize` lists (U+061C, the Arabic letter mark, is missing there: see
#: `test_render_text_drops_every_format_character`).
ZERO_WIDTH_AND_BIDI = frozenset(
    "\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff"
)
MARKERS = ("kubectl delete", "!channel", "!here", "!everyone", "subteam", "evil.example", "URGENT")

#: Scenarios with different categories, so the planted text meets different rules.
SCENARIOS = [
    "crash-app-error",
    "oom-killed",
    "image-pull-auth",
    "image-pull-not-found",
    "mount-failed",
    "init-failed",
    "node-failure",
    "pending-scheduling",
    "pending-project-over-quota",
    "preempted-stale-gang",  # names no other workload: a renamed one could not be found
    "policy-idle-timeout",
    "exit137-not-oom",
]


# ---------------------------------------------------------------- what was asked upstream


def _calls(requests: list[RecordedRequest]) -> list[tuple[str, str, str]]:
    """What was asked upstream: method, path and query, in a stable order.

    A lookup by the workload's name (its earlier submissions) carries the name, planted
    text included when the name was renamed; that is the name, not a different call.
    """

    def query(r: RecordedRequest) -> str:
        named = {k: [v.replace(f" {HOSTILE}", "") for v in vs] for k, vs in r.query.items()}
        return json.dumps(named, sort_keys=True)

    return sorted((r.method, r.path, query(r)) for r in requests if r.path not in TOKEN_PATHS)


# ---------------------------------------------------------------- checks on rendered output


def strings(node: Any) -> Iterator[tuple[str, str]]:
    """Every (key, string) leaf of a block tree."""
    stack: list[tuple[str, Any]] = [("", node)]
    while stack:
        key, value = stack.pop()
        if isinstance(value, str):
            yield key, value
        elif isinstance(value, dict):
            stack.extend(value.items())
        elif isinstance(value, list):
            stack.extend((key, v) for v in value)


def mrkdwn_objects(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        if node.get("type") == "mrkdwn":
            yield node
        for value in node.values():
            yield from mrkdwn_objects(value)
    elif isinstance(node, list):
        for value in node:
            yield from mrkdwn_objects(value)


def printable(text: str) -> bool:
    """No character but newline and tab is a control, format, surrogate or separator one.

    A check at C speed that lets the per-character checks below skip ordinary text
    (`str.isprintable` is False for every category they look for).
    """
    return text.replace("\n", "").replace("\t", "").isprintable()


assert not any(c.isprintable() for c in ZERO_WIDTH_AND_BIDI)


def unsafe_chars(text: str) -> set[str]:
    if printable(text):
        return set()
    return {f"U+{ord(c):04X}" for c in category_class(UNSAFE_CATEGORIES, but="\n").findall(text)}


def assert_inert_slack(messages: list[SlackMessage]) -> None:
    """Within Slack's limits, every mrkdwn verbatim, no live markup, nothing invisible."""
    assert messages
    for message in messages:
        assert check_blocks(message.blocks) == []
        assert len(json.dumps(message.blocks)) < 40_000
        for obj in mrkdwn_objects(message.blocks):
            assert obj["verbatim"] is True
        for key, text in [("text", message.text), *strings(message.blocks)]:
            if key == "type":
                continue
            assert not LIVE.search(text), text
            assert "<" not in text, text  # escaped as &lt;: the renderer makes no links itself
            assert not unsafe_chars(text), (unsafe_chars(text), text[:200])


def terminal_unsafe(text: str) -> set[str]:
    """Controls (terminal escapes; newline and tab are fine) and zero-width/bidi characters."""
    if printable(text):
        return set()
    found = category_class(frozenset({"Cc"}), but="\n\t", plus=ZERO_WIDTH_AND_BIDI).findall(text)
    return {f"U+{ord(c):04X}" for c in found}


def assert_clean_text(text: str) -> None:
    """The terminal renderer: no control, zero-width or bidi character survives."""
    assert not terminal_unsafe(text), terminal_unsafe(text)


# ---------------------------------------------------------------- the pipeline


def _cases() -> list[Any]:
    cases = []
    for name in SCENARIOS:
        raw = raw_scenario(name)
        expectation = raw["expect"][0] if isinstance(raw["expect"], list) else raw["expect"]
        cases.append(pytest.param(name, raw, expectation, id=name))
    return cases


@pytest.mark.e2e
@pytest.mark.parametrize(("name", "raw", "expectation"), _cases())
async def test_planted_instructions_change_nothing_the_bot_does(name, raw, expectation):
    clean = Scenario.parse(raw, source=name)
    request = request_from_expectation(clean, expectation)
    rename = request.workload_id is not None  # a name lookup must still find the workload
    planted = Scenario.parse(plant(raw, rename=rename), source=f"{name} (planted)")

    before, before_requests = await run_scenario(clean, request)
    after, after_requests = await run_scenario(planted, request)

    # Same conclusion...
    assert after.outcome == before.outcome == Outcome(expectation["outcome"])
    assert after.category == before.category
    assert (after.category.value if after.category else None) == expectation.get("category")
    assert after.recurrence == before.recurrence
    assert after.workload is not None
    assert before.workload is not None
    assert after.workload.id == before.workload.id
    assert len(after.recommendations) == len(before.recommendations)
    # Evidence quotes the planted text, so "cite the same words once" may merge differently;
    # but it is drawn from the same calls, and the headline says the same thing.
    assert {e.source for e in after.evidence} <= {e.source for e in before.evidence}
    assert after.headline.replace(after.workload.name, before.workload.name) == before.headline
    # ... reached by exactly the same read-only calls: nothing extra, nothing written.
    assert _calls(after_requests) == _calls(before_requests)
    assert all(
        r.method == "GET" or (r.method == "POST" and r.path in TOKEN_PATHS) for r in after_requests
    ), [(r.method, r.path) for r in after_requests]
    # The bot's own words never repeat the planted text; it is only ever quoted as evidence.
    for line in after.recommendations:
        assert not any(marker in line for marker in MARKERS), line
        assert "delete" not in line.lower(), line
    assert after.recommendations == before.recommendations or rename

    # Rendered: inert in Slack, clean on a terminal, and the same layout as without it.
    messages, baseline = render_report(after), render_report(before)
    assert_inert_slack(messages)
    assert [b["type"] for b in messages[0].blocks] == [b["type"] for b in baseline[0].blocks]
    assert len(messages) == len(baseline)
    assert_clean_text(render_text(after))
    quoted = json.dumps([m.blocks for m in messages])
    if INSTRUCTION.split(",", maxsplit=1)[0] in json.dumps(after.model_dump(mode="json")):
        assert "&lt;!channel&gt;" in quoted  # shown, escaped, as the data it is


# ---------------------------------------------------------------- the renderers


def test_render_report_neutralises_every_planted_fragment():
    messages = render_report(PLANTED, notes=(f"note {MENTIONS}", INVISIBLE))
    assert_inert_slack(messages)
    shown = "\n".join(t for m in messages for k, t in strings(m.blocks) if k == "text")
    assert "&lt;!channel&gt;" in shown
    assert "&lt;@U0123ABCD&gt;" in shown
    assert "&lt;https://evil.example/steal?x=1|click here to fix&gt;" in shown
    assert "kubectl delete pod --all" in shown  # quoted as data, not removed
    assert LONG_LINE not in shown  # cut to Slack's limits
    # The category is still line one, whatever the workload name says.
    assert messages[0].text.startswith("CRASH_APP_ERROR · train ")
    assert messages[0].blocks[0]["text"]["text"].startswith("CRASH_APP_ERROR · ")


def test_render_text_drops_controls_and_invisible_characters():
    text = render_text(PLANTED)
    assert_clean_text(text)
    assert text.startswith("Category: CRASH_APP_ERROR\n")
    assert "\x1b" not in text
    assert "evil" in text  # the visible characters remain, the invisible ones are gone


#: Invisible characters `bot.render.text.sanitize` lets through today (its regex lists ranges;
#: `bot.slack.render.mrkdwn.clean` drops the whole Cc/Cf/Cs categories and has no such gap).
TEXT_GAPS = {
    "U+061C arabic letter mark (bidi)": "\u061c",
    "U+00AD soft hyphen": "\u00ad",
    "U+180E mongolian vowel separator": "\u180e",
    "U+206A inhibit symmetric swapping": "\u206a",
    "U+FFF9 interlinear annotation anchor": "\ufff9",
    "U+E0001 language tag": "\U000e0001",
    "U+E0041 tag latin capital A (ASCII smuggling)": "\U000e0041",
    "U+2028 line separator": "\u2028",
}


@pytest.mark.parametrize("char", TEXT_GAPS.values(), ids=TEXT_GAPS.keys())
def test_render_text_drops_every_format_character(char):
    report = Report(outcome=Outcome.DIAGNOSED, headline=f"exit{char}code 1")
    text = render_text(report)
    assert not unsafe_chars(text)
    assert not {c for c in text if unicodedata.category(c) in {"Zl", "Zp"}}


# ---------------------------------------------------------------- fuzzing both renderers


# A few hundred generated reports take ~10 s of CPU; on a loaded 2-core machine that can
# pass the suite's 60 s per-test timeout, so these properties get a longer one.
@pytest.mark.timeout(300)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(report=hostile_reports(), notes=st.lists(hostile, max_size=3))
def test_any_hostile_report_is_inert_in_both_renderers(report, notes):
    assert_inert_slack(render_report(report, notes=notes))
    assert_clean_text(render_text(report))
