"""Upstream text in Teams markdown: every mark that could format, link or mention is inert."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.render import code_spans
from bot.render.clean import utf16_len
from bot.teams.render.card_text import (
    MARKDOWN_STAND_INS,
    code_runs,
    json_bytes,
    neutralise,
    plain,
    safe,
    verbatim,
)

#: (case, upstream text, what a TextBlock is given)
CASES = [
    ("mention", "<at>oncall</at>", "\u2039at\u203aoncall\u2039/at\u203a"),
    ("html", '<img src=x onerror="a()">', '\u2039img src=x onerror="a()"\u203a'),
    ("autolink", "<https://evil.example>", "\u2039https:\u2215\u2215evil.example\u203a"),
    (
        "entity",
        "&lt;at&gt; &amp; &#60; a && b",
        "\uff06lt;at\uff06gt; \uff06amp; \uff06#60; a && b",
    ),
    ("bold", "**URGENT**", "\u2217\u2217URGENT\u2217\u2217"),
    ("italics", "_now_ and *now*", "\u02cdnow\u02cd and \u2217now\u2217"),
    ("snake_case", "get_workload_logs", "get_workload_logs"),
    ("strike", "~~gone~~", "\u223c\u223cgone\u223c\u223c"),
    ("link", "[fix](https://evil.example)", "[fix\uff3d(https:\u2215\u2215evil.example)"),
    ("spaced link", "[fix] (https://e.x)", "[fix\uff3d (https:\u2215\u2215e.x)"),
    (
        "reference",
        "[fix][1]\n[1]: https://e.x",
        "[fix\uff3d[1\uff3d\n[1\uff3d: https:\u2215\u2215e.x",
    ),
    ("bare url", "see http://evil.example/x", "see http:\u2215\u2215evil.example/x"),
    ("www", "go to WWW.evil.example", "go to WWW\u2024evil.example"),
    ("mailto", "mailto:a@evil.example", "mailto\ua789a@evil.example"),
    ("table", "a | b\n--|--", "a \u2223 b\n\u2010-\u2223--"),
    ("heading", "# Title\n  ## Sub", "\uff03 Title\n\u00a0\u00a0\uff03# Sub"),
    ("list", "- a\n+ b\n* c", "\u2010 a\n\uff0b b\n\u2217 c"),
    ("numbered", "1. a\n22) b", "1\u2024 a\n22\uff09 b"),
    ("setext", "Title\n===", "Title\n\uff1d=="),
    ("quote", "> quoted", "\u203a quoted"),
    ("code block", "    indented code", "\u00a0\u00a0\u00a0\u00a0indented code"),
    ("backticks", "`rm -rf`", "\u02cbrm -rf\u02cb"),
    ("plain words", "Exit code 137 (OOMKilled) at 97%", "Exit code 137 (OOMKilled) at 97%"),
]


@pytest.mark.parametrize(("text", "shown"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_every_mark_has_a_look_alike(text, shown):
    assert neutralise(text) == shown


#: Pieces of text each rule, or a rule's neighbour, reacts to; and what a rule writes.
PIECES = [
    *"<>&;#*_~]([:/|-+=.)` \u00a0\n\t0123456789aZwWé",
    *"\u0130\u0131\u017f\u212a",  # what `re` folds onto i, s and k
    *"\u2039\u203a\uff06\u2217\u02cd\u223c\uff3d\u2215\u2024\ua789\u2223\uff03\uff09",
    *("&amp;", "&#60;", "://", "www.", "WwW.", "mailto:", "MAIL\u0130TO:", "snake_case", "[x](y)"),
    *("\n  ", "\n\u00a0", "\n1. ", "\n22) ", "\n- ", "\n#", "\n==="),
    *(f"\n{first}" for first in " \u00a0#-+=0123456789"),  # a line's first character
    *(f"\n{digit}{mark}" for digit in "0123456789" for mark in ".)"),
]


def _rule_by_rule(text: str, *, keep_code: bool) -> str:
    original = text
    for pattern, new in MARKDOWN_STAND_INS:
        text = re.sub(pattern, new, text)
    if keep_code:
        return code_spans.restore(original, text, "\u02cb", marks="_")
    return text.replace("`", "\u02cb")


def test_neutralise_is_every_rule_in_turn_on_every_pair_of_pieces():
    for text in [a + b for a in ["", *PIECES] for b in PIECES]:
        for keep_code in (False, True):
            assert neutralise(text, keep_code=keep_code) == _rule_by_rule(text, keep_code=keep_code)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(PIECES) | st.text(max_size=3), max_size=24), st.booleans())
def test_neutralise_is_every_rule_in_turn(pieces, keep_code):
    text = "".join(pieces)
    assert neutralise(text, keep_code=keep_code) == _rule_by_rule(text, keep_code=keep_code)


def test_the_bots_own_code_spans_may_be_kept():
    assert neutralise("run `runai-why help`", keep_code=True) == "run `runai-why help`"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "Check (`docker manifest inspect nvcr.io/acme/llama__ft:v2_`) *now*",
            "Check (`docker manifest inspect nvcr.io/acme/llama__ft:v2_`) \u2217now\u2217",
        ),
        ("run `a_b c_.` `<at>x</at>`", "run `a_b c_.` `\u2039at\u203ax\u2039/at\u203a`"),
        ("`0*` `0~` `ls *.txt`", "`0\u2217` `0\u223c` `ls \u2217.txt`"),  # no bold, no strike
        ("`see https://e.x`", "`see https:\u2215\u2215e.x`"),  # links stay inert inside
        ("`*bold*` and a lone ` tick", "`\u2217bold\u2217` and a lone \u02cb tick"),
        ("`_x_`", "`\u02cdx_`"),
    ],
)
def test_kept_code_spans_keep_their_marks_but_nothing_links_or_tags(text, shown):
    assert safe(text, 3000, keep_code=True) == shown


@pytest.mark.parametrize(
    ("text", "runs"),
    [
        pytest.param(
            "Check `kubectl get pods -l 'app in (x*)'` and `ls ~/.cache/*.bin` *now*",
            [
                ("Check ", False),
                ("kubectl get pods -l 'app in (x*)'", True),
                (" and ", False),
                ("ls ~/.cache/*.bin", True),
                (" \u2217now\u2217", False),
            ],
            id="a command keeps its * and ~, the text around it stays inert",
        ),
        pytest.param(
            "`docker manifest inspect nvcr.io/acme/llama__ft:v2_`",
            [("docker manifest inspect nvcr.io/acme/llama__ft:v2_", True)],
            id="a command alone",
        ),
        pytest.param(
            "<at>x</at> `a\u200b*b` [x](https://e.x) and a lone ` tick",
            [
                ("\u2039at\u203ax\u2039/at\u203a ", False),
                ("a*b", True),  # cleaned of invisible characters, nothing else
                (" [x\uff3d(https:\u2215\u2215e.x) and a lone \u02cb tick", False),
            ],
            id="no tag, link or unpaired backtick outside a span",
        ),
        pytest.param("no code at all", [], id="no span: a TextBlock will do"),
    ],
)
def test_code_runs_show_commands_as_written(text, runs):
    assert code_runs(text, 3000) == runs


@given(st.text(alphabet=st.sampled_from("ab*~_` <>\U0001f680")), st.integers(1, 40))
def test_code_runs_fit_their_limit_and_keep_every_span_in_order(text: str, limit: int):
    runs = code_runs(text, limit)
    assert utf16_len("".join(t for t, _ in runs)) <= limit
    assert all(t for t, _ in runs)
    whole = code_runs(text, 10_000)
    spans = [t for t, code in whole if code]
    shown = [t.removesuffix("\u2026") for t, code in runs if code]
    assert all(spans[i].startswith(s) for i, s in enumerate(shown))


def test_a_command_is_verbatim_on_one_line():
    assert verbatim("runai-why diagnose --workload-id 'a*b~c'\n", 600) == (
        "runai-why diagnose --workload-id 'a*b~c'"
    )
    assert verbatim("x" * 50, 10) == "x" * 9 + "\u2026"


def test_safe_cleans_cuts_and_makes_lines_paragraphs():
    assert safe("  a\u200b\x1b[2J\nb  ", 100) == "a[2J\n\nb"
    assert safe("a\nb", 100, single_line=True) == "a b"
    assert safe("x" * 50, 10) == "x" * 9 + "…"


def test_plain_text_is_one_line_and_inert():
    assert plain("Pick <at>me</at>\nnow", 100) == "Pick \u2039at\u203ame\u2039/at\u203a now"


def test_sizes_are_counted_in_utf16():
    assert json_bytes("a") == 6  # the quotes and the letter, two bytes each
    assert json_bytes("😀") == 8  # a surrogate pair
