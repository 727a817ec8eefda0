"""Alertmanager webhook bodies (version 4) as the tests send them."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["TOKEN", "alert", "webhook"]

TOKEN = "am-e2e-token"


def alert(
    *,
    pod: str = "training-job-42-0-0",
    namespace: str = "runai-ml-team",
    status: str = "firing",
    fingerprint: str = "9c4a1e7b2d3f5a60",
    starts_at: str = "2026-11-26T09:14:03.117Z",
    **labels: str,
) -> dict[str, Any]:
    """One alert as kube-prometheus-stack's KubePodCrashLooping carries it."""
    return {
        "status": status,
        "fingerprint": fingerprint,
        "startsAt": starts_at,
        "endsAt": "0001-01-01T00:00:00Z" if status == "firing" else "2026-11-26T10:01:00Z",
        "generatorURL": "http://prometheus.monitoring:9090/graph?g0.expr=x",
        "labels": {
            "alertname": "KubePodCrashLooping",
            "namespace": namespace,
            "pod": pod,
            "container": "pytorch",
            "job": "kube-state-metrics",
            "severity": "warning",
            **labels,
        },
        "annotations": {"summary": "Pod is crash looping."},
    }


def webhook(*alerts: dict[str, Any], status: str = "firing") -> bytes:
    """The body Alertmanager's webhook receiver posts for one group."""
    return json.dumps(
        {
            "version": "4",
            "status": status,
            "receiver": "runai-why",
            "truncatedAlerts": 0,
            "groupKey": '{}:{alertname="KubePodCrashLooping"}',
            "groupLabels": {"alertname": "KubePodCrashLooping"},
            "commonLabels": {},
            "commonAnnotations": {},
            "externalURL": "http://alertmanager.monitoring:9093",
            "alerts": list(alerts),
        }
    ).encode()
