"""Evidence that is there is cited: a start failure's cause, and each signal with its own time.

A container that never started (`StartError`, exit 128) has its cause in the termination
message and the kubelet's `Failed` event (`exec: "trainx": executable file not found in
$PATH`): the report quotes it and the advice follows it, instead of "start from the exit
code". A taint-manager eviction is dated by the eviction, the node's NotReady by the node.
"""

from __future__ import annotations

from typing import Any

import pytest

from diagnosis.compose import compose
from diagnosis.evidence import Signal
from diagnosis.exitcodes import describe_exit_code
from diagnosis.kube.event_models import event_from_core
from diagnosis.kube.models import Pod
from diagnosis.kube.node_signals import node_signals
from diagnosis.kube.signals import container_signals, event_signals
from diagnosis.lexicon import SignalKind
from diagnosis.redact import Redactor
from diagnosis.report import Category
from diagnosis.rules import classify
from tests.factories import ago, evidence, iso, pod, unreachable_node, workload

NS = "runai-nlp"
DESCRIBE = f"kubectl describe pod, namespace {NS}"
EVENTS = f"kubectl get events, namespace {NS}"
START_MESSAGE = (
    "failed to create containerd task: failed to create shim task: OCI runtime create failed: "
    'runc create failed: unable to start container process: exec: "trainx": executable file '
    "not found in $PATH: unknown"
)
CAUSE = 'exec: "trainx": executable file not found in $PATH'


def _start_error_pod(*, message: str | None = START_MESSAGE, restarts: int = 0) -> Pod:
    terminated: dict[str, Any] = {
        "exitCode": 128,
        "reason": "StartError",
        "startedAt": "1970-01-01T00:00:00Z",
        "finishedAt": iso(ago(10)),
    }
    if message is not None:
        terminated["message"] = message
    status: dict[str, Any] = {"name": "trainer", "restartCount": restarts}
    if restarts:
        status["state"] = {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 20s"}}
        status["lastState"] = {"terminated": terminated}
    else:
        status["state"] = {"terminated": terminated}
    return Pod.model_validate(
        {
            "metadata": {"name": "bert-ft-0-0", "namespace": NS},
            "spec": {"nodeName": "dgx-a100-07", "containers": [{"name": "trainer"}]},
            "status": {"phase": "Failed", "startTime": iso(ago(12)), "containerStatuses": [status]},
        }
    )


def _kubelet_failed_event() -> Any:
    return event_from_core(
        {
            "metadata": {"name": "bert-ft-0-0.17f", "namespace": NS},
            "involvedObject": {"kind": "Pod", "name": "bert-ft-0-0"},
            "reason": "Failed",
            "message": f"Error: {START_MESSAGE}",
            "lastTimestamp": iso(ago(10)),
            "type": "Warning",
        }
    )


def _with(pod_: Pod | None, events: list[Any] = ()) -> Any:  # type: ignore[assignment]
    redactor = Redactor()
    signals: list[Signal] = []
    if pod_ is not None:
        signals.extend(container_signals(pod_, DESCRIBE, redactor))
    signals.extend(event_signals(events, EVENTS, redactor))
    ev = evidence(workload(phaseMessage=""), pods=[pod("Failed")])
    return ev.model_copy(update={"signals": (*ev.signals, *signals), "tier2": True})


START_CASES = [
    pytest.param(_with(_start_error_pod()), id="termination-message"),
    pytest.param(
        _with(_start_error_pod(message=None), [_kubelet_failed_event()]), id="kubelet-event"
    ),
    pytest.param(_with(_start_error_pod(restarts=4)), id="crash-looping-start-error"),
]


@pytest.mark.parametrize("ev", START_CASES)
def test_a_start_failure_cites_its_cause(ev):
    """The skill: a non-zero main-container exit is CRASH_APP_ERROR; cite the failing cause."""
    finding = classify(ev)
    report = compose(ev, finding)

    assert report.category is Category.CRASH_APP_ERROR
    assert CAUSE in report.headline
    assert any(CAUSE in e.text for e in report.evidence), report.evidence
    advice = " ".join(report.recommendations)
    assert "start from the exit code" not in advice
    assert "entrypoint" in advice
    assert report.details["log_kind"] == "start-error"


def test_a_missing_executable_is_not_a_missing_volume():
    """`CreateContainerError` "... not found in $PATH" is a start failure, not a mount failure."""
    waiting = Pod.model_validate(
        {
            "metadata": {"name": "bert-ft-0-0", "namespace": NS},
            "spec": {"containers": [{"name": "trainer"}]},
            "status": {
                "phase": "Pending",
                "containerStatuses": [
                    {
                        "name": "trainer",
                        "state": {
                            "waiting": {"reason": "CreateContainerError", "message": START_MESSAGE}
                        },
                    }
                ],
            },
        }
    )
    kinds = {s.kind for s in container_signals(waiting, DESCRIBE, Redactor())}
    assert SignalKind.MOUNT_FAILED not in kinds
    assert SignalKind.START_ERROR in kinds


def test_exit_128_is_described():
    assert "could not start" in describe_exit_code(128)


# ------------------------------------------------------------------ each signal, its own time

UNREACHABLE_AT = ago(40)
EVICTED_AT = ago(35)


def test_a_taint_manager_eviction_is_dated_by_the_eviction():
    node = unreachable_node("dgx-a100-09", UNREACHABLE_AT)
    evicted = event_from_core(
        {
            "metadata": {"name": "vit-0-0.1", "namespace": NS},
            "involvedObject": {"kind": "Pod", "name": "vit-0-0"},
            "reason": "TaintManagerEviction",
            "message": f"Marking for deletion Pod {NS}/vit-0-0",
            "lastTimestamp": iso(EVICTED_AT),
        }
    )
    redactor = Redactor()
    signals = [
        *node_signals(node, since=ago(60 * 24), redactor=redactor),
        *event_signals([evicted], EVENTS, redactor),
    ]
    ev = evidence()
    ev = ev.model_copy(update={"signals": (*ev.signals, *signals), "tier2": True})

    finding = classify(ev)

    assert finding.category is Category.NODE_FAILURE
    assert f"{UNREACHABLE_AT:%Y-%m-%d %H:%M:%SZ}" in finding.headline
    assert f"evicted the pod at {EVICTED_AT:%Y-%m-%d %H:%M:%SZ}" in finding.headline
