"""Literal pre-checks: the text a pattern cannot match without, tried before the regex.

A case-insensitive pattern gets no literal-prefix scan from `re`, so it is tried at every
position of every text. Most lexicon patterns hold a run of plain characters every match
contains (`OOMKilled`, `back-off pulling image`); a text without that run (lowercased)
cannot match, and a substring test is far cheaper than the search. The runs are read from
the pattern by CPython's own parser, never written by hand, so a new pattern needs nothing.

Exactness: only ASCII runs are used, and only on ASCII text, where a case-insensitive match
of an ASCII character is exactly equality after `str.lower` (the non-ASCII characters `re`
also folds, such as the Kelvin sign, cannot occur). Only what every match must contain is
used: top-level runs, and groups or repeats (at least once) whose every alternative has
one; lookarounds and optional parts are not. A pattern with no such run, or a text that is
not ASCII, is always searched.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Sequence
from typing import Any

__all__ = ["Literal", "any_search", "ascii_lowered", "needs", "possible", "prepared"]

#: CPython's regex parser (`re._parser`, 3.11+); no stubs, so typed loosely.
_PARSER: Any = importlib.import_module("re._parser")
_LITERAL: Any = _PARSER.LITERAL
_BRANCH: Any = _PARSER.BRANCH
_SUBPATTERN: Any = _PARSER.SUBPATTERN
_REPEATS: Any = (_PARSER.MAX_REPEAT, _PARSER.MIN_REPEAT, _PARSER.POSSESSIVE_REPEAT)

#: A compiled pattern and the runs one of which every match contains (None: no pre-check).
Literal = tuple[re.Pattern[str], tuple[str, ...] | None]


def _runs(items: Sequence[tuple[Any, Any]]) -> list[str]:
    """Maximal runs of consecutive top-level ASCII literals: each is in every match."""
    runs: list[str] = []
    current: list[str] = []
    for op, arg in [*items, (None, None)]:
        if op is _LITERAL and chr(arg).isascii():
            current.append(chr(arg))
        elif current:
            runs.append("".join(current))
            current = []
    return runs


def _weakest(runs: tuple[str, ...]) -> int:
    return min(len(r) for r in runs)


def _of_sequence(items: list[tuple[Any, Any]]) -> tuple[str, ...] | None:
    """The strongest pre-check of a sequence: a literal run, or a required group's runs."""
    candidates: list[tuple[str, ...]] = [(run,) for run in _runs(items)]
    for op, arg in items:
        if op is _SUBPATTERN:
            inner = _of_alternatives(list(arg[-1]))
        elif op in _REPEATS and arg[0] >= 1:
            inner = _of_alternatives(list(arg[2]))
        else:
            continue
        if inner is not None:
            candidates.append(inner)
    return max(candidates, key=_weakest, default=None)


def _of_alternatives(items: list[tuple[Any, Any]]) -> tuple[str, ...] | None:
    """A `a|b|c` needs one of its alternatives' runs; each must need one, or none does."""
    if not (len(items) == 1 and items[0][0] is _BRANCH):
        return _of_sequence(items)
    found: list[str] = []
    for branch in items[0][1][1]:
        runs = _of_sequence(list(branch))
        if runs is None:
            return None
        found.extend(runs)
    return tuple(found)


def needs(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """Lowercase runs one of which every match of `pattern` contains; None when unknown."""
    runs = _of_alternatives(list(_PARSER.parse(pattern.pattern, pattern.flags)))
    return None if runs is None else tuple(dict.fromkeys(r.lower() for r in runs))


def prepared(patterns: Sequence[re.Pattern[str]]) -> tuple[Literal, ...]:
    """Each pattern with its pre-check."""
    return tuple((p, needs(p)) for p in patterns)


def possible(runs: tuple[str, ...] | None, lowered: str | None) -> bool:
    """Whether a pattern with these runs may match; `lowered` is the ASCII text lowercased."""
    return lowered is None or runs is None or any(r in lowered for r in runs)


def ascii_lowered(text: str) -> str | None:
    """`text.lower()` for ASCII text (where the pre-checks are exact), else None."""
    return text.lower() if text.isascii() else None


def any_search(patterns: tuple[Literal, ...], text: str, lowered: str | None) -> bool:
    """Whether any pattern matches `text`; `lowered` is `ascii_lowered(text)`."""
    return any(possible(runs, lowered) and p.search(text) for p, runs in patterns)
