"""Dates as people write them: never a name, a lookback back to the day, or why there is none."""

from __future__ import annotations

from datetime import date

import pytest

from bot.conversation.understand.dates import Dated, dated, without_dates

TODAY = date(2025, 11, 20)

#: (said, lookback, whether it is said to be too far back); every date is cut from the text.
ROWS = [
    ("2025-11-04", "17d", False),
    ("2025-11-04T10:32:00Z", "17d", False),
    ("2025-11-04 10:32:00 +0000 UTC", "17d", False),
    ("2025/11/04", "17d", False),
    ("Nov 4", "17d", False),
    ("nov 4th", "17d", False),
    ("Nov. 4", "17d", False),
    ("4 Nov 2025", "17d", False),
    ("4th of November", "17d", False),
    ("November 4, 2025", "17d", False),
    ("11/04/2025", None, False),  # 11 April or 4 November: no day is guessed
    ("04.11.2025", None, False),
    ("11/18/2025", "3d", False),  # 18 is no month: 18 November
    ("18/11/2025", "3d", False),
    ("Nov 20", "1d", False),  # today
    ("Nov 21", "1d", False),  # today, east of UTC
    ("Nov 22", None, False),  # ahead: no lookback, and not last year's
    ("Oct 21", "30d", False),  # as far as a lookback reaches
    ("Oct 20", None, True),
    ("2024-01-01", None, True),
    ("Feb 30", None, False),
]


@pytest.mark.parametrize(("said", "lookback", "too_far"), ROWS)
def test_a_date_is_cut_and_gives_the_lookback_back_to_its_day(said, lookback, too_far):
    got = dated(f"why did train-bert fail on {said} in nlp", TODAY)
    assert said not in got.rest
    assert got.rest.split() == ["why", "did", "train-bert", "fail", "on", "in", "nlp"]
    assert got.lookback == lookback
    assert (got.problem is not None) == too_far
    if too_far:
        assert got.problem is not None
        assert got.problem.startswith(f"{said} is ")
        assert "at most 30d" in got.problem


def test_last_years_day_is_the_nearest_one():
    assert dated("since Dec 28", date(2026, 1, 3)).lookback == "7d"


@pytest.mark.parametrize(
    "said",
    [
        "eval-2025-11-04",  # a name with a date inside is a name
        "torch-2.3",
        "python 3.11",
        "3.11.12",  # dotted with a short year: a version, no date
        "11/04",  # a ratio or a date: left as it is (never a name)
        "only 1/4 workers came up",
        "epoch 3 may be it",  # `may` is a month only with its year
    ],
)
def test_what_is_no_date_is_left_as_it_is(said):
    assert dated(said, TODAY) == Dated(said)
    assert without_dates(said) == said


@pytest.mark.parametrize(
    ("said", "lookback"),
    [("it ran fine on Nov 4", None), ("what about Nov 4?", "17d"), ("check 2025-11-04", "17d")],
)
def test_in_a_plain_reply_a_date_counts_only_when_asked_for(said, lookback):
    got = dated(said, TODAY, asked=True)
    assert got.lookback == lookback
    assert "4" not in got.rest
