"""What a pushed answer says beside its report: ordinals, spans, fingerprints, storm summaries."""

from __future__ import annotations

from typing import Any

import pytest

from bot.push.wording import (
    fingerprint,
    label,
    ordinal,
    recurrence_note,
    source_note,
    storm_summary,
)
from diagnosis import Category, Outcome, Report, WorkloadRef


def _report(
    name: str = "train", category: Category | None = Category.OOM_KILLED, **kw: Any
) -> Report:
    workload = WorkloadRef(
        id=f"id-{name}", name=name, project="nlp", cluster_id="c", phase="Failed"
    )
    outcome = kw.pop("outcome", Outcome.DIAGNOSED)
    return Report(outcome=outcome, category=category, workload=workload, **kw)


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (1, "1st"),
        (2, "2nd"),
        (3, "3rd"),
        (4, "4th"),
        (11, "11th"),
        (12, "12th"),
        (13, "13th"),
        (21, "21st"),
        (22, "22nd"),
        (101, "101st"),
        (111, "111th"),
        (112, "112th"),
    ],
)
def test_ordinal(n: int, text: str):
    assert ordinal(n) == text


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "2nd time in 1 min"),
        (59, "2nd time in 1 min"),
        (35 * 60, "2nd time in 35 min"),
        (119 * 60, "2nd time in 119 min"),
        (2 * 3600, "2nd time in 2 h"),
        (47 * 3600, "2nd time in 47 h"),
        (3 * 86400, "2nd time in 3 d"),
    ],
)
def test_recurrence_note(seconds: float, text: str):
    assert recurrence_note(2, 1000.0, 1000.0 + seconds) == text


def test_the_fingerprint_is_project_name_category_and_subcause():
    base = fingerprint("nlp", _report())
    assert fingerprint("nlp", _report()) == base
    assert fingerprint("vision", _report()) != base
    assert fingerprint("nlp", _report("other")) != base
    assert fingerprint("nlp", _report(category=Category.NODE_FAILURE)) != base
    pulled = _report(category=Category.IMAGE_PULL_FAILED, subcause="auth")
    assert fingerprint("nlp", pulled) != fingerprint(
        "nlp", _report(category=Category.IMAGE_PULL_FAILED, subcause="not-found")
    )


def test_a_report_without_category_is_labelled_by_its_outcome():
    assert label(_report(category=None, outcome=Outcome.PREEMPTED)) == "PREEMPTED"
    assert label(_report()) == "OOM_KILLED"


def test_source_notes_say_why_nobody_asked():
    assert source_note("watch", project="nlp", cluster="prod-a") == (
        "Posted because this channel watches project nlp on prod-a."
    )
    assert source_note(
        "alert", project="nlp", cluster="prod-a", alertname="KubePodCrashLooping"
    ) == ("Posted for the Alertmanager alert KubePodCrashLooping (project nlp on prod-a).")


def test_a_storm_summary_counts_categories_and_nodes_most_first():
    node = {"node": "dgx-07"}
    reports = [
        *[_report(f"w{i}", Category.NODE_FAILURE, details=node) for i in range(3)],
        _report("oom", Category.OOM_KILLED),
    ]
    assert storm_summary("nlp", "in the last minute", reports) == (
        "4 workloads in nlp failed in the last minute: 3 \N{MULTIPLICATION SIGN} NODE_FAILURE "
        "on dgx-07, 1 \N{MULTIPLICATION SIGN} OOM_KILLED. Each one's answer is in this thread."
    )
