"""Was it fair: the quota position at the eviction (never today's), protections, recurrence."""

from __future__ import annotations

from datetime import timedelta

import pytest

from diagnosis.preemption.compose import compose_preemption
from diagnosis.preemption.fairness import QuotaPosition, count, protection, quota_position
from diagnosis.preemption.kinds import decide_kind
from diagnosis.preemption.texts import PreemptionKind
from tests.diagnosis.preemption import builders as b
from tests.factories import ago, history_event, iso, phase_update, workload

K = PreemptionKind


def test_the_schedulers_reclaim_line_decides_the_quota_position():
    ev = b.preemption_evidence(events=[b.evict(b.RECLAIM)], metrics=b.quota_metrics(8, 2))
    found = quota_position(ev, decide_kind(ev), seen=True)
    assert found.over is True  # 12 used, quota 8: the scheduler's numbers, not the metrics'
    assert found.level == "project"
    assert found.line is not None
    assert "queue ml-team using 12 GPUs with a quota of 8 (fair share 10)" in found.line.text


@pytest.mark.parametrize(
    ("quota", "allocation", "over"), [(8, 12, True), (8, 8, False), (8, 3, False)]
)
def test_without_the_line_metrics_around_the_eviction_decide(quota, allocation, over):
    ev = b.preemption_evidence(metrics=b.quota_metrics(quota, allocation))
    found = quota_position(ev, decide_kind(ev), seen=True)
    assert (found.over, found.project) == (over, over)
    assert found.line is not None
    assert found.line.source == "get_project_metrics"


@pytest.mark.parametrize(
    "metrics",
    [
        pytest.param(None, id="not-read"),
        pytest.param([], id="no-series"),
        pytest.param(b.quota_metrics(8, 12, minutes_ago=b.EVICTED + 30), id="samples-too-old"),
        pytest.param(b.quota_metrics(8, 12, minutes_ago=b.EVICTED - 5), id="samples-after-it"),
        pytest.param(b.quota_metrics(8, 12)[:1], id="quota-only"),
    ],
)
def test_no_samples_bracketing_the_eviction_is_unknown_never_todays_status(metrics):
    ev = b.preemption_evidence(metrics=metrics)
    assert quota_position(ev, decide_kind(ev), seen=True) == QuotaPosition()


def test_metrics_of_no_named_pool_judge_nothing():
    """Quotas are per node pool: a series for no pool is a sum over pools, never a position."""
    ev = b.preemption_evidence(metrics=b.quota_metrics(8, 12)).model_copy(
        update={"metrics_pool": None}
    )
    assert quota_position(ev, decide_kind(ev), seen=True) == QuotaPosition()


def test_a_non_number_sample_is_skipped():
    bad = b.quota_metrics(8, 12)
    bad[1] = bad[1].model_copy(
        update={"values": (bad[1].values[0].model_copy(update={"value": "n/a"}),)}
    )
    ev = b.preemption_evidence(metrics=bad)
    assert quota_position(ev, decide_kind(ev), seen=True) == QuotaPosition()


@pytest.mark.parametrize(
    ("victim", "kind", "violated", "which"),
    [
        pytest.param({}, K.PRIORITY_PREEMPTION, False, [], id="preemptible"),
        pytest.param({"preemptible": False}, K.PRIORITY_PREEMPTION, True, ["preemptible: false"], id="non-preemptible-flag"),
        pytest.param({"preemptible": None, "priority": 125}, K.RECLAIM_FAIR_SHARE, True, ["priority 125 >= 100"], id="non-preemptible-priority"),
        pytest.param(
            {"guaranteedRuntimeEndsAt": iso(ago(0))}, K.PRIORITY_PREEMPTION, True, ["guaranteed runtime ran until"],
            id="inside-guaranteed-runtime",
        ),
        pytest.param(
            {"guaranteedRuntimeEndsAt": iso(ago(0))}, K.RECLAIM_FAIR_SHARE, True, ["shields from reclaim is unconfirmed"],
            id="guaranteed-runtime-vs-reclaim",
        ),
        pytest.param({"guaranteedRuntimeEndsAt": iso(ago(60))}, K.PRIORITY_PREEMPTION, False, [], id="after-guaranteed-runtime"),
        pytest.param({"preemptible": None, "priority": None}, K.PRIORITY_PREEMPTION, None, [], id="unknowable"),
        pytest.param({"preemptible": False}, K.CONSOLIDATION, False, [], id="not-guarded-kind"),
        pytest.param({"preemptible": False}, K.UNKNOWN, None, [], id="unknown-kind"),
    ],
)  # fmt: skip
def test_protections_that_should_have_applied(victim, kind, violated, which):
    found, broken = protection(b.preemption_evidence(b.victim(**victim)), kind)
    assert found is violated
    assert len(broken) == len(which)
    for text, expected in zip(broken, which, strict=True):
        assert expected in text


def test_count_distinct_evictions_in_the_lookback():
    events = [b.evict(b.PRIORITY, m) for m in (500, 300, 300.5, b.EVICTED)]  # 300/300.5: one
    history = [phase_update("Running", 600), history_event("Evict", b.PRIORITY, 300)]
    ev = b.preemption_evidence(events=events, history=history, lookback=timedelta(hours=24))
    assert count(ev) == 3
    short = b.preemption_evidence(events=events, history=history, lookback=timedelta(hours=1))
    assert count(short) == 1


def test_without_history_the_count_is_not_measured():
    ev = b.preemption_evidence().model_copy(update={"history": None})
    assert count(ev) is None
    report = compose_preemption(ev, decide_kind(ev))
    assert report.preemption is not None
    assert report.preemption.count is None
    assert "how often it was preempted (history unavailable)" in report.missing


def test_a_recurring_preemption_gets_advice_for_it():
    events = [b.evict(b.PRIORITY, m) for m in (500, 300, b.EVICTED)]
    ev = b.preemption_evidence(events=events, by=b.preemptor())
    report = compose_preemption(ev, decide_kind(ev))
    assert any(r.startswith("Preempted 3 times in 24h: checkpoint") for r in report.recommendations)


def test_a_broken_protection_is_reported_first():
    # A reclaim (a non-preemptible victim of a priority preemption is a contradiction instead).
    ev = b.preemption_evidence(b.victim(preemptible=False), events=[b.evict(b.RECLAIM)])
    report = compose_preemption(ev, decide_kind(ev))
    assert report.recommendations[0].startswith("Report it to a Run:ai administrator")
    assert report.preemption is not None
    assert report.preemption.protection_violated is True


@pytest.mark.parametrize(
    ("events", "headline"),
    [
        ([b.evict(b.CONSOLIDATION)], "by consolidation (bin packing)"),
        ([b.evict(b.STALE_GANG)], "fell below its minimum (4 pods); no preemptor"),
        ([b.evict(b.RECLAIM)], "This workload's project was over its quota then"),
        ([b.evict("Pod runai-ml-team/v-0-0 was preempted")], "no eviction record names one"),
    ],
)
def test_headlines_per_kind(events, headline):
    ev = b.preemption_evidence(events=events)
    report = compose_preemption(ev, decide_kind(ev))
    assert headline in report.headline
    assert report.preemption is not None
    assert report.preemption.at == ago(b.EVICTED)


def test_unknown_with_kubernetes_read_says_the_record_is_gone_not_configure_it():
    ev = b.preemption_evidence(events=[b.evict("Pod runai-ml-team/v-0-0 was preempted")])
    without = compose_preemption(ev, decide_kind(ev))
    assert without.recommendations[0].startswith("Configure Kubernetes access (Tier 2)")
    read = ev.model_copy(update={"tier2": True})
    report = compose_preemption(read, decide_kind(read))
    assert report.recommendations[0].startswith("Ask again soon after an eviction")


def _reclaim_naming(queue: str) -> str:
    """The reference's reclaim text with the victim queue named `queue`."""
    return b.RECLAIM.replace("ml-team uses", f"{queue} uses")


@pytest.mark.parametrize(
    ("queue", "theirs", "level", "unseen"),
    [
        pytest.param("ml-team", "2", "project", "project", id="the-projects-name"),
        pytest.param("ml-team-default", "2", "project", "project", id="the-projects-queue-in-its-pool"),
        pytest.param("ml-platform", None, "department", "department", id="the-departments-name"),
        pytest.param("ml-platform-default", "1", "department", "department", id="the-departments-queue-in-its-pool"),
        pytest.param("q-7", "2", "department", None, id="unnamed-different-departments"),
        pytest.param("q-7", "1", "project", None, id="unnamed-same-department"),
        pytest.param("q-7", None, None, None, id="unnamed-preemptors-department-unknown"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("seen", [True, False], ids=["seen", "unseen"])
def test_whose_queue_the_reclaim_line_names(queue, theirs, level, unseen, seen):
    """The scheduler gives parent queues when the projects' departments differ (review #6).

    Whether they differ is the preemptor's to tell: only to whoever may read it (`seen`).
    """
    victim = b.victim(departmentId="1", departmentName="ml-platform")
    ev = b.preemption_evidence(victim, events=[b.evict(_reclaim_naming(queue))])
    if theirs is not None:
        found = workload(name="serve-70b", projectName="nlp", departmentId=theirs)
        ev = ev.model_copy(update={"preemptor_workload": found})
    expected = level if seen else unseen
    position = quota_position(ev, decide_kind(ev), seen=seen)
    assert (position.over, position.level) == (True, expected)
    assert position.project is (True if expected == "project" else None)
    assert position.line is not None
    assert ("this workload's department's queue" in position.line.text) is (
        expected == "department"
    )
