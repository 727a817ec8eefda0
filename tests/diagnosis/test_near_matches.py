"""No match by name is a question: near matches by name, newest first, one per name."""

from __future__ import annotations

import difflib

import pytest

from diagnosis.resolve import MAX_NEAR_MATCHES, near_matches
from tests.factories import ago, iso, workload


def named(*names: str) -> list:
    # newest first, as `list_project_workloads` returns them
    return [
        workload(id=f"00000000-0000-4000-8000-{i:012d}", name=n, phaseUpdatedAt=iso(ago(i)))
        for i, n in enumerate(names)
    ]


CASES = [
    # id, asked, listed, offered
    ("typo", "train-bret", ["train-bert", "eval-bert"], ["train-bert"]),
    ("case-differs", "Train-Bert", ["train-bert"], ["train-bert"]),
    ("prefix-of-a-longer-name", "llama", ["llama-70b-ft", "sdxl"], ["llama-70b-ft"]),
    (
        "closest-first",
        "job-42",
        ["job-421", "job-42a", "job-4"],
        ["job-421", "job-42a", "job-4"],
    ),  # ties by name
    ("one-per-name-newest", "train-bert", ["train-berts", "train-berts"], ["train-berts"]),
    ("unrelated-is-not-offered", "zzz-unrelated", ["train-bert", "eval-bert"], []),
    ("nothing-listed", "train-bert", [], []),
]


@pytest.mark.parametrize(
    ("asked", "listed", "offered"), [pytest.param(*c[1:], id=c[0]) for c in CASES]
)
def test_near_matches_by_name(asked, listed, offered):
    found = near_matches(asked, named(*listed))
    assert [w.name for w in found] == offered


def test_the_newest_workload_of_a_name_is_offered():
    found = near_matches("train-bert", named("train-berts", "train-berts"))
    assert found[0].id == "00000000-0000-4000-8000-000000000000"


def test_at_most_a_few_are_offered():
    found = near_matches("job", named(*(f"job-{i}" for i in range(10))))
    assert len(found) == MAX_NEAR_MATCHES


def test_a_name_that_cannot_be_near_is_never_compared_in_full(monkeypatch):
    """ratio() is quadratic: a 253-character name against 1,000 workloads took 0.4 s."""
    compared: list[float] = []

    class Counting(difflib.SequenceMatcher):
        def ratio(self) -> float:
            compared.append(super().ratio())
            return compared[-1]

    monkeypatch.setattr(difflib, "SequenceMatcher", Counting)
    listed = named("train-bert", *(f"eval-{i:04d}" for i in range(1000)))
    assert near_matches("train-bret", listed)[0].name == "train-bert"
    assert len(compared) == 1  # train-bert's; no eval-NNNN could be near
    compared.clear()
    assert near_matches("x" * 253, listed) == []
    assert compared == []
