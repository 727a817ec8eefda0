"""The runai-diagnose-failed-workload skill's phase table, preemption routing and symptom confirmation."""

from __future__ import annotations

import pytest

from diagnosis.compose import compose
from diagnosis.phase import confirms, phase_gate, recent_preemption
from diagnosis.redact import Redactor
from diagnosis.report import Category, Outcome
from diagnosis.request import Symptom
from diagnosis.rules import classify
from diagnosis.signals import events_signals, status_signals
from tests.factories import NOW, ago, event, evidence, phase_update, workload

CRASHLOOP = event(
    "BackOff", "Back-off restarting failed container trainer in pod t-0-0_runai-ml(abc)"
)
PULL = event("Failed", 'Failed to pull image "x:1": manifest unknown')
UNSCHEDULABLE = event("Unschedulable", "0/12 nodes are available: 12 Insufficient nvidia.com/gpu.")
EXIT_1 = event("Failed", "container trainer terminated with exit code 1")
EXIT_2 = event("Failed", "container trainer terminated with exit code 2")


def signals(*events, **wl):
    redactor = Redactor()
    return [*status_signals(workload(**wl), redactor), *events_signals(events, redactor)]


PHASE_TABLE = [
    ("Failed", [], None),
    ("Crashed", [], None),
    ("Stopped", [], None),
    ("Completed", [], Outcome.SUCCEEDED),
    ("Succeeded", [], Outcome.SUCCEEDED),
    ("Pending", [PULL], None),
    ("Pending", [CRASHLOOP], None),
    ("Pending", [UNSCHEDULABLE], Outcome.PENDING_SCHEDULING),
    ("Pending", [], Outcome.PENDING_SCHEDULING),
    ("Suspended", [], Outcome.SUSPENDED),
    ("Running", [CRASHLOOP], None),
    ("Running", [EXIT_1, EXIT_2], None),
    ("Running", [EXIT_1], Outcome.RUNNING_NO_FAILURE),
    ("Running", [], Outcome.RUNNING_NO_FAILURE),
    ("Initializing", [PULL], Outcome.NOT_TERMINAL),
    ("Degraded", [], Outcome.NOT_TERMINAL),
    ("Creating", [], Outcome.NOT_TERMINAL),
    ("Unknown", [], Outcome.NOT_TERMINAL),
    (None, [], Outcome.NOT_TERMINAL),
]


@pytest.mark.parametrize(("phase", "events", "expected"), PHASE_TABLE)
def test_phase_table(phase, events, expected):
    """Each phase continues or stops exactly as the skill's Step 1.5 says."""
    assert phase_gate(phase, signals(*events, phase=phase)) is expected


def test_phase_is_case_insensitive():
    assert phase_gate("FAILED", []) is None


@pytest.mark.parametrize(
    ("symptom", "events", "confirmed"),
    [
        (Symptom.CRASHLOOP, [CRASHLOOP], True),
        (Symptom.CRASHLOOP, [EXIT_1, EXIT_2], True),
        (Symptom.CRASHLOOP, [PULL], False),
        (Symptom.IMAGE_PULL, [PULL], True),
        (Symptom.IMAGE_PULL, [CRASHLOOP], False),
        (Symptom.MOUNT, [event("FailedMount", 'MountVolume.SetUp failed for volume "d"')], True),
        (Symptom.INIT, [event("Failed", "Init:CrashLoopBackOff")], True),
        (Symptom.STARTUP, [PULL], True),
        (Symptom.FAILED_POD, [UNSCHEDULABLE], False),
        (Symptom.FAILED_POD, [CRASHLOOP], True),
    ],
)
def test_symptom_confirmation(symptom, events, confirmed):
    """Only status, conditions or events that show the asked-for symptom confirm a match."""
    assert confirms(symptom, signals(*events, phase="Running")) is confirmed


PREEMPT = event(
    "Evict", "Pod runai-ml/t-0-0 was preempted by higher priority workload runai-ml/big", 30
)


def test_recent_preemption_routes_out():
    """A preemption within the lookback that nothing superseded ends the diagnosis."""
    assert recent_preemption(signals(PREEMPT), cutoff=ago(24 * 60)) is not None


def test_preemption_older_than_lookback_is_ignored():
    assert recent_preemption(signals(PREEMPT), cutoff=ago(20)) is None


def test_preemption_survived_by_a_later_restart_is_ignored():
    """Preempted, rescheduled and then failed for another reason: not a preemption."""
    started = event("Started", "Started container trainer", 20)
    assert recent_preemption(signals(PREEMPT, started), cutoff=ago(24 * 60)) is None


def test_preemption_survived_per_history_phase_update():
    history = [phase_update("Running", 25)]
    assert recent_preemption(signals(PREEMPT), history, cutoff=ago(24 * 60)) is None


def test_preemption_word_in_reason_only():
    preempted = event("Preempted", None, 5)
    assert recent_preemption(signals(preempted), cutoff=NOW.replace(hour=0)) is not None


def test_non_preemptible_is_not_preemption():
    text = event("Unschedulable", "NonPreemptibleOverQuota: non-preemptible workload over quota")
    assert recent_preemption(signals(text), cutoff=ago(24 * 60)) is None


def test_preemption_survived_per_a_later_oom_kill():
    """Evicted, rescheduled, then OOM-killed: only a running pod is OOM-killed (review #3)."""
    oom = event("OOMKilled", "Container trainer in pod runai-ml/t-0-1 was OOMKilled", 10)
    assert recent_preemption(signals(PREEMPT, oom), cutoff=ago(24 * 60)) is None


@pytest.mark.parametrize("survived", [True, False])
def test_the_failures_answer_cites_an_eviction_it_survived_as_context(survived):
    """The verdict is the later run's failure; the eviction before it is said, not hidden."""
    oom = event("OOMKilled", "Container trainer in pod runai-ml/t-0-1 was OOMKilled", 10)
    ev = evidence(events=[PREEMPT, oom] if survived else [oom])
    report = compose(ev, classify(ev))
    assert report.category is Category.OOM_KILLED
    line = f"It was preempted at {ago(30):%Y-%m-%d %H:%M:%SZ} and ran again"
    cited = [e for e in report.evidence if e.text.startswith(line)]
    assert len(cited) == survived, report.evidence
    assert all(not e.deciding and e.source == "get_workload_status" for e in cited)


@pytest.mark.parametrize(
    "after",
    [
        event("Failed", "container trainer terminated with exit code 143", 29),
        event("Failed", "container trainer terminated with exit code 137 (Error)", 29),
    ],
)
def test_the_evictions_own_kill_is_not_running_again(after):
    """A non-zero exit right after the eviction is how the eviction ends a container."""
    assert recent_preemption(signals(PREEMPT, after), cutoff=ago(24 * 60)) is not None


def test_a_terminal_phase_after_the_eviction_is_not_running_again():
    """Terminated after preemption: Failed with no Running between is still the preemption."""
    history = [phase_update("Failed", 29)]
    assert recent_preemption(signals(PREEMPT), history, cutoff=ago(24 * 60)) is not None
