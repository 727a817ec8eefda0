"""Untrusted JSON is measured before it is parsed: nested too deep is refused, never a crash."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.web.body import MAX_JSON_DEPTH, Refused, load_json, nesting

#: A mebibyte, the Slack body cap: every shape of it is measured in a bounded number of passes.
MIB = 1 << 20


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("1", 0),
        ('"[[[{{{"', 0),  # brackets in a string nest nothing
        ('"\\\\"', 0),  # an escaped backslash ends its string
        ('["\\"]]]"]', 1),  # an escaped quote does not
        ("[]", 1),
        ("{}", 1),
        ('{"a": [1, {"b": []}], "c": {}}', 4),
        ("[[], [[]], []]", 3),
        ('{"a": [{"b": [{"c": "]]]"}]}]}', 5),
        ("[}", 1),  # kinds are not matched here; json.loads refuses it
        ("[[[", None),  # unbalanced: not JSON, whatever its depth
        ("][", None),
        ('{"a": 1', None),
        ('"unterminated [[[', None),
        ("[" * 65 + "]" * 65, MAX_JSON_DEPTH + 1),  # counted only up to one past the limit
        ("[" * 500 + "]" * 500, MAX_JSON_DEPTH + 1),
    ],
)
def test_nesting(text: str, depth: int | None):
    assert nesting(text, MAX_JSON_DEPTH) == depth


@pytest.mark.parametrize(
    ("document", "reason"),
    [
        (b"\xff{}", "is not UTF-8"),
        ("{not json", "is not JSON"),
        ("[}", "is not JSON"),
        ("[" * 64 + "]" * 65, "is not JSON"),
        ("[" * 100_000, "nests deeper than 64 levels"),  # unpaired, but deep before that
        ("[" * 100_000 + "]" * 100_000, f"nests deeper than {MAX_JSON_DEPTH} levels"),
        ("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), "nests deeper than 64 levels"),
        ('{"a": ' * 40_000 + "1" + "}" * 40_000, "nests deeper than 64 levels"),
    ],
    ids=[
        "not-utf8",
        "garbage",
        "mismatched",
        "unbalanced",
        "unbalanced-deep",
        "deep",
        "one-too-deep",
        "objects",
    ],
)
def test_load_json_refuses_with_a_reason_and_no_content(document: str | bytes, reason: str):
    with pytest.raises(Refused) as refused:
        load_json(document)
    assert (refused.value.status, refused.value.reason) == (400, reason)


def test_load_json_reads_up_to_the_limit():
    at_limit = "[" * MAX_JSON_DEPTH + '"x"' + "]" * MAX_JSON_DEPTH
    value: Any = load_json(at_limit.encode())
    for _ in range(MAX_JSON_DEPTH):
        value = value[0]
    assert value == "x"


@pytest.mark.parametrize(
    "document",
    [
        "[" + ",".join(["[]"] * (MIB // 3 - 1)) + "]",  # a million brackets, one level
        "[" + ",".join(["[" * 63 + "]" * 63] * (MIB // 128)) + "]",  # every pass has work
        "[" * (MIB // 2) + "]" * (MIB // 2),
        ("[" + "[" * 63 + "]" * 63 + ",") * (MIB // 130) + "0" + "]" * (MIB // 130),
        json.dumps(["[{" * (MIB // 8), "\\" * (MIB // 4)]),
    ],
    ids=["wide", "deep-everywhere", "deepest", "deep-with-no-long-run", "strings"],
)
def test_a_mebibyte_of_any_shape_is_measured(document: str):
    """At most `MAX_JSON_DEPTH + 1` passes of bytes operations: linear, however it nests."""
    depth = nesting(document, MAX_JSON_DEPTH)
    assert depth is not None
    assert 1 <= depth <= MAX_JSON_DEPTH + 1


#: Strings full of what could fool a measure: brackets, quotes, backslashes, non-ASCII.
_TEXT = st.text(alphabet='[]{}"\\ ab,:\n\u00e9')
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=30,
)


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


@given(_VALUES, st.integers(min_value=0, max_value=8))
def test_the_measure_is_the_depth_and_the_limit_is_exact(value: object, limit: int):
    document = json.dumps(value, ensure_ascii=False)
    assert nesting(document, 100) == _depth(value)
    if _depth(value) <= limit:
        assert load_json(document, max_depth=limit) == value
    else:
        with pytest.raises(Refused, match="nests deeper"):
            load_json(document, max_depth=limit)
