"""The memory chart's ticks: round values from zero, UTC times on whole steps, plain labels."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta, timezone

import pytest

from bot.render.chart_scale import MAX_TICKS, time_label, time_ticks, value_label, value_ticks

T = datetime(2025, 11, 4, 8, 52, 17, tzinfo=UTC)


@pytest.mark.parametrize(
    ("top", "ticks"),
    [
        (36.8, [0, 10, 20, 30]),
        (9.2, [0, 2, 4, 6, 8]),
        (0.575, [0, 0.1, 0.2, 0.3, 0.4, 0.5]),
        (1177.6, [0, 200, 400, 600, 800, 1000]),
        (15.0, [0, 2.5, 5, 7.5, 10, 12.5, 15]),
        (0.00112, [0, 0.0002, 0.0004, 0.0006, 0.0008, 0.001]),
    ],
)
def test_value_ticks_start_at_zero_and_are_round(top, ticks):
    assert value_ticks(top) == ticks
    assert len(ticks) <= MAX_TICKS


@pytest.mark.parametrize(
    ("value", "label"), [(0, "0"), (2.5, "2.5"), (30, "30"), (0.1, "0.1"), (1000, "1000")]
)
def test_value_labels_have_the_digits_they_need(value, label):
    assert value_label(value) == label


@pytest.mark.parametrize(
    ("span", "step", "first"),
    [
        (timedelta(seconds=20), 5, "08:52:20"),
        (timedelta(minutes=2), 30, "08:52:30"),
        (timedelta(minutes=95), 30 * 60, "09:00"),
        (timedelta(hours=15), 3 * 3600, "09:00"),
        (timedelta(days=3, hours=2), 86400, "11-05"),
        (timedelta(days=60), 14 * 86400, "11-06"),
        (timedelta(days=36500), 6084 * 86400, "08-18"),  # beyond the table: still few ticks
    ],
)
def test_time_ticks_fall_on_whole_steps(span, step, first):
    ticks, found = time_ticks(T, T + span)
    assert found == step
    assert 2 <= len(ticks) <= MAX_TICKS
    assert all(T <= t <= T + span for t in ticks)
    assert all(b - a == timedelta(seconds=step) for a, b in itertools.pairwise(ticks))
    assert time_label(ticks[0], step) == first


@pytest.mark.parametrize(
    ("at", "step", "label"),
    [
        (datetime(2025, 11, 4, 9, 0, tzinfo=UTC), 3600, "09:00"),
        (datetime(2025, 11, 4, 0, 0, tzinfo=UTC), 3600, "11-04"),  # midnight names the day
        (datetime(2025, 11, 4, 9, 0, 30, tzinfo=UTC), 30, "09:00:30"),
        (datetime(2025, 11, 4, 9, 0, tzinfo=UTC), 86400, "11-04"),
        (
            datetime(2025, 11, 4, 10, 0, tzinfo=timezone(timedelta(hours=1))),
            3600,
            "09:00",
        ),  # shown in UTC
    ],
)
def test_time_labels(at, step, label):
    assert time_label(at, step) == label
