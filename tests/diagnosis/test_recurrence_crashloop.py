"""Recurrence inside a crash loop: each termination of a restarting container is an occurrence.

A phase update and the container termination it reports are one occurrence, not two; a
restart of another category, or one that cannot be placed within the lookback, is not counted.
"""

from __future__ import annotations

from typing import Any

import pytest

from diagnosis.kube.models import Pod
from diagnosis.kube.signals import container_signals, restarts_of
from diagnosis.recurrence import recurrence
from diagnosis.redact import Redactor
from diagnosis.report import Category
from tests.factories import ago, evidence, iso, phase_update, workload

CITE = "kubectl describe pod, namespace runai-nlp"


def looping_pod(
    restarts: int,
    *,
    reason: str = "Error",
    exit_code: int = 1,
    started_min_ago: float = 120,
    last_min_ago: float = 5,
    running: bool = False,
    name: str = "t-0-0",
) -> Pod:
    state: dict[str, Any] = (
        {"running": {"startedAt": iso(ago(last_min_ago - 1))}}
        if running
        else {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s"}}
    )
    return Pod.model_validate(
        {
            "metadata": {"name": name, "namespace": "runai-nlp"},
            "spec": {"nodeName": "dgx-a100-02"},
            "status": {
                "phase": "Running",
                "startTime": iso(ago(started_min_ago)),
                "containerStatuses": [
                    {
                        "name": "trainer",
                        "restartCount": restarts,
                        "state": state,
                        "lastState": {
                            "terminated": {
                                "exitCode": exit_code,
                                "reason": reason,
                                "finishedAt": iso(ago(last_min_ago)),
                            }
                        },
                    }
                ],
            },
        }
    )


def counted(pods: list[Pod], history: list[Any], category: Category, phase: str = "Running") -> int:
    ev = evidence(workload(phase=phase, phaseUpdatedAt=iso(ago(119))), history=history)
    redactor = Redactor()
    signals = [s for p in pods for s in container_signals(p, CITE, redactor)]
    restarts = [r for p in pods for r in restarts_of(p, CITE)]
    ev = ev.model_copy(
        update={"signals": (*ev.signals, *signals), "restarts": tuple(restarts), "tier2": True}
    )
    result = recurrence(ev, category, "24h")
    assert result.count is not None
    assert result.recurring is (result.count >= 2)
    return result.count


RUNNING = [phase_update("Running", 119)]

CASES = [
    # id, pods, history, category, expected count
    ("six-restarts-waiting", [looping_pod(6)], RUNNING, Category.CRASH_APP_ERROR, 7),
    ("six-restarts-running-again", [looping_pod(6, running=True)], RUNNING,
     Category.CRASH_APP_ERROR, 6),
    ("oom-loop", [looping_pod(3, reason="OOMKilled", exit_code=137)], RUNNING,
     Category.OOM_KILLED, 4),
    ("another-category-is-not-counted", [looping_pod(3, reason="OOMKilled", exit_code=137)],
     RUNNING, Category.CRASH_APP_ERROR, 1),
    ("pod-older-than-lookback-only-the-last", [looping_pod(40, started_min_ago=60 * 30)],
     RUNNING, Category.CRASH_APP_ERROR, 1),
    ("last-termination-older-than-lookback",
     [looping_pod(2, started_min_ago=60 * 30, last_min_ago=60 * 26, running=True)],
     RUNNING, Category.CRASH_APP_ERROR, 1),
    ("two-looping-pods-add-up", [looping_pod(2), looping_pod(1, name="t-0-1")], RUNNING,
     Category.CRASH_APP_ERROR, 5),
    ("failed-phase-update-is-the-last-termination",
     [looping_pod(3)],
     [phase_update("Running", 119), phase_update("Failed", 5, "exit code 1")],
     Category.CRASH_APP_ERROR, 4),
    ("earlier-run-plus-this-loop",
     [looping_pod(3)],
     [phase_update("Running", 600), phase_update("Failed", 500, "exit code 1"),
      phase_update("Running", 119)],
     Category.CRASH_APP_ERROR, 5),
]  # fmt: skip


@pytest.mark.parametrize(
    ("pods", "history", "category", "expected"), [pytest.param(*c[1:], id=c[0]) for c in CASES]
)
def test_crash_loop_terminations_are_occurrences(pods, history, category, expected):
    assert counted(pods, history, category) == expected


def test_restarts_of_a_clean_exit_are_not_failures():
    pod = looping_pod(4, exit_code=0, reason="Completed")
    assert list(restarts_of(pod, CITE)) == []
