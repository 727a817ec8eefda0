"""Code spans kept in neutralised text (`bot.render.code_spans`): commands whole, nothing formats."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.render import code_spans
from bot.slack.render import mrkdwn
from bot.teams.render import card_text
from tests.linear_time import assert_grows_linearly, repeated

Neutralise = Callable[..., str]
PLATFORMS: list[tuple[str, Neutralise]] = [
    ("slack", mrkdwn.neutralise),
    ("teams", card_text.neutralise),
]
#: Pieces a code span and its marks are made of, and what a look-alike can stand beside.
PIECES = [*"`*_~ aZ9.:/()-\n\t\u00a0\u02cd\u2217é", "__", "**", "``", "```", "a_b", "x*"]
_pieces = st.sampled_from(PIECES) | st.text(max_size=3)
#: Text with backtick pairs common: a span of pieces between backticks, among other pieces.
texts = st.lists(
    _pieces | st.lists(_pieces, min_size=1, max_size=8).map(lambda p: f"`{''.join(p)}`"),
    max_size=20,
).map("".join)
_RUN = re.compile(r"([*_~])\1*")


def _space(char: str) -> bool:
    return char in " \t\n\f\r" or unicodedata.category(char) == "Zs"


def _punctuation(char: str) -> bool:
    return unicodedata.category(char)[0] in "PS"


def opens_in_commonmark(mark: str, before: str, after: str) -> bool:
    """CommonMark 0.31's rule for a delimiter run (a text's edge counts as whitespace)."""
    left = not _space(after) and (not _punctuation(after) or _space(before) or _punctuation(before))
    right = not _space(before) and (
        not _punctuation(before) or _space(after) or _punctuation(after)
    )
    return left and (not right or _punctuation(before)) if mark == "_" else left


def opens_in_slack(before: str, after: str) -> bool:
    """Slack's, as this project models it: a mark after no letter or digit, before no space."""
    return not re.match(r"[^\W_]", before) and not _space(after)


def openers(text: str, opens: Callable[[str, str, str], bool]) -> list[str]:
    """The runs of a raw emphasis mark in `text` that could open emphasis, with context."""
    found = []
    for run in _RUN.finditer(text):
        before = text[run.start() - 1] if run.start() else " "
        after = text[run.end()] if run.end() < len(text) else " "
        if opens(run.group(1), before, after):
            found.append(text[max(run.start() - 3, 0) : run.end() + 3])
    return found


@pytest.mark.parametrize("neutralise", [n for _, n in PLATFORMS], ids=[p for p, _ in PLATFORMS])
@settings(max_examples=400, deadline=None)
@given(text=texts)
def test_no_raw_mark_left_can_open_emphasis(neutralise, text):
    """Whatever backticks the text holds: what is kept inside a pair can open nothing."""
    shown = neutralise(text, keep_code=True)
    if neutralise is card_text.neutralise:
        assert openers(shown, opens_in_commonmark) == []
    assert openers(shown, lambda _, before, after: opens_in_slack(before, after)) == []


@pytest.mark.parametrize("neutralise", [n for _, n in PLATFORMS], ids=[p for p, _ in PLATFORMS])
@settings(max_examples=300, deadline=None)
@given(text=texts)
def test_every_backtick_left_is_one_of_a_kept_pair(neutralise, text):
    shown = neutralise(text, keep_code=True)
    assert len(shown) == len(text)  # every rule replaces one character by one
    paired = "".join(code_spans._PAIR.sub("", line) for line in shown.split("\n"))
    assert "`" not in paired


_LONGEST = "`" + "a_" * 300 + "`"  # PAIR_MAX characters between the backticks
_STAR, _LOW, _TILDE, _TICK = "\u2217", "\u02cd", "\u223c", "\u02cb"


@pytest.mark.parametrize(
    ("text", "slack", "teams"),
    [
        ("`nvcr.io/acme/llama__ft:v2_`", "`nvcr.io/acme/llama__ft:v2_`", None),
        ("run `a_b*) c~ d_` now", None, f"run `a_b{_STAR}) c{_TILDE} d_` now"),
        # the opener goes; the closer alone formats nothing (Teams keeps no `*` at all)
        ("`*bold*`", f"`{_STAR}bold*`", f"`{_STAR}bold{_STAR}`"),
        ("`_x_`", f"`{_LOW}x_`", None),
        # `*` before a look-alike letter would open
        ("`a*_b c*`", f"`a{_STAR}{_LOW}b c*`", f"`a{_STAR}{_LOW}b c{_STAR}`"),
        ("*x* `y_` _z_", f"{_STAR}x{_STAR} `y_` {_LOW}z{_LOW}", None),  # outside: as before
        ("a `b` c ` d", f"a `b` c {_TICK} d", None),  # a backtick in no pair
        ("```x```", f"{_TICK}{_TICK}`x`{_TICK}{_TICK}", None),
        ("`a\nb_`", f"{_TICK}a\nb{_LOW}{_TICK}", None),  # no pair across lines
        (_LONGEST, _LONGEST, None),
        ("`a_" + _LONGEST[1:], f"{_TICK}a_" + _LONGEST[1:-2] + f"{_LOW}{_TICK}", None),  # too long
    ],
)
def test_code_spans_keep_what_opens_nothing(text, slack, teams):
    """Slack shows code spans as code; Teams as text, where `*` and `~` stay look-alikes."""
    slack = text if slack is None else slack
    assert mrkdwn.neutralise(text, keep_code=True) == slack
    assert card_text.neutralise(text, keep_code=True) == (slack if teams is None else teams)


@settings(max_examples=300, deadline=None)
@given(text=texts)
def test_teams_keeps_no_star_or_tilde_even_in_code(text):
    """Teams' own oracle (tests/bot/teams/inert.py): no strikethrough, no bold but ours."""
    shown = card_text.neutralise(text, keep_code=True)
    assert "*" not in shown
    assert "~" not in shown


def test_restore_needs_one_for_one_replacements():
    with pytest.raises(ValueError, match="one for one"):
        code_spans.restore("`a`", "`a", "\u02cb")


@pytest.mark.parametrize(
    "pieces", ["`", "`a", "a`", "`*a", "`" + "a" * 700, "`_" + " " * 50, "``x"]
)
def test_restore_is_linear(pieces):
    def work(text: str) -> str:
        return code_spans.restore(text, mrkdwn.neutralise(text), "\u02cb")

    assert_grows_linearly(work, lambda size: repeated(pieces, size), 20_000)
