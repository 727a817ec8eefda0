"""Values inside values: a rule that rejects a value looks inside it, however deep the nesting.

`config=url?password=…` nests a secret inside a value that is not one. A rule looks inside a
rejected value a bounded number of times (a hostile `key=key=key=…` would otherwise cost a
scan to its end from every `=`); past that bound it masks the rest of the text, so what lies
deeper never comes out visible, and redaction stays linear.
"""

from __future__ import annotations

from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diagnosis import redact
from diagnosis.kube.pod_logs import LOG_BYTES
from diagnosis.redact import _LOOKS_INSIDE, MARKER, Redactor
from tests.linear_time import assert_grows_linearly, repeated

#: One more nesting level than the redactor looks inside.
DEEP = _LOOKS_INSIDE + 1


def visible(out: str) -> str:
    return MARKER.sub("\0", out)


#: Secrets nested one level past the look-inside budget; each leaked before it was fixed.
PAST_THE_BUDGET = [
    pytest.param("config=" + "key=" * DEEP + "password=hunter2zzsecret", "hunter2zz", id="key-chain"),
    pytest.param("x " + "key=" * DEEP + "--api-key hunter2zz", "hunter2zz", id="spaced-flag-after-chain"),
    pytest.param("x " + "key=" * DEEP + 'password="hunter2 zz9"', "zz9", id="quoted-after-chain"),
    pytest.param("password " * (DEEP + 1) + "hunter2zz1", "hunter2zz1", id="password-word-chain"),
    pytest.param("key=" * DEEP + "[REDACTED:jwt]@password=hunter2zz", "hunter2zz", id="marker-then-secret"),
    pytest.param("key-" * DEEP + "password-abcdefghij0123456789klmnopqrstuv", "abcdefghij", id="blob-chain"),
    pytest.param("token=*** x(" * DEEP + "token=correct horse battery", "horse", id="passphrase-after-placeholders"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "secret"), PAST_THE_BUDGET)
def test_a_secret_nested_past_the_budget_is_masked(text: str, secret: str):
    redactor = Redactor()
    out = redactor.clean(text)
    assert secret not in visible(out), out
    assert redactor.total >= 1


@pytest.mark.parametrize(("text", "secret"), PAST_THE_BUDGET)
def test_cleaning_a_deep_nest_twice_changes_nothing(text: str, secret: str):
    once = Redactor().clean(text)
    again = Redactor()
    assert again.clean(once) == once
    assert again.total == 0


BLOB = "hunter2zz0123456789abcdefghijklm"  # lower case: a secret after `password`, not `key`
SHAPES = [
    pytest.param(lambda n: "config=" + "key=" * n + "password=hunter2zzsecret", id="key-chain"),
    pytest.param(lambda n: "password " * n + "hunter2zz1", id="password-word-chain"),
    pytest.param(lambda n: "key-" * n + "password-" + BLOB, id="blob-chain"),
]


@pytest.mark.parametrize("shape", SHAPES)
def test_no_depth_leaves_the_secret_visible(shape):
    for depth in range(1, 3 * DEEP):
        out = Redactor().clean(shape(depth))
        assert "hunter2zz" not in visible(out), (depth, out)


#: Pieces of text around values: keys, separators, quotes, prose.
PIECES = [
    "key=", "config=", "password=", "--api-key ", "key-", "password ", "token: ", "secret ",
    "name=a value=", "machine h password ", "Authorization: ", "cookie: ", "https://u:", "@db/",
    '"', "'", '\\"', " ", "\n", "&", "?", ",", ";", "(", ")", "[REDACTED:jwt]",
]  # fmt: skip
#: What nests when repeated, and what may then name a secret.
NESTS = ["key=", "key-", "password ", "token: ", "name=a value=", "secret ", "key=[REDACTED:jwt]@"]
KEYS = ["password=", "--api-key ", 'password="', "password ", "password-", "https://u:", "&token="]
SECRET = "hunter2q9zz0123456789abcdefghijkl"
around = st.lists(st.sampled_from(PIECES), max_size=8).map("".join)


@settings(max_examples=300, deadline=None)
@given(
    around,
    st.lists(st.sampled_from(NESTS), min_size=1, max_size=2).map("".join),
    st.integers(1, 3 * DEEP),
    st.sampled_from(KEYS),
    around,
)
def test_what_unbounded_looks_would_mask_stays_masked(before, nest, depth, key, after):
    """The bound costs no secret: whatever looking inside without one masks stays masked."""
    text = before + nest * depth + key + SECRET + after
    with patch.object(redact, "_LOOKS_INSIDE", len(text) + 1):
        unbounded = visible(Redactor().clean(text))
    if SECRET not in unbounded:
        assert SECRET not in visible(Redactor().clean(text)), text


def test_within_the_budget_only_the_secret_is_masked():
    text = "config=" + "key=" * _LOOKS_INSIDE + "password=hunter2zzsecret, then more"
    assert Redactor().clean(text) == text.replace("hunter2zzsecret", "[REDACTED:secret-value]")


def test_past_the_budget_the_rest_of_the_text_is_masked():
    """Failing closed: the rest is masked unread, once; trailing whitespace stays."""
    nest = "config=" + "key=" * DEEP
    redactor = Redactor()
    out = redactor.clean(nest + "password=hunter2zzsecret, then more\nnext line\n")
    assert out == nest + "[REDACTED:secret-value]\n"
    assert redactor.counts == {"secret-value": 1}


def test_a_whole_read_of_nesting_is_redacted_in_linear_time():
    """A 64 KB `key=key=…` line with a password at its end: masked, in linear time."""

    def line(size: int) -> str:
        return "ERROR config=" + repeated("key=", size) + "password=hunter2zzsecret"

    assert_grows_linearly(Redactor().clean, line, LOG_BYTES // 4)
    assert "hunter2zz" not in visible(Redactor().clean(line(LOG_BYTES)))
