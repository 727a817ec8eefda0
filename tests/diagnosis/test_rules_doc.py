"""docs/diagnosis-rules.md stays honest: every test and scenario it cites exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from diagnosis.report import Category
from tests.diagnosis.doc_refs import SCENARIO_REF, TEST_REF, cases_source

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "diagnosis-rules.md").read_text(encoding="utf-8")
TESTS = sorted(set(TEST_REF.findall(DOC)))
SCENARIOS = sorted(set(SCENARIO_REF.findall(DOC)))


def test_the_page_cites_tests_and_scenarios():
    assert len(TESTS) > 40
    assert len(SCENARIOS) > 10


@pytest.mark.parametrize(("path", "name", "case"), TESTS, ids=["::".join(t) for t in TESTS])
def test_cited_test_exists(path, name, case):
    source = (ROOT / path).read_text(encoding="utf-8")
    assert re.search(rf"^(?:async )?def {name}\(", source, re.MULTILINE), f"{path} has no {name}"
    if case:
        cases = cases_source(ROOT, path)
        assert f'"{case}"' in cases, f"{path} has no case {case}"


@pytest.mark.parametrize("path", SCENARIOS)
def test_cited_scenario_exists(path):
    assert (ROOT / path).is_file()


@pytest.mark.parametrize("category", list(Category))
def test_every_category_has_its_section(category):
    assert f"### {category.value}\n" in DOC
