"""Signal extraction: the lexicon reads system wording, redacts, and never reads the spec."""

from __future__ import annotations

import pytest

from diagnosis.lexicon import SignalKind
from diagnosis.redact import Redactor
from diagnosis.signals import events_signals, history_signals, pod_signals, status_signals, unique
from tests.factories import event, history_event, phase_update, pod, workload


def kinds(*events):
    return {s.kind for s in events_signals(events, Redactor())}


@pytest.mark.parametrize(
    ("reason", "message", "expected"),
    [
        ("OOMKilled", None, {SignalKind.OOM_KILLED}),
        (
            None,
            "Memory cgroup out of memory: Killed process 4242 (python)",
            {SignalKind.OOM_KILLED},
        ),
        (None, "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB", set()),
        ("BackOff", "Back-off restarting failed container trainer", {SignalKind.CRASHLOOP}),
        ("BackOff", 'Back-off pulling image "x"', {SignalKind.IMAGE_PULL}),
        ("Failed", "Error: ErrImagePull", {SignalKind.IMAGE_PULL}),
        ("FailedMount", 'MountVolume.SetUp failed for volume "d"', {SignalKind.MOUNT_FAILED}),
        (
            "FailedScheduling",
            "0/4 nodes are available: pod has unbound immediate PersistentVolumeClaims",
            {SignalKind.UNSCHEDULABLE},  # never placed: a scheduling Pending, nothing mounted
        ),
        ("Evict", "Pod a/b was preempted by workload a/c.", {SignalKind.PREEMPTED}),
        (
            None,
            "Workload stopped after preemption (terminateAfterPreemption)",
            {SignalKind.PREEMPTED},
        ),
        (None, "Pod a/b was not preempted; retrying", set()),
        (
            "FailedScheduling",
            "0/8 nodes are available: preemption: 0/8 nodes are available: 8 Preemption is not helpful for scheduling.",
            {SignalKind.UNSCHEDULABLE},
        ),
        ("NodeNotReady", "Node dgx-1 status is now: NodeNotReady", {SignalKind.NODE_NOT_READY}),
        (
            "Scheduled",
            "Successfully assigned runai-nlp/x-0-0 to dgx-a100-07",
            {SignalKind.RESTARTED},
        ),
        ("Pulled", "Successfully pulled image", set()),
        ("Started", "Started container trainer", {SignalKind.RESTARTED}),
        (None, None, set()),
    ],
)
def test_event_lexicon(reason, message, expected):
    assert kinds(event(reason, message)) == expected


@pytest.mark.parametrize(
    ("message", "code", "container"),
    [
        ("container trainer terminated with exit code 1", 1, "trainer"),
        ('{"exitCode": 137, "reason": "Error"}', 137, None),
        ("process exited with status 2", 2, None),
        ("Init:ExitCode:3", 3, None),
    ],
)
def test_exit_codes_are_parsed(message, code, container):
    [signal] = [
        s for s in events_signals([event("Failed", message)], Redactor()) if s.exit_code is not None
    ]
    assert (signal.exit_code, signal.detail) == (code, container)


def test_quoted_text_is_redacted():
    """Upstream text is redacted before it becomes evidence."""
    message = "exit code 1: auth failed for postgres://svc:hunter2@db:5432/x token=abcd1234efgh"
    [signal] = events_signals([event("Failed", message)], Redactor())
    assert "hunter2" not in signal.text
    assert "abcd1234efgh" not in signal.text
    assert "[REDACTED:" in signal.text


def test_pod_phases():
    found = {
        s.kind for s in pod_signals([pod("OOMKilled"), pod("Error"), pod("Running")], Redactor())
    }
    assert found == {SignalKind.OOM_KILLED, SignalKind.POD_ERROR}


def test_status_reads_reason_message_and_true_conditions_only():
    wl = workload(
        phaseReason="OOMKilled",
        phaseMessage="",
        conditions=[
            {"type": "Failed", "status": "True", "reason": "ImagePullBackOff", "message": "x"},
            {"type": "Ready", "status": "False", "reason": "CrashLoopBackOff", "message": "old"},
        ],
    )
    assert {s.kind for s in status_signals(wl, Redactor())} == {
        SignalKind.OOM_KILLED,
        SignalKind.IMAGE_PULL,
    }


def test_history_reads_events_and_phase_messages():
    records = [history_event("OOMKilled", "OOM", 30), phase_update("Failed", 29, "exit code 137")]
    found = [(s.kind, s.source) for s in history_signals(records, Redactor())]
    assert (SignalKind.OOM_KILLED, "get_workload_history") in found
    assert (SignalKind.EXIT_CODE, "get_workload_history") in found


def test_same_event_from_events_and_history_is_one_fact():
    ev = event("OOMKilled", "OOM", 30)
    record = history_event("x", "y", 30).model_copy(
        update={"spec": history_event("x", "y", 30).spec.model_copy(update={"event": ev})}
    )
    signals = [*events_signals([ev], Redactor()), *history_signals([record], Redactor())]
    assert len(signals) == 2
    assert len(unique(signals)) == 1
