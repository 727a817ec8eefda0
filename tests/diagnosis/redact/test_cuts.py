"""Cutting long quoted text: on word boundaries, never through a redaction marker."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diagnosis.redact import MARKER, clip, shorten

WORDS = [
    "failed",
    "to",
    "pull",
    "image",
    "registry",
    "manifest",
    "unknown",
    "retrying",
    "after",
    "backoff",
]
MARK = "[REDACTED:github-token]"


def whole_words(out: str, source: str) -> None:
    words = set(" ".join(source.split()).split())
    for part in out.replace(" … ", " ").removeprefix("… ").removesuffix(" …").split():
        assert part in words, part


CASES = [
    pytest.param(" ".join(WORDS * 10), 60, id="words"),
    pytest.param(" ".join([*WORDS * 3, MARK, *WORDS * 3]), 40, id="marker-in-the-middle"),
    pytest.param(" ".join([*WORDS, MARK, *WORDS * 5]), 80, id="marker-at-the-head-cut"),
    pytest.param(" ".join([*WORDS * 5, MARK, *WORDS]), 80, id="marker-at-the-tail-cut"),
    pytest.param("\n".join(WORDS * 8), 50, id="newlines-collapse"),
]


@pytest.mark.parametrize(("text", "limit"), CASES)
def test_shorten_cuts_between_words(text, limit):
    out = shorten(text, limit)
    assert len(out) <= limit
    assert " … " in out
    whole_words(out, text)


@pytest.mark.parametrize(("text", "limit"), CASES)
def test_clip_cuts_between_words_around_the_anchor(text, limit):
    at = text.find("manifest", len(text) // 2)
    out = clip(text, at, limit)
    assert len(out) <= limit + 4
    assert "manifest" in out
    whole_words(out, text)


def test_short_text_is_only_flattened():
    assert shorten("a\n  b", 10) == "a b"
    assert clip("a\n  b", 2, 10) == "a b"


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from([*WORDS, MARK, "[REDACTED:secret-value]"]), min_size=1, max_size=80),
    st.integers(20, 120),
    st.data(),
)
def test_no_cut_ever_splits_a_marker(parts, limit, data):
    text = " ".join(parts)
    at = data.draw(st.integers(0, len(text)))
    for out in (shorten(text, limit), clip(text, at, limit)):
        leftover = MARKER.sub("", out)
        assert "[REDACTED" not in leftover
        assert "REDACTED:" not in leftover
        assert not any(p.endswith("]") and p not in WORDS for p in leftover.split())
