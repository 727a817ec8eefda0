"""Parsing takes time linear in the message, whatever is typed (issue 20 §2).

Each parse is held to `MULTIPLE` times the ratio of parse time to a linear scan that a
plain incident question gets, both measured here (`tests.linear_time`). Linear inputs stay
within 4x of that question's ratio; a quadratic pattern goes far past it (the incident's
`show show show …` was 15-23x at the cap, over 50x at four times it). The figures are
printed by `python3 dev.py bench --only parse`.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bot.conversation.parse
from bench.parsing import HOSTILE_PIECES, QUESTION
from bot.conversation.parse import Expecting, parse
from bot.conversation.parse_bounds import MAX_PARSED_CHARS
from tests.linear_time import assert_linear, ratio, repeated

CAP = MAX_PARSED_CHARS
#: How far past a plain question's parse-to-scan ratio any input may go.
MULTIPLE = 8.0

#: What people actually ask: the ratio all others are held to.
QUESTIONS = [
    QUESTION,
    "[FIRING:1] RunaiWorkloadFailed workload=training-job-42 project=ml-team cluster=prod-a ",
    "thanks, what about the last 3 days? can you post the full logs pls ",
]


@pytest.fixture(scope="module")
def allowed() -> float:
    """Parse time over linear-scan time that an input may reach: MULTIPLE x a question's."""
    return MULTIPLE * ratio(parse, [repeated(q, CAP) for q in QUESTIONS])


_HOSTILE = st.builds(
    repeated,
    st.lists(st.sampled_from(HOSTILE_PIECES), min_size=1, max_size=6).map("".join),
    st.one_of(st.just(CAP), st.integers(min_value=1, max_value=CAP)),
)
_MIXED = st.lists(
    st.one_of(st.sampled_from(HOSTILE_PIECES), st.text(max_size=8)), max_size=CAP // 4
).map(lambda parts: "".join(parts)[:CAP])


@given(
    text=st.one_of(_HOSTILE, _HOSTILE.map(str.upper), _MIXED, st.text(max_size=CAP)),
    expecting=st.sampled_from([None, *Expecting]),
)
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
def test_parse_time_is_linear_up_to_the_cap(text, expecting, allowed):
    assert_linear(lambda t: parse(t, bot_user_id="UBOT", expecting=expecting), text, allowed)


@pytest.mark.parametrize(
    "pieces",
    [
        "show ",
        "show me the ",
        "<@A|",
        "a-",
        "on a" + "-a" * 120 + "_ ",
        "why did a.",
        ", a.1 ",
        "a.1",
        "why did a-1.2 fail to ",
        ", a-1.2 crashed a-",
        ", a-1.2 failed a" + "-a" * 120 + " ",
    ],
)
def test_every_pattern_is_linear_without_the_cap(pieces, allowed):
    """At 4x the cap, behind it: no pattern relies on the cap to stay linear."""
    text = repeated(pieces, 4 * CAP)
    assert_linear(lambda t: bot.conversation.parse._parse(t, "UBOT", None), text, allowed)


@pytest.mark.parametrize(
    "pieces",
    [
        "again ",
        "I'll retry ",
        "last 3 days ",
        "what about 5m ",
        "not a-1 ",
        "on a or b ",
        ", ",
        "still crashlooping ",
        "is it stuck? ",
        "CrashLoopBackOff! ",
        "stuck :( ",
        "actually it failed 3 days ",
        "sorry I meant 3d ",
    ],
)
def test_a_plain_reply_is_parsed_in_linear_time(pieces, allowed):
    """In a reply, times and re-runs count only when asked for: judged in bounded work each."""
    text = repeated(pieces, CAP)
    assert_linear(lambda t: parse(t, bot_user_id="UBOT", reply=True), text, allowed)
