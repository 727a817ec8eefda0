"""Recurrence counts distinct failures of the same category within the lookback."""

from __future__ import annotations

from datetime import timedelta

import pytest

from diagnosis.recurrence import recurrence
from diagnosis.report import Category
from diagnosis.rules import classify
from diagnosis.runs import current_run
from tests.factories import evidence, history_event, phase_update, workload


def oom_run(minutes_ago: float) -> list:
    """One OOM termination as Run:ai history records it: event, then phase update."""
    return [
        phase_update("Running", minutes_ago + 30),
        history_event("OOMKilled", "Container trainer was OOMKilled", minutes_ago + 0.5),
        phase_update("Failed", minutes_ago, "OOMKilled"),
    ]


def crash_run(minutes_ago: float) -> list:
    return [
        phase_update("Running", minutes_ago + 30),
        phase_update("Failed", minutes_ago, "container trainer terminated with exit code 1"),
    ]


def test_event_and_phase_update_of_one_termination_count_once():
    history = oom_run(10)
    ev = evidence(workload(phaseUpdatedAt=history[-1].at.isoformat()), history=history)
    result = recurrence(ev, Category.OOM_KILLED, "24h")
    assert (result.count, result.recurring) == (1, False)


def test_three_ooms_are_recurring():
    history = [*oom_run(600), *oom_run(300), *oom_run(10)]
    ev = evidence(workload(phaseUpdatedAt=history[-1].at.isoformat()), history=history)
    result = recurrence(ev, Category.OOM_KILLED, "24h")
    assert (result.count, result.recurring, result.lookback) == (3, True, "24h")


def test_other_categories_do_not_count():
    history = [*crash_run(600), *oom_run(10)]
    ev = evidence(workload(phaseUpdatedAt=history[-1].at.isoformat()), history=history)
    assert recurrence(ev, Category.OOM_KILLED, "24h").count == 1


def test_failures_older_than_lookback_do_not_count():
    history = [*oom_run(3 * 24 * 60), *oom_run(10)]
    ev = evidence(workload(phaseUpdatedAt=history[-1].at.isoformat()), history=history)
    assert recurrence(ev, Category.OOM_KILLED, "24h").count == 1
    week = evidence(
        workload(phaseUpdatedAt=history[-1].at.isoformat()),
        history=history,
        lookback=timedelta(days=7),
    )
    assert recurrence(week, Category.OOM_KILLED, "7d").count == 2


def test_repeated_failed_phase_updates_are_one_occurrence():
    history = [*oom_run(10), phase_update("Failed", 9, "OOMKilled")]
    ev = evidence(workload(phaseUpdatedAt=history[-2].at.isoformat()), history=history)
    assert recurrence(ev, Category.OOM_KILLED, "24h").count == 1


def test_current_failure_without_history_anchor_counts_once():
    ev = evidence(workload(phase="Running"), history=[])
    assert recurrence(ev, Category.OOM_KILLED, "24h").count == 1  # the crash loop under way


def test_history_unavailable_means_not_measured():
    """No history is "not measured" (None), never "happened once"."""
    ev = evidence(history=None)
    result = recurrence(ev, Category.OOM_KILLED, "24h")
    assert result.count is None
    assert result.recurring is False


def test_preempted_occurrence_is_not_a_failure():
    history = [
        phase_update("Running", 300),
        history_event("Evict", "Pod x was preempted by higher priority workload y", 200.5),
        phase_update("Failed", 200, "exit code 137"),
        *oom_run(10),
    ]
    ev = evidence(workload(phaseUpdatedAt=history[-1].at.isoformat()), history=history)
    # Whatever the verdict on the failure diagnosed, it counts once; the preemption never.
    assert recurrence(ev, Category.UNKNOWN, "24h").count == 1
    assert recurrence(ev, Category.OOM_KILLED, "24h").count == 1


def test_an_earlier_runs_evidence_never_decides_todays_failure():
    """An OOM two runs ago is history, not the cause of a failure nothing explains."""
    history = [*oom_run(600), phase_update("Running", 60), phase_update("Failed", 10)]
    ev = evidence(workload(phaseUpdatedAt=history[-1].at.isoformat()), history=history)
    assert classify(ev).category is Category.OOM_KILLED  # all signals: the old OOM would win
    current = ev.model_copy(update={"signals": current_run(ev)})
    assert classify(current).category is Category.UNKNOWN
    assert recurrence(ev, Category.UNKNOWN, "24h").count == 1


def test_without_history_every_signal_belongs_to_the_current_run():
    ev = evidence(history=[])
    assert current_run(ev) == ev.signals


def test_a_failure_older_than_the_lookback_is_not_counted_in_it():
    history = oom_run(3 * 24 * 60)
    ev = evidence(workload(phaseUpdatedAt=history[-1].at.isoformat()), history=history)
    assert recurrence(ev, Category.OOM_KILLED, "24h").count == 0


@pytest.mark.parametrize(
    ("phase", "minutes_after", "kept"),
    [
        pytest.param("Failed", 33, False, id="failed: half an hour later is aftermath"),
        pytest.param("Failed", 5, True, id="failed: minutes later may be the same failure"),
        pytest.param("Running", 33, True, id="running: every later signal is the current run"),
    ],
)
def test_what_happens_after_a_failure_never_decides_it(phase, minutes_after, kept):
    """A node that goes NotReady after the workload failed cannot have failed it."""
    history = oom_run(60)
    later = history_event(
        "NodeNotReady", "Node gpu-node-1 status is now: NodeNotReady", 60 - minutes_after
    )
    ev = evidence(
        workload(phase=phase, phaseUpdatedAt=history[-1].at.isoformat()), history=[*history, later]
    )
    [node] = [s for s in ev.signals if s.reason == "NodeNotReady"]
    assert (node in current_run(ev)) is kept
    if phase == "Failed" and not kept:
        current = ev.model_copy(update={"signals": current_run(ev)})
        assert classify(current).category is Category.OOM_KILLED


def test_the_failure_diagnosed_counts_for_its_verdict_whatever_its_segment_says():
    """A node NotReady minutes after an OOM kill: if the verdict is the node's, so is the count.

    The verdict reads the run up to `AFTERMATH` after the failure; recurrence cuts segments
    `GRACE` after each failure. The failure diagnosed is never counted as "older than the
    lookback" because its segment alone would have said OOM.
    """
    history = [*oom_run(60), history_event("NodeNotReady", "Node gpu-1 is NotReady", 55)]
    ev = evidence(
        workload(phase="Failed", phaseUpdatedAt=history[2].at.isoformat()), history=history
    )
    assert recurrence(ev, Category.NODE_FAILURE, "24h").count == 1


def test_a_running_workloads_earlier_failure_is_not_the_failure_diagnosed():
    """Resumed a minute after an app crash: the OOM loop under way counts once, the crash not.

    Its `phase_updated_at` is the resume, within `GRACE` of the crash: only a workload in a
    failure phase has its failure among the history's anchors.
    """
    history = [
        phase_update("Running", 120),
        phase_update("Failed", 61, "container trainer terminated with exit code 1"),
        phase_update("Running", 60),  # within GRACE of the failure
        history_event("OOMKilled", "Container trainer was OOMKilled", 5),
    ]
    ev = evidence(
        workload(phase="Running", phaseUpdatedAt=history[2].at.isoformat()), history=history
    )
    assert recurrence(ev, Category.OOM_KILLED, "24h").count == 1  # the crash loop under way
