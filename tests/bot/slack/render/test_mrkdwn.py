"""Rendering a long untrusted text looks only at its head, and gives what the whole text gives."""

from __future__ import annotations

import re
from collections.abc import Callable
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.render import code_spans
from bot.render.clean import truncate
from bot.slack.render import mrkdwn as slack_text
from bot.slack.render.mrkdwn import code, pre, safe
from tests.linear_time import assert_linear, ratio, repeated

# What can change at a cut: marks whose meaning depends on the next character, escapes that
# expand, whitespace and newlines that strip() and one_line() drop, characters clean() drops,
# line-start quotes, surrogate pairs (two units) and lone surrogates.
PIECES = [
    "*", "_", "~", "`", ">", " >", "\n>", "&", "<", ">", "&amp;", " ", "  ", "\n", "\r", "\r\n",
    "\t", "\u2028", "\u200b", "\u202e", "\x00", "\ud83d", "😀", "a", "bc", "x_y", "*b*",
]  # fmt: skip
texts = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=4)), max_size=80).map("".join)
RENDERERS: list[tuple[str, Callable[[str, int], str]]] = [
    ("safe", safe),
    ("single-line", lambda t, n: safe(t, n, single_line=True)),
    ("plain", lambda t, n: safe(t, n, plain=True)),
    ("keep-code", lambda t, n: safe(t, n, keep_code=True)),
    ("single-line-plain", lambda t, n: safe(t, n, single_line=True, plain=True)),
    ("code", code),
    ("pre", pre),
]


@pytest.mark.parametrize("render", [r for _, r in RENDERERS], ids=[n for n, _ in RENDERERS])
@settings(max_examples=150, deadline=None)
@given(text=texts, limit=st.integers(0, 40))
def test_a_long_text_renders_as_if_rendered_whole(render, text, limit):
    """The head-only shortcut (taken whenever the text is long) never changes the result."""
    with mock.patch.object(slack_text, "_HEAD_SLACK", 0):
        shortcut = render(text, limit)
    with mock.patch.object(slack_text, "_HEAD_SLACK", 10**9):
        whole = render(text, limit)
    assert shortcut == whole


@settings(max_examples=300, deadline=None)
@given(text=texts.map(lambda t: t.replace("a", "`")), limit=st.integers(0, 40))
@example(text="\u200b`&&`zzz", limit=2)  # the head ends before the pair closes
@example(text="\u200b\u200ba`&&`zzz", limit=3)
def test_a_long_text_with_code_spans_renders_as_if_rendered_whole(text, limit):
    """Whether a backtick opens a pair depends on what follows it, up to PAIR_MAX + 1 later."""
    short_pairs = re.compile(r"`[^`\n]{1,3}`")
    with (
        mock.patch.object(code_spans, "PAIR_MAX", 3),
        mock.patch.object(code_spans, "_PAIR", short_pairs),
    ):
        with mock.patch.object(slack_text, "_HEAD_SLACK", 0):
            shortcut = safe(text, limit, keep_code=True)
        with mock.patch.object(slack_text, "_HEAD_SLACK", 10**9):
            whole = safe(text, limit, keep_code=True)
    assert shortcut == whole


@pytest.mark.parametrize("line", ["`a_b` " * 200_000, "x `" + "a_" * 500_000])
def test_a_megabyte_line_with_code_spans_is_cut_from_its_head(line):
    assert_linear(lambda t: safe(t, 300, keep_code=True), line, 1.0)


def test_a_megabyte_line_is_cut_from_its_head():
    line = "x <!channel> *y* " * 60_000
    cut = safe(line, 30)
    assert cut == "x &lt;!channel&gt; \u2217y\u2217 x &lt;…"
    assert cut == truncate(slack_text.neutralise(line).translate(slack_text._ESCAPES), 30)


def test_a_head_that_renders_short_falls_back_to_the_whole_text():
    """Zero-width characters clean() drops: the head renders to nothing, the rest still counts."""
    text = "\u200b" * 500 + "visible"
    assert safe(text, 10) == "visible"
    assert code(text, 12) == "`visible`"
    assert pre("\n" * 500 + "log", 20) == "```log```"


def truncate_by_definition(text: str, limit: int) -> str:
    """The longest head within `limit - 1` units plus "…", never ending in half an escape."""
    if slack_text.slack_len(text) <= limit:
        return text
    head = ""
    for ch in text:
        if slack_text.slack_len(head + ch) > limit - 1:
            break
        head += ch
    amp = head.rfind("&")
    if amp != -1 and amp >= len(head) - 4 and ";" not in head[amp:]:
        head = head[:amp]
    return head + "…"


@settings(max_examples=300, deadline=None)
@given(text=texts)
def test_escaping_is_its_table(text):
    assert slack_text._escaped(text) == text.translate(slack_text._ESCAPES)


@settings(max_examples=300, deadline=None)
@given(text=texts.map(slack_text.escape), limit=st.integers(-2, 60))
def test_truncate_is_its_definition(text, limit):
    assert truncate(text, limit) == truncate_by_definition(text, limit)


@settings(max_examples=300, deadline=None)
@given(text=texts, limit=st.integers(-2, 60))
def test_truncate_is_its_definition_on_any_text(text, limit):  # lone surrogates count one unit
    assert truncate(text, limit) == truncate_by_definition(text, limit)


MARK_STAND_INS = {"*": "\u2217", "_": "\u02cd", "~": "\u223c"}
#: Around a mark: letters, digits, `_`, look-alikes (one of them a letter), line starts.
MARK_PIECES = [*"*_~`> \n\taZ9\u00e9\u02cd\u2217\u223c\u00a0", "__", "*_*", "_~", "\n >"]


def neutralise_by_definition(text: str, *, keep_code: bool = False) -> str:
    """Every mark that is not between letters or digits at once, then quotes and backticks."""
    marks = r"(?<![^\W_])[*_~]|[*_~](?![^\W_])"
    original = text
    text = re.sub(marks, lambda m: MARK_STAND_INS[m.group()], text)
    text = re.sub(r"^(\s*)>", lambda m: f"{m.group(1)}\u203a", text, flags=re.MULTILINE)
    return (
        code_spans.restore(original, text, "\u02cb") if keep_code else text.replace("`", "\u02cb")
    )


def test_neutralise_is_its_definition_on_every_three_pieces():
    for a in MARK_PIECES:
        for b in MARK_PIECES:
            for c in ["", *MARK_PIECES]:
                text = a + b + c
                assert slack_text.neutralise(text) == neutralise_by_definition(text)


@settings(max_examples=300, deadline=None)
@given(
    text=st.lists(st.sampled_from(MARK_PIECES) | st.text(max_size=3), max_size=30).map("".join),
    keep_code=st.booleans(),
)
def test_neutralise_is_its_definition(text, keep_code):
    assert slack_text.neutralise(text, keep_code=keep_code) == neutralise_by_definition(
        text, keep_code=keep_code
    )


@pytest.mark.parametrize("pieces", ["\n", "\n \n", " \t\n", "\r\n"])
def test_blank_lines_before_a_quote_mark_are_read_once(pieces):
    r"""`^\s*>` read a run of blank lines again from each line start: 0.6 s for 8,000 of them."""
    render = lambda text: safe(text, 3000)  # noqa: E731
    allowed = 8 * ratio(render, [repeated("a log line -> with a mark\n", 8_000)])
    assert_linear(render, repeated(pieces, 8_000) + "a>", allowed)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "Check (`docker manifest inspect nvcr.io/acme/llama__ft:v2_`) *now*",
            "Check (`docker manifest inspect nvcr.io/acme/llama__ft:v2_`) \u2217now\u2217",
        ),
        ("run `a_b~ c*.` & `x<y`", "run `a_b~ c*.` &amp; `x&lt;y`"),
        ("`*bold*` and a lone ` tick", "`\u2217bold*` and a lone \u02cb tick"),
    ],
)
def test_kept_code_spans_are_shown_as_written(text, shown):
    assert safe(text, 3000, keep_code=True) == shown
