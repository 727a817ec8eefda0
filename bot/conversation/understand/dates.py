"""Calendar dates (`2025-11-04`, `Nov 4`, `4 Nov 2025`): never a name; a lookback back to the day.

A date names a day, as `yesterday` does (`bot.conversation.words`, 2d): the lookback is the
days back to it and one more, as `since Saturday` is read (`when`). A date further back
than any lookback is said to be so (a problem), never stretched; a date ahead is no
lookback, and one without its year is the latest such day so far (`May 2` in November is
this May's). Of several dates the one the failure is said of counts (`submitted 2025-10-01
and failed on 2025-11-18`: the 18th). A numeric date whose day and month could be either
way round (`11/04/2025`) is cut from the words but names no day: which was meant is never
guessed. A bare `11/04` is left as it is (a ratio or a date; never a name either way), and
so is a date that is a name (`job 12-11-2025`, `why did train 2025-11-04 fail`) or part of
an image's tag (`acme/train:2025-10-01`). Every pattern is linear.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from bot.conversation.words import asked_for, clause_before
from diagnosis import InvalidRequest, parse_lookback

__all__ = ["Dated", "dated", "without_dates"]

_NAMES = "january february march april may june july august september october november december"
_MONTH = {m: i + 1 for i, m in enumerate(_NAMES.split())}
_MONTH |= {m[:3]: n for m, n in _MONTH.items()} | {"sept": 9}
_MONTH_WORD = "|".join(sorted(_MONTH, key=len, reverse=True))
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s++(\d{4}))?"
_TIME = r"(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d++)?)?(?: ?+(?:Z|[+-]\d{2}:?\d{2}))?(?: UTC)?)?"
_ISO = re.compile(rf"(?<![\w./-])(?<!\w:)(\d{{4}})([-/])(\d{{1,2}})\2(\d{{1,2}}){_TIME}(?![\w/-])")
#: `11/24/25`, `24-11-2025`, `24.11.2025` (dotted only with the whole year: `3.11.12`).
_NUMERIC = re.compile(
    r"(?<![\w./-])(?<!\w:)(\d{1,2})([/-]|\.(?=\d{1,2}\.\d{4}))(\d{1,2})\2(\d{4}|\d{2})"
    r"(?![\w./-])"
)
_MONTH_FIRST = re.compile(
    rf"(?<![\w.-])({_MONTH_WORD})\.?\s++{_DAY}{_YEAR}(?![\w/-])", re.IGNORECASE
)
_DAY_FIRST = re.compile(
    rf"(?<![\w./-]){_DAY}\s++(?:of\s++)?({_MONTH_WORD})\.?{_YEAR}(?![\w/-])", re.IGNORECASE
)
#: A date that is a name: after `job`/`workload`, or as what failed (`why did train X fail`).
_NAMED_AFTER = re.compile(
    r"(?:\b(?:job|workload)\s++(?:is\s++|called\s++|named\s++)?"
    r"|\b(?:why|how|when)\s++(?:did|does|do|is|was|has|have)\s++(?:the\s++)?"
    r"(?:[a-z][\w-]*+\s++)?)$",
    re.IGNORECASE,
)
_FAILS_AFTER = re.compile(
    r"\s++(?:(?:job|workload|run)\s++)?(?:fail|crash|die|oom|stuck|hang|hung|get\s++killed)",
    re.IGNORECASE,
)
_NAME_WINDOW = 40  # how far before a date the words naming it are read: bounded work
#: The words before a date that say the failure is bounded by it (`failed on`, `since`).
_BOUND = re.compile(
    r"^(?:fail|crash|die|died|dead$|broke|oom|kill|evict|preempt|stuck|pend|hang|hung|error"
    r"|restart|since)"
)
_MAX_DATES = 8  # how many dates of one message are weighed: bounded work
_MONTHS_IN_YEAR = 12
_CENTURY = 2000  # a two-digit year is this century's
_TWO_DIGITS = 100
_AHEAD = -1  # one day ahead of UTC is today east of it


@dataclass(frozen=True)
class Dated:
    """The text without its dates, the lookback the first day gives, or why it gives none."""

    rest: str
    lookback: str | None = None
    problem: str | None = None


def dated(text: str, today: date, *, asked: bool = False) -> Dated:
    """`text` without its dates, and the lookback back to the day the failure is bounded by.

    That is the first date the failure is said of (`failed on 2025-11-18`, `since Nov 10`);
    one said of something else is none (`snapshot 2025-11-01 is missing`, `we need it for
    the Dec 5 demo`, an alert's `"endsAt": "0001-01-01T00:00:00Z"`). `asked`: a plain
    reply in a thread, where a date counts only when asked for (`what about since Nov 10?`,
    not `it ran fine on Nov 4`; `words.asked_for`): the first one that is.
    """
    matches = _dates(text)
    rest = _cut(text, matches)
    days: list[tuple[re.Match[str], int]] = []
    for match in matches[:_MAX_DATES]:
        day = _read(match, today)
        back = (today - day).days if day is not None else _AHEAD - 1
        if back < _AHEAD:
            continue  # no day for certain, or one ahead
        if asked and not asked_for(text, match.start(), match.end()):
            continue
        days.append((match, max(back, 0)))
    first = days[0] if asked and days else None
    said = next((d for d in days if _bounds(text, d[0].start())), first)
    if said is None:
        return Dated(rest)  # `snapshot 2025-11-01 is missing`, `the Dec 5 demo`: no failure
    return _within_reach(rest, said[0].group(0), said[1])


def _bounds(text: str, start: int) -> bool:
    """Whether the words just before `start` say the failure is bounded by it (`failed on`)."""
    return any(_BOUND.match(w) for w in clause_before(text, start))


def _within_reach(rest: str, said: str, back: int) -> Dated:
    """The lookback into the day `back` days ago: all of it, else as much as may be read."""
    error = None
    for days in (back + 1, back):  # the longest lookback reaching into that day at all
        try:
            parse_lookback(f"{days}d")
        except InvalidRequest as invalid:
            error = error or invalid
            continue
        return Dated(rest, f"{days}d")
    return Dated(rest, problem=f"{said} is {back} days ago, and {error}")


def without_dates(text: str) -> str:
    """`text` with every date cut (pasted output: a log line's date is no lookback)."""
    return _cut(text, _dates(text))


def _dates(text: str) -> list[re.Match[str]]:
    """Every date of `text`, left to right, none inside another."""
    found = sorted(
        (m for p in (_ISO, _NUMERIC, _MONTH_FIRST, _DAY_FIRST) for m in p.finditer(text)),
        key=lambda m: (m.start(), -m.end()),
    )
    kept: list[re.Match[str]] = []
    for match in found:
        may = match.re is _DAY_FIRST and match.group(2).lower() == "may"
        if may and not match.group(3):
            continue  # `epoch 3 may be it`: "may" is a month only with its year
        if kept and match.start() < kept[-1].end():
            continue
        if not _named(text, match):
            kept.append(match)
    return kept


def _named(text: str, match: re.Match[str]) -> bool:
    """Whether the date is a name: `job 12-11-2025`, `why did train 2025-11-04 fail`."""
    before = text[max(0, match.start() - _NAME_WINDOW) : match.start()]
    said = _NAMED_AFTER.search(before)
    if said is None:
        return False
    return said.group(0).lower().startswith(("job", "workload")) or bool(
        _FAILS_AFTER.match(text, match.end())
    )


def _cut(text: str, matches: list[re.Match[str]]) -> str:
    kept, at = [], 0
    for match in matches:
        kept.append(text[at : match.start()])
        at = match.end()
    return " ".join([*kept, text[at:]]) if matches else text


def _read(match: re.Match[str], today: date) -> date | None:
    """The day `match` names, or None when it names none for certain."""
    if match.re is _ISO:
        return _day(int(match.group(1)), int(match.group(3)), int(match.group(4)), today)
    if match.re is _NUMERIC:
        first, second, year = int(match.group(1)), int(match.group(3)), int(match.group(4))
        if (first <= _MONTHS_IN_YEAR) == (second <= _MONTHS_IN_YEAR):
            return None  # `11/04/2025`: 11 April or 4 November
        on, month = (second, first) if first <= _MONTHS_IN_YEAR else (first, second)
        return _day(year + (_CENTURY if year < _TWO_DIGITS else 0), month, on, today)
    named, number = (1, 2) if match.re is _MONTH_FIRST else (2, 1)
    year_said = match.group(3)
    month_of = _MONTH[match.group(named).lower()]
    return _day(int(year_said) if year_said else None, month_of, int(match.group(number)), today)


def _day(year: int | None, month: int, day: int, today: date) -> date | None:
    """The date, in the year given or (without one) the latest such day so far.

    `Dec 28` on 3 January is last year's, `May 2` on 20 November this year's, `Nov 21` on
    20 November today east of UTC, and `Nov 22` then last year's (too far back, so said).
    """
    if year is not None and year < _CENTURY:
        return None  # `0001-01-01`: an unset time, never a day to look back to
    years = (year,) if year is not None else (today.year, today.year - 1)
    for each in years:
        try:
            named = date(each, month, day)
        except ValueError:  # `Feb 30`, `2025-13-01`
            continue
        if year is not None or (today - named).days >= _AHEAD:
            return named
    return None
