"""docs/pending-and-preemption.md stays honest, like docs/diagnosis-rules.md.

Every test and scenario it cites exists, every reason and kind is documented, and its
Pending table is in the code's order.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from diagnosis.pending.table import PRECEDENCE
from diagnosis.pending.verdict import PendingReason
from diagnosis.preemption.texts import PreemptionKind
from tests.diagnosis.doc_refs import SCENARIO_REF, TEST_REF, cases_source

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "pending-and-preemption.md").read_text(encoding="utf-8")
TESTS = sorted(set(TEST_REF.findall(DOC)))
SCENARIOS = sorted(set(SCENARIO_REF.findall(DOC)))
_ROW = re.compile(r"^\| (P\d+) \| `([A-Z_]+)` \|", re.MULTILINE)


def test_the_page_cites_tests_and_scenarios():
    assert len(TESTS) > 40
    assert len(SCENARIOS) > 15


@pytest.mark.parametrize(("path", "name", "case"), TESTS, ids=["::".join(t) for t in TESTS])
def test_cited_test_exists(path, name, case):
    source = (ROOT / path).read_text(encoding="utf-8")
    assert re.search(rf"^(?:async )?def {name}\(", source, re.MULTILINE), f"{path} has no {name}"
    if case:
        cases = cases_source(ROOT, path)
        assert f'id="{case}"' in cases or f'"{case}"' in cases, f"{path} has no case {case}"


@pytest.mark.parametrize("path", SCENARIOS)
def test_cited_scenario_exists(path):
    assert (ROOT / path).is_file()


def test_the_pending_table_is_the_codes_order():
    assert [reason for _, reason in _ROW.findall(DOC)] == [r.reason.value for r in PRECEDENCE]


@pytest.mark.parametrize("name", [*PendingReason, *PreemptionKind], ids=str)
def test_every_reason_and_kind_is_documented(name):
    assert f"`{name.value}`" in DOC
