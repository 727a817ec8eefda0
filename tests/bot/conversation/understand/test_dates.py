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
    ("Nov 22", None, True),  # ahead, so last year's: said to be too far back, never ahead
    ("May 2", None, True),  # this May's (the latest so far), not next May's
    ("Apr 10", None, True),
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


def test_a_day_without_its_year_is_the_latest_one_so_far():
    assert dated("since Dec 28", date(2026, 1, 3)).lookback == "7d"
    assert dated("since May 2", date(2026, 5, 20)).lookback == "19d"
    far = dated("since May 2", TODAY).problem  # 20 November: this May, 202 days ago
    assert far is not None
    assert far.startswith("May 2 is 202 days ago")


@pytest.mark.parametrize(
    ("said", "lookback"),
    [
        ("train-bert was submitted 2025-10-01 and failed on 2025-11-18", "3d"),
        ("it ran fine on Nov 4 but has been crashing since Nov 17", "4d"),
        ("train-bert failed on Nov 18, resubmitted Nov 19", "3d"),
        ("it ran fine on Nov 4", None),  # a date said of no failure is none
        ("dataset snapshot 2025-11-01 is missing", None),
        ("Runbook last updated 2025-06-01", None),
        ("why did train-bert fail on prod-a? we need it for the Dec 5 demo", None),
        ("eval-7 must be done by Nov 28", None),
        ("deadline is Dec 1", None),
        ('"endsAt": "0001-01-01T00:00:00Z"', None),
        ("train-bert failed, endsAt 0001-01-01T00:00:00Z", None),  # an unset time
    ],
)
def test_the_date_the_failure_is_said_of_counts(said, lookback):
    assert dated(said, TODAY).lookback == lookback
    assert dated(said, TODAY).problem is None


@pytest.mark.parametrize(
    "said",
    [
        "why did job 12-11-2025 fail",  # after `job`: its name
        "workload called 2025-11-04",
        "why did train 2025-11-04 fail",  # what failed
        "ImagePullBackOff for acme/train:2025-10-01",  # an image's tag
        "image acme/train:2025-11-18",
        "pytorch:11-04-2025",
    ],
)
def test_a_date_that_is_a_name_or_a_tag_is_left_as_it_is(said):
    assert dated(said, TODAY) == Dated(said)


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
    [
        ("it ran fine on Nov 4", None),
        ("what about Nov 4?", "17d"),
        ("check 2025-11-04", "17d"),
        ("it ran fine on Nov 4, what about since Nov 10?", "11d"),  # the one asked for
        ("since 2025-11-01 please", "20d"),
        ("sorry, I meant Nov 18", "3d"),
        ("actually it failed on Nov 18", "3d"),  # a correction
        ("no, it was 2025-11-18", "3d"),
        ("actually it ran fine on Nov 4", None),
    ],
)
def test_in_a_plain_reply_a_date_counts_only_when_asked_for(said, lookback):
    got = dated(said, TODAY, asked=True)
    assert got.lookback == lookback
    assert "4" not in got.rest
