"""Where a memory series has no samples: a step over three times the median step is a gap."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.render.gaps import GAP_FACTOR, runs
from diagnosis import MemorySample

START = datetime(2025, 11, 4, tzinfo=UTC)


def series(*minutes: float) -> tuple[MemorySample, ...]:
    return tuple(
        MemorySample(at=START + timedelta(minutes=m), usage_bytes=i) for i, m in enumerate(minutes)
    )


@pytest.mark.parametrize(
    ("minutes", "lengths"),
    [
        pytest.param((), [], id="empty"),
        pytest.param((0,), [1], id="one sample"),
        pytest.param((0, 720), [2], id="two samples: no usual step to compare with"),
        pytest.param((0, 10, 20, 30), [4], id="steady"),
        pytest.param((0, 10, 30, 40), [4], id="one scrape lost is not a gap"),
        pytest.param((0, 10, 40, 50), [4], id="exactly three steps is not a gap"),
        pytest.param((0, 10, 41, 51), [2, 2], id="just over three steps is"),
        pytest.param((0, 10, 20, 740, 750, 760), [3, 3], id="a 12-hour gap"),
        pytest.param((0, 10, 610, 620, 1220, 1230), [2, 2, 2], id="half the steps are gaps"),
        pytest.param((0, 10, 20, 30, 40, 2000), [5, 1], id="a lone sample after a gap"),
        pytest.param((0, 4.5, 9, 13.5, 23.5, 33.5, 43.5), [7], id="the interval changes"),
    ],
)
def test_runs_split_only_at_gaps(minutes, lengths):
    samples = series(*minutes)
    found = runs(samples)
    assert [len(run) for run in found] == lengths
    assert tuple(s for run in found for s in run) == samples  # nothing lost, order kept


def test_the_factor_is_documented_as_three():
    assert GAP_FACTOR == 3
