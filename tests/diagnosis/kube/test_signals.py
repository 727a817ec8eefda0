"""Tier 2 signals: the killed container (not the first), init containers, waiting reasons."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from diagnosis.kube.models import Pod
from diagnosis.kube.node_signals import node_signals
from diagnosis.kube.signals import container_signals
from diagnosis.lexicon import SignalKind
from diagnosis.redact import Redactor
from tests.factories import unreachable_node

CITE = "kubectl describe pod, namespace runai-ml"


def terminated(code: int, reason: str = "Error") -> dict[str, Any]:
    return {
        "terminated": {"exitCode": code, "reason": reason, "finishedAt": "2025-11-04T09:05:59Z"}
    }


def status(
    name: str,
    state: dict[str, Any] | None = None,
    last: dict[str, Any] | None = None,
    restarts: int = 0,
) -> dict[str, Any]:
    return {
        "name": name,
        "state": state or {"running": {}},
        "lastState": last or {},
        "restartCount": restarts,
    }


def pod(
    containers: list[dict[str, Any]], init: list[dict[str, Any]] | None = None, **status_fields: Any
) -> Pod:
    return Pod.model_validate(
        {
            "metadata": {"name": "train-0-0", "namespace": "runai-ml"},
            "spec": {"nodeName": "dgx-a100-07"},
            "status": {
                "phase": "Running",
                "containerStatuses": containers,
                "initContainerStatuses": init or [],
                **status_fields,
            },
        }
    )


def found(p: Pod) -> set[tuple[SignalKind, str | None, int | None]]:
    return {(s.kind, s.detail, s.exit_code) for s in container_signals(p, CITE, Redactor())}


CASES = [
    (
        "oom-in-second-container",
        pod(
            [
                status("metrics-sidecar"),
                status(
                    "trainer",
                    {"waiting": {"reason": "CrashLoopBackOff"}},
                    terminated(137, "OOMKilled"),
                    3,
                ),
            ]
        ),
        {
            (SignalKind.OOM_KILLED, "trainer", None),
            (SignalKind.EXIT_CODE, "trainer", 137),
            (SignalKind.CRASHLOOP, "trainer", None),
        },
    ),
    (
        "oom-in-init-container",
        pod(
            [status("trainer", {"waiting": {"reason": "PodInitializing"}})],
            init=[status("unpack", terminated(137, "OOMKilled"))],
        ),
        {
            (SignalKind.OOM_KILLED, "unpack", None),
            (SignalKind.INIT_FAILED, "unpack", None),
            (SignalKind.EXIT_CODE, "unpack", 137),
        },
    ),
    (
        "init-crashloop",
        pod(
            [status("trainer", {"waiting": {"reason": "PodInitializing"}})],
            init=[
                status("migrate-db", {"waiting": {"reason": "CrashLoopBackOff"}}, terminated(2), 4)
            ],
        ),
        {(SignalKind.INIT_FAILED, "migrate-db", None), (SignalKind.EXIT_CODE, "migrate-db", 2)},
    ),
    (
        "image-pull-waiting-message",
        pod(
            [
                status(
                    "trainer",
                    {
                        "waiting": {
                            "reason": "ErrImagePull",
                            "message": 'failed to pull and unpack image "x": dial tcp: lookup r.internal: no such host',
                        }
                    },
                )
            ]
        ),
        {(SignalKind.IMAGE_PULL, "network", None)},
    ),
    (
        "missing-secret",
        pod(
            [
                status(
                    "trainer",
                    {
                        "waiting": {
                            "reason": "CreateContainerConfigError",
                            "message": 'secret "hf-token" not found',
                        }
                    },
                )
            ]
        ),
        {(SignalKind.MOUNT_FAILED, "hf-token", None)},
    ),
    (
        "exit-0-is-cited-never-a-failure",
        pod([status("trainer", terminated(0, "Completed"))]),
        {(SignalKind.EXIT_CODE, "trainer", 0)},
    ),
    (
        "init-exit-0-is-nothing",
        pod([status("trainer")], init=[status("unpack", terminated(0, "Completed"))]),
        set(),
    ),
    (
        "succeeded-pod-with-killed-sidecar",
        pod(
            [status("trainer", terminated(0, "Completed")), status("log-shipper", terminated(137))],
            phase="Succeeded",
        ),
        {(SignalKind.EXIT_CODE, "trainer", 0)},  # the sidecar's 137 is not a failure
    ),
    ("running-is-nothing", pod([status("trainer")]), set()),
    (
        "evicted",
        pod(
            [status("trainer", terminated(137))],
            reason="Evicted",
            message="The node was low on resource: memory.",
        ),
        {(SignalKind.EXIT_CODE, "trainer", 137), (SignalKind.NODE_EVICTION, None, None)},
    ),
]


@pytest.mark.parametrize(("case", "p", "expected"), CASES, ids=[c[0] for c in CASES])
def test_container_signals(case, p, expected):
    assert found(p) == expected


def test_cited_text_names_container_state_and_source():
    p = pod([status("metrics-sidecar"), status("trainer", None, terminated(137, "OOMKilled"), 3)])
    [oom] = [s for s in container_signals(p, CITE, Redactor()) if s.kind is SignalKind.OOM_KILLED]
    assert oom.source == CITE
    assert (
        oom.text
        == "container trainer lastState: terminated, reason OOMKilled, exit code 137, restarted 3 times"
    )


def test_node_not_ready_within_lookback_only():
    node = unreachable_node("dgx-a100-12", "2025-11-04T08:30:00Z")
    recent = list(node_signals(node, since=datetime(2025, 11, 4, tzinfo=UTC), redactor=Redactor()))
    assert [(s.kind, s.detail) for s in recent] == [(SignalKind.NODE_NOT_READY, "dgx-a100-12")]
    assert "node.kubernetes.io/unreachable:NoExecute" in recent[0].text
    assert "Ready=Unknown since 2025-11-04 08:30:00Z (" in recent[0].text  # as every time
    assert (
        list(node_signals(node, since=datetime(2025, 11, 5, tzinfo=UTC), redactor=Redactor())) == []
    )
