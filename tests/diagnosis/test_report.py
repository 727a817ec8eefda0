"""The Report's derived part (the redaction count), the owner it keeps, and its JSON."""

from __future__ import annotations

import pytest

from diagnosis.report import Category, EvidenceLine, Outcome, Report, count_redactions
from diagnosis.report_parts import WorkloadRef

MARK = "[REDACTED:secret-value]"
REF = WorkloadRef(id="w", name="train", project="nlp", cluster_id="c", phase="Failed")

COUNTS = [
    # report fields, markers it carries
    pytest.param({}, 0, id="nothing"),
    pytest.param({"headline": f"token {MARK} rejected"}, 1, id="headline"),
    pytest.param(
        {"evidence": (EvidenceLine(text=f"a {MARK} b {MARK}", source="kubectl logs"),)},
        2,
        id="evidence-two-in-one-line",
    ),
    pytest.param({"recommendations": (f"rotate {MARK}",)}, 1, id="recommendation"),
    pytest.param({"missing": (f"logs unavailable (HTTP 403: {MARK})",)}, 1, id="gap"),
    pytest.param({"question": f"Which of {MARK}?"}, 1, id="question"),
    pytest.param(
        {"headline": f"Which of {MARK}?", "question": f"Which of {MARK}?"},
        1,
        id="question-that-is-the-headline-counts-once",
    ),
    pytest.param(
        {"candidates": (REF.model_copy(update={"name": f"job-{MARK}"}),)}, 1, id="candidate"
    ),
]


@pytest.mark.parametrize(("fields", "markers"), COUNTS)
def test_redaction_count_is_derived_from_the_report(fields, markers):
    """Every marker anywhere in the report counts once; nobody has to remember to count."""
    report = Report(outcome=Outcome.DIAGNOSED, **fields)
    assert report.redactions == markers == count_redactions(report)
    assert report.to_json_dict("24h")["redactions"] == markers


def test_an_explicit_count_is_kept():
    assert Report(outcome=Outcome.DIAGNOSED, redactions=3).redactions == 3


def test_the_report_keeps_the_owner_its_composer_names():
    """The composer names who fixes it (see rules/test_registry.py); the model keeps it as given."""
    given = Report(outcome=Outcome.DIAGNOSED, category=Category.NODE_FAILURE, recovery_owner="SRE")
    assert given.recovery_owner == "SRE"
    assert Report(outcome=Outcome.NOT_FOUND).recovery_owner is None


def test_json_keeps_every_key_and_adds_what_the_text_shows():
    report = Report(
        outcome=Outcome.DIAGNOSED,
        category=Category.IMAGE_PULL_FAILED,
        workload=REF,
        headline="The image could not be pulled: the registry could not be reached.",
        recovery_owner="Infrastructure/SRE",
        subcause="network",
        details={"subcause": "network"},
    )
    data = report.to_json_dict("24h")
    original = {"outcome", "category", "workload", "evidence", "recurrence", "memory"}
    original |= {"recommendations", "missing", "question"}
    assert original <= set(data)
    assert data["outcome"] == "diagnosed"
    assert data["category"] == "IMAGE_PULL_FAILED"
    assert data["recurrence"] == {"count": None, "lookback": "24h", "recurring": False}
    assert (data["headline"], data["recovery_owner"]) == (report.headline, "Infrastructure/SRE")
    assert (data["subcause"], data["policy"], data["redactions"]) == ("network", None, 0)
    assert data["details"] == {"subcause": "network"}
