"""The rule table: each category fires on its direct signal and nothing else decides for it."""

from __future__ import annotations

import pytest

from diagnosis.report import Category
from diagnosis.rules import RULES, classify
from tests.diagnosis.rules.cases import CASES
from tests.factories import evidence, pod, spec, usage


@pytest.mark.parametrize(("case", "ev", "category", "details"), CASES, ids=[c[0] for c in CASES])
def test_classify(case, ev, category, details):
    """Each row: the verdict is the category of the strongest direct signal, never a guess."""
    finding = classify(ev)
    assert finding.category is category
    assert details.items() <= finding.details.model_dump(mode="json").items()
    assert finding.evidence, "every verdict cites evidence"


def test_registry_has_one_rule_per_category():
    """One rule per category, UNKNOWN being the fallback rather than a rule."""
    categories = [c for c, _ in RULES]
    assert len(categories) == len(set(categories))
    assert set(categories) == set(Category) - {Category.UNKNOWN}


def test_oom_quotes_limit_and_peak():
    """OOM evidence quantifies request, limit and the measured peak against the limit."""
    ev = evidence(
        pods=[pod("OOMKilled")],
        spec_=spec(compute={"cpuMemoryRequest": "32Gi", "cpuMemoryLimit": "32Gi"}),
        metrics=[usage(8 * 2**30, 31 * 2**30, 2**35)],
        metrics_requested=True,
    )
    finding = classify(ev)
    texts = [line.text for line in finding.evidence]
    assert "CPU-memory request/limit: 32 GiB / 32 GiB" in texts
    assert "Peak CPU-memory usage: 32 GiB = 100% of the limit" in texts
    assert "32 GiB" in finding.headline


def test_oom_with_empty_series_says_no_peak():
    """An empty metrics series is reported as 'no peak observed', never as a figure."""
    ev = evidence(
        pods=[pod("OOMKilled")],
        spec_=spec(compute={"cpuMemoryRequest": "8G", "cpuMemoryLimit": "16G"}),
        metrics=[usage()],
        metrics_requested=True,
    )
    texts = " ".join(line.text for line in classify(ev).evidence)
    assert "No CPU-memory samples were recorded" in texts
    assert "Peak" not in texts
    assert "14.9 GiB" in texts  # 16G is decimal: 16e9 bytes
