"""An exact text term decides as the generic test would, and terms are AND-combined in any order."""

from __future__ import annotations

from typing import Any

import pytest

from runai_sim import filters
from runai_sim.workloads import WORKLOAD_FIELDS

FIELDS = WORKLOAD_FIELDS


@pytest.mark.parametrize(
    "name", ["job-1", "job-2", None, 7, ["job-1", "x"], ["x"], [], "", "JOB-1"]
)
def test_an_exact_term_decides_as_the_generic_test(name: Any):
    [term] = filters.parse_filters(["name==job-1"], FIELDS)
    assert term.exact
    item = {"name": name}
    values = name if isinstance(name, list) else [name]
    assert term.matches(item) == any(term._test(v, "==") for v in values)


def test_exact_terms_are_tested_first_and_the_result_is_the_same():
    items = [
        {"name": "a", "projectName": "p", "priority": 2},
        {"name": "a", "projectName": "q", "priority": 1},
        {"name": "b", "projectName": "p", "priority": 4},
    ]
    raw = ["priority>=2", "name==a", "projectName!=q"]
    terms = filters.parse_filters(raw, FIELDS)
    assert [t.exact for t in terms] == [False, True, False]
    assert filters.apply_filters(items, terms) == [items[0]]
    assert filters.apply_filters(items, terms[::-1]) == [items[0]]
