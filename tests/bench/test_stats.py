"""The benchmark's pure figures: chain depth, percentiles, targets, the table, moved times."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest

from bench.stats import (
    Figure,
    Target,
    Timed,
    chain_levels,
    machine,
    number,
    percentile,
    render_table,
    shift_times,
    times,
)

LATENCY = 0.05


def _calls(*spans: tuple[float, float]) -> list[Timed]:
    return [Timed(start, end) for start, end in spans]


CHAINS = {
    "nothing": ([], 0),
    "one call": ([(0.0, 0.05)], 1),
    "three at once": ([(0.0, 0.05), (0.001, 0.051), (0.002, 0.052)], 1),
    "one after another": ([(0.0, 0.05), (0.05, 0.1), (0.1, 0.15)], 3),
    # token -> status -> events -> {spec, pods, history} -> metrics: 5 levels, 7 calls
    "the pipeline": (
        [
            (0, 0.05),
            (0.05, 0.1),
            (0.1, 0.15),
            (0.15, 0.2),
            (0.151, 0.2),
            (0.152, 0.21),
            (0.21, 0.26),
        ],
        5,
    ),
    # a call that starts late but overlaps its sibling is not a level of its own
    "late sibling": ([(0.0, 0.05), (0.04, 0.09), (0.09, 0.14)], 2),
    "two independent chains": ([(0, 0.05), (0.05, 0.1), (0.01, 0.06)], 2),
    "out of order": ([(0.1, 0.15), (0.0, 0.05), (0.05, 0.1)], 3),
}


@pytest.mark.parametrize(("spans", "levels"), CHAINS.values(), ids=CHAINS.keys())
def test_chain_levels_is_the_longest_run_of_calls_one_after_another(spans, levels):
    assert chain_levels(_calls(*spans)) == levels


PERCENTILES = {
    "p50 of 1..100": (list(range(1, 101)), 50, 50),
    "p99 of 1..100": (list(range(1, 101)), 99, 99),
    "p100 is the max": ([3, 1, 2], 100, 3),
    "p0 is the min": ([3, 1, 2], 0, 1),
    "one value": ([7], 99, 7),
    "p99 of 200 keeps the worst two out": (list(range(200)), 99, 197),
}


@pytest.mark.parametrize(("values", "p", "expected"), PERCENTILES.values(), ids=PERCENTILES.keys())
def test_percentile_uses_the_nearest_rank(values, p, expected):
    assert percentile(values, p) == expected


def test_percentile_of_nothing_is_not_a_number():
    assert math.isnan(percentile([], 50))


TARGETS = {
    "under": (Target("x", 1.0, 2.0, 1.2), 0.5, True),
    "at the bound": (Target("x", 1.2, 1.0, 1.2), 1.2, True),
    "over": (Target("x", 3.0, 1.0, 1.2), 3.0, False),
    "zero of zero": (Target("lost", 0, 0, 0.0), 0.0, True),
    "some of zero": (Target("lost", 2, 0, 0.0), math.inf, False),
    "none lost": (Target("lost", 0, 50, 0.0), 0.0, True),
    "one lost": (Target("lost", 1, 50, 0.0), 0.02, False),
}


@pytest.mark.parametrize(("target", "ratio", "met"), TARGETS.values(), ids=TARGETS.keys())
def test_a_target_is_met_when_its_ratio_is_within_the_bound(target, ratio, met):
    assert target.ratio == pytest.approx(ratio)
    assert target.met is met


def test_an_unmeasured_target_is_missed():
    target = Target("p99", math.nan, 1.0, 1.5)
    assert math.isnan(target.ratio)
    assert target.met is False


def test_the_table_shows_each_target_with_its_ratio_and_verdict():
    rows: list[Target | Figure] = [
        Target("1. wall / floor", 0.33, 0.3, 1.2, "s", "5 levels"),
        Target("2. calls / one", 40, 20, 1.0),
        Figure("   context", "42 things"),
    ]
    table = render_table("title", rows, ["machine: 2 cores"])
    lines = table.splitlines()
    assert lines[:2] == ["title", "machine: 2 cores"]
    assert "verdict" in lines[2]
    assert "0.330 s" in lines[3]
    assert "1.10x" in lines[3]
    assert lines[3].endswith("met (5 levels)")
    assert "2.00x" in lines[4]
    assert lines[4].endswith("MISSED")
    assert "42 things" in lines[5]


NUMBERS = {
    "seconds": (0.4123, "s", "0.412 s"),
    "long seconds": (37.51, "s", "37.5 s"),
    "whole": (88.0, "MB", "88 MB"),
    "fraction": (1.2345, "", "1.23"),
    "large": (190.4, "MB", "190 MB"),
    "nan": (math.nan, "s", "n/a"),
    "inf": (math.inf, "", "inf"),
}


@pytest.mark.parametrize(("value", "unit", "text"), NUMBERS.values(), ids=NUMBERS.keys())
def test_numbers_are_shown_compactly(value, unit, text):
    assert number(value, unit) == text


def test_shift_times_moves_every_timestamp_and_keeps_its_form():
    text = '{"a": "2025-11-04T09:30:00Z", "b": "2025-11-04T09:30:00.123+02:00", "c": "2025-11-04"}'
    moved = shift_times(text, timedelta(days=1, hours=1))
    assert moved == (
        '{"a": "2025-11-05T10:30:00Z", "b": "2025-11-05T10:30:00.123+02:00", "c": "2025-11-04"}'
    )


def test_the_machine_lines_name_cores_cpu_python_and_load(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nmodel name\t: Test CPU 9000\n")
    first, second = machine(cpuinfo)
    assert "cores, Test CPU 9000, Python 3." in first
    assert second.startswith("load average (1, 5, 15 min): ")
    assert "Python 3." in machine(tmp_path / "missing")[0]


TIMES = {
    "a multiple": (3.0, 2.0, "1.50x"),
    "under one": (1.0, 4.0, "0.25x"),
    "a zero reference": (1.0, 0.0, "n/a"),
    "nothing measured": (math.nan, 2.0, "n/a"),
    "no reference": (1.0, math.nan, "n/a"),
    "never answered": (math.inf, 2.0, "inf"),
}


@pytest.mark.parametrize(("value", "reference", "expected"), TIMES.values(), ids=TIMES.keys())
def test_a_value_is_written_as_a_multiple_of_its_reference(value, reference, expected):
    assert times(value, reference) == expected
