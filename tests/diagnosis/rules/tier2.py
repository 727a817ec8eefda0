"""Builders for Tier 2 (Kubernetes) evidence, extracted exactly as collection extracts it."""

from __future__ import annotations

from typing import Any

from diagnosis.evidence import Evidence, Gap, Restarts, Signal
from diagnosis.kube.log_signals import log_signal
from diagnosis.kube.models import Pod
from diagnosis.kube.signals import container_signals, restarts_of, source
from diagnosis.logs import failing_line
from diagnosis.redact import Redactor
from diagnosis.report import EvidenceLine
from tests.factories import NOW, iso

NAMESPACE = "runai-nlp"
POD = "bert-ft-0-0"
DESCRIBE = source("kubectl describe pod", NAMESPACE)
LOGS = source("kubectl logs --previous", NAMESPACE)


def container(
    name: str,
    *,
    memory: str | None = None,
    reason: str | None = None,
    exit_code: int | None = None,
    restarts: int = 0,
    previous_exit: int | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(spec entry, status entry) of one container; terminated when `exit_code` is given.

    `previous_exit` gives it a `lastState.terminated` (an earlier run) with that exit code.
    """
    spec: dict[str, Any] = {"name": name, "image": "nvcr.io/nvidia/pytorch:24.05-py3"}
    if memory is not None:
        spec["resources"] = {"requests": {"memory": memory}, "limits": {"memory": memory}}
    status: dict[str, Any] = {"name": name, "restartCount": restarts}
    if exit_code is not None:
        status["state"] = {
            "terminated": {"exitCode": exit_code, "reason": reason, "finishedAt": iso(NOW)}
        }
    if previous_exit is not None:
        status["lastState"] = {
            "terminated": {"exitCode": previous_exit, "reason": "Error", "finishedAt": iso(NOW)}
        }
    return spec, status


def pod(
    main: list[tuple[dict[str, Any], dict[str, Any]]],
    init: list[tuple[dict[str, Any], dict[str, Any]]] = (),  # type: ignore[assignment]
    *,
    phase: str = "Failed",
) -> Pod:
    """A Kubernetes pod with these (spec, status) containers."""
    return Pod.model_validate(
        {
            "metadata": {"name": POD, "namespace": NAMESPACE},
            "spec": {
                "nodeName": "dgx-a100-07",
                "containers": [c[0] for c in main],
                "initContainers": [c[0] for c in init],
            },
            "status": {
                "phase": phase,
                "containerStatuses": [c[1] for c in main],
                "initContainerStatuses": [c[1] for c in init],
            },
        }
    )


def with_tier2(
    ev: Evidence,
    kube_pod: Pod | None = None,
    *,
    log: tuple[str, str] | None = None,
    lines: tuple[EvidenceLine, ...] = (),
    gaps: tuple[Gap, ...] = (),
) -> Evidence:
    """`ev` as collection leaves it when Tier 2 described `kube_pod` and read `log`.

    `log` is (container, log text); its failing line becomes the log signal.
    """
    redactor = Redactor()
    signals: list[Signal] = []
    memory: dict[str, tuple[str | None, str | None, str]] = {}
    restarts: list[Restarts] = []
    if kube_pod is not None:
        signals.extend(container_signals(kube_pod, DESCRIBE, redactor))
        restarts.extend(restarts_of(kube_pod, DESCRIBE))
        for c in (*kube_pod.spec.init_containers, *kube_pod.spec.containers):
            res = c.resources
            if "memory" in res.requests or "memory" in res.limits:
                memory[c.name] = (res.requests.get("memory"), res.limits.get("memory"), DESCRIBE)
    if log is not None:
        name, text = log
        line = failing_line(text)
        if line is not None:
            signals.append(log_signal(line, container=name, cite=LOGS, redactor=redactor))
    return ev.model_copy(
        update={
            "signals": (*ev.signals, *signals),
            "tier2": True,
            "container_memory": memory,
            "tier2_lines": lines,
            "gaps": (*ev.gaps, *gaps),
            "restarts": (*ev.restarts, *restarts),
        }
    )
