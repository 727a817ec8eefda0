"""Literal pre-checks: the text a pattern cannot match without, tried before the regex.

A case-insensitive pattern gets no literal-prefix scan from `re`, so it is tried at every
position of every text. Most lexicon patterns hold a run of plain characters every match
contains (`OOMKilled`, `back-off pulling image`); a text without that run (lowercased)
cannot match, and a substring test is far cheaper than the search. The runs are read from
the pattern by CPython's own parser, never written by hand, so a new pattern needs nothing.

Exactness: only ASCII runs are used. On ASCII text a case-insensitive match of an ASCII
character is exactly equality after `str.lower`. Other text first has the few non-ASCII
characters `re` also folds onto an ASCII one (the Kelvin sign onto `k`, the long s onto `s`,
dotted and dotless I onto `i`; found by `re` itself, `_ascii_folds`) replaced by that one;
`str.lower` then turns every ASCII character into its lowercase and never breaks a run of
them (what it does to other characters can only add candidates, never drop one). Only what
every match must contain is used: top-level runs, and groups or repeats (at least once)
whose every alternative has one; lookarounds and optional parts are not. A pattern with no
such run is always searched.
"""

from __future__ import annotations

import array
import functools
import importlib
import re
import sys
from collections.abc import Sequence
from typing import Any, Generic, TypeVar

__all__ = ["Prefilter", "needs"]

#: CPython's regex parser (`re._parser`, 3.11+); no stubs, so typed loosely.
_PARSER: Any = importlib.import_module("re._parser")
_LITERAL: Any = _PARSER.LITERAL
_BRANCH: Any = _PARSER.BRANCH
_SUBPATTERN: Any = _PARSER.SUBPATTERN
_REPEATS: Any = (_PARSER.MAX_REPEAT, _PARSER.MIN_REPEAT, _PARSER.POSSESSIVE_REPEAT)

K = TypeVar("K")

_ASCII_END = 0x80
_ASCII = tuple(map(chr, range(_ASCII_END)))
_UTF32_BYTES = 4


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


@functools.cache
def _ascii_folds() -> tuple[tuple[str, str], ...]:
    """Each non-ASCII character `re` takes for an ASCII one, and that one lowercased.

    Such as the Kelvin sign and `k`, in a case-insensitive match. Asked of `re` itself, in one
    scan of every code point (~40 ms), on the first non-ASCII text.
    """
    codec = "utf-32-le" if sys.byteorder == "little" else "utf-32-be"
    typecode = next(code for code in "IL" if array.array(code).itemsize == _UTF32_BYTES)
    every = array.array(typecode, range(_ASCII_END, sys.maxunicode + 1)).tobytes()
    taken = re.findall(r"[\x00-\x7f]", every.decode(codec, "surrogatepass"), re.IGNORECASE)
    folds: list[tuple[str, str]] = []
    for char in sorted(set(taken)):
        # Case-insensitive equality is an equivalence: one lowercase ASCII character each.
        [ascii_char] = {
            a.lower() for a in _ASCII if re.fullmatch(re.escape(a), char, re.IGNORECASE)
        }
        folds.append((char, ascii_char))
    return tuple(folds)


def _as_ascii(text: str) -> str:
    """`text` with each character `re` folds onto an ASCII one replaced by it, others by `?`.

    Character for character, so every run a match of a pattern contains is still in it.
    """
    for char, ascii_char in _ascii_folds():
        text = text.replace(char, ascii_char)
    return text.encode("ascii", "replace").decode("ascii")


class Prefilter(Generic[K]):
    """Patterns (each under a key) and, per text, which of them may match it, in order.

    The runs of every pattern are tested once per text, in one pass; a pattern is kept if
    one of its runs is in the text (or it has none).
    """

    def __init__(self, entries: Sequence[tuple[K, re.Pattern[str]]]) -> None:
        self._entries = tuple(entries)
        self._always: list[int] = []
        self._by_run: dict[str, list[int]] = {}
        for index, (_, pattern) in enumerate(self._entries):
            runs = needs(pattern)
            if runs is None:
                self._always.append(index)
            for run in runs or ():
                self._by_run.setdefault(run, []).append(index)

    def candidates(self, text: str) -> list[tuple[K, re.Pattern[str]]]:
        """The entries whose pattern may match `text` (the others cannot), in their order."""
        lowered = (text if text.isascii() else _as_ascii(text)).lower()
        kept = set(self._always)
        for run, indices in self._by_run.items():
            if run in lowered:
                kept.update(indices)
        return [self._entries[i] for i in sorted(kept)]
