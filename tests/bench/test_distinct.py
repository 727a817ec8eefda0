"""The distinct-asks scenario's figures: floors, the p99 with asks never answered, the worse run."""

from __future__ import annotations

import math

import pytest

from bench.distinct import _Run, _worst


def _run(e2e: list[float], cpu_s: float = 4.0, cores: int = 2) -> _Run:
    harness = {"simulator": 1.0, "driver and fake Slack": 0.5, "Redis": 0.5}
    return _Run(e2e, len(e2e), cores, cpu_s, harness, 120.0, "worker: 120 MB")


def test_floors_spread_the_cpu_over_the_cores():
    run = _run([1.0] * 10)
    assert (run.cpu_floor_s, run.machine_floor_s) == (2.0, 3.0)


P99 = {
    "all answered": ([0.5] * 199 + [3.0], 0.5),
    "the slowest 1 % do not count": ([0.5] * 198 + [3.0, 4.0], 0.5),
    "the third slowest does": ([0.5] * 197 + [3.0, 4.0, 5.0], 3.0),
    "one never answered, under 1 %": ([0.5] * 199 + [math.inf], 0.5),
    "three never answered, over 1 %": ([0.5] * 197 + [math.inf] * 3, math.inf),
}


@pytest.mark.parametrize(("e2e", "expected"), P99.values(), ids=P99)
def test_an_ask_never_answered_counts_as_never(e2e, expected):
    assert _run(e2e).p99 == expected


def test_cpu_is_per_answered_ask():
    run = _run([1.0, 1.0, math.inf, math.inf], cpu_s=0.1)
    assert (run.answered, run.per_answer_s) == (2, 0.05)
    assert math.isnan(_run([math.inf], cpu_s=0.1).per_answer_s)


WORST = {
    "the larger": ([0.02, 0.03], 0.03),
    "one": ([0.02], 0.02),
    "a figure not read": ([0.02, math.nan], math.nan),
}


@pytest.mark.parametrize(("values", "expected"), WORST.values(), ids=WORST)
def test_the_worse_of_the_runs_is_reported(values, expected):
    found = _worst(values)
    assert found == expected or (math.isnan(found) and math.isnan(expected))
