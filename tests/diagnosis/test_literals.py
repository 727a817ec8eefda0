"""The literal pre-checks never skip a text a pattern matches: read from patterns, exact on ASCII."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.app.demo.scenarios import bundled_paths
from diagnosis.lexicon import EXIT_CODE_PATTERNS, PULL_SUBCAUSES, SIGNAL_PATTERNS
from diagnosis.literals import Prefilter, needs

LEXICON = [
    *(p for patterns in SIGNAL_PATTERNS.values() for p in patterns),
    *EXIT_CODE_PATTERNS,
    *(p for _, p in PULL_SUBCAUSES),
]
PREFILTER = Prefilter([(i, p) for i, p in enumerate(LEXICON)])

NEEDS = [
    # pattern, the runs one of which every match contains (None: always searched)
    (r"\bOOMKilled\b", ("oomkilled",)),
    (r"back-off pulling image", ("back-off pulling image",)),
    (r"\bkilled process \d+ .*out of memory", ("killed process ",)),  # the longest run
    (r"a+b", ("b",)),  # a repeat's item is not a run of the sequence around it
    (r"(?:ab)+", ("ab",)),  # ... but a repeat at least once needs its item
    (r"(?:ab)*c", ("c",)),
    (r"(?:abc)?d", ("d",)),
    (r"\b(max|allowed) (run ?time|duration)\b", ("time", "duration")),
    (r"(stopped|deleted) by", ("stopped", "deleted")),
    (r"abc|\d+", None),  # one alternative needs nothing
    (r"\d+", None),
    (r"(?<!not )preempted", ("preempted",)),  # a lookbehind is not part of the match
    (r"(?=secret)\w+", None),
    (r"caf\u00e9 ok", ("caf",)),  # only ASCII runs
]


@pytest.mark.parametrize(("pattern", "runs"), NEEDS)
def test_needs_reads_the_runs_every_match_contains(pattern, runs):
    assert needs(re.compile(pattern, re.IGNORECASE)) == runs


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


CORPUS = sorted(
    {s for path in bundled_paths() for s in _strings(json.loads(path.read_text("utf-8")))}
)


def _agrees(text: str) -> None:
    kept = PREFILTER.candidates(text)
    assert kept == sorted(kept, key=lambda entry: entry[0])  # in their order
    matching = [(i, p) for i, p in enumerate(LEXICON) if p.search(text)]
    assert [e for e in kept if e in matching] == matching, text  # nothing that matches is left out


def test_the_pre_checks_agree_with_the_patterns_on_every_scenario_text():
    matched = 0
    for text in CORPUS:
        for variant in (text, text.upper(), text.swapcase()):
            _agrees(variant)
        matched += any(p.search(text) for p in LEXICON)
    assert matched > 50  # the corpus exercises the patterns, not only misses


def test_non_ascii_text_is_searched_for_what_re_folds_onto_ascii():
    kelvin = "Container OOM\u212ailled"  # the Kelvin sign folds to k in a case-insensitive match
    [oom] = [p for p in LEXICON if p.pattern == r"\bOOMKilled\b"]
    assert oom.search(kelvin)
    assert Prefilter([("oom", oom)]).candidates(kelvin) == [("oom", oom)]
    assert Prefilter([("oom", oom)]).candidates("Container OOMKille") == []
    assert Prefilter([("oom", oom)]).candidates("Container \u00f6\u00f6mkilled") == []


EVERY_CHARACTER = "".join(map(chr, range(sys.maxunicode + 1)))


def test_every_character_re_takes_for_an_ascii_one_is_a_candidate():
    for ascii_char in map(chr, range(0x80)):
        pattern = re.compile(re.escape(ascii_char), re.IGNORECASE)
        prefilter = Prefilter([("one", pattern)])
        for char in set(pattern.findall(EVERY_CHARACTER)):
            assert prefilter.candidates(f"\u00e9{char}") == [("one", pattern)], hex(ord(char))


WORDS = sorted({w for p in LEXICON for w in re.findall(r"[A-Za-z][A-Za-z.:/ -]{2,}", p.pattern)})


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(WORDS) | st.text(alphabet=" 0123456789/.:-\"'\nxyz", max_size=6),
        max_size=12,
    ),
    st.booleans(),
)
def test_the_pre_checks_agree_with_the_patterns_on_any_text(parts, shout):
    text = " ".join(parts)
    _agrees(text.upper() if shout else text)


#: What `re` folds onto an ASCII letter in a case-insensitive match, for some of those letters.
FOLDS = {"k": "\u212a", "s": "\u017f", "i": "\u0131", "I": "\u0130"}


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(WORDS) | st.text(max_size=6), max_size=12),
    st.sets(st.sampled_from(sorted(FOLDS))),
    st.booleans(),
)
def test_the_pre_checks_agree_with_the_patterns_on_non_ascii_text(parts, folded, shout):
    text = " ".join(parts).upper() if shout else " ".join(parts)
    for letter in folded:
        text = text.replace(letter, FOLDS[letter])
    _agrees(f"{text} \u00e9")


def test_a_pattern_without_a_run_is_always_a_candidate():
    digits, word = re.compile(r"\d+"), re.compile(r"exit code", re.IGNORECASE)
    prefilter = Prefilter([("digits", digits), ("word", word)])
    assert prefilter.candidates("no numbers here") == [("digits", digits)]
    assert prefilter.candidates("EXIT CODE 1") == [("digits", digits), ("word", word)]
