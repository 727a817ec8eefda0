"""Builders for Run:ai objects and Evidence, with sensible defaults overridden per test."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import count
from typing import Any

from diagnosis.evidence import Evidence
from diagnosis.kube.models import KubeNode
from diagnosis.redact import Redactor
from diagnosis.report import Outcome, Report
from diagnosis.request import DiagnosisRequest
from diagnosis.rules import row
from diagnosis.runai.models import Event, HistoryRecord, Measurement, Pod, Workload, WorkloadSpec
from diagnosis.signals import events_signals, history_signals, pod_signals, status_signals

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
CLUSTER = "71f69d83-ba66-4822-adf5-55ce55efd210"
WORKLOAD_ID = "3f1c2a9e-5b7d-4c1e-9a2f-8d6b0e4c7a11"
_ids = count(1)


def ago(minutes: float) -> datetime:
    return NOW - timedelta(minutes=minutes)


def iso(when: datetime) -> str:
    return when.isoformat().replace("+00:00", "Z")


def workload(**overrides: Any) -> Workload:
    body: dict[str, Any] = {
        "id": WORKLOAD_ID,
        "name": "bert-ft",
        "type": "Training",
        "clusterId": CLUSTER,
        "projectName": "nlp",
        "namespace": "runai-nlp",
        "phase": "Failed",
        "phaseUpdatedAt": iso(ago(10)),
        "conditions": [],
    }
    body.update(overrides)
    return Workload.model_validate(body)


def event(reason: str | None, message: str | None, minutes_ago: float = 12, **extra: Any) -> Event:
    body: dict[str, Any] = {
        "createdAt": iso(ago(minutes_ago)),
        "id": f"00000000-0000-4000-8000-{next(_ids):012d}",
        "type": "Warning",
        "reason": reason,
        "message": message,
        "clusterId": CLUSTER,
    }
    body.update(extra)
    return Event.model_validate(body)


def pod(k8s_phase: str = "Failed", **overrides: Any) -> Pod:
    body: dict[str, Any] = {
        "name": "bert-ft-0-0",
        "workloadId": WORKLOAD_ID,
        "nodeName": "dgx-a100-07",
        "k8sPhase": k8s_phase,
        "k8sPhaseUpdatedAt": iso(ago(10)),
        "containers": [{"name": "bert-ft", "image": "nvcr.io/nvidia/pytorch:24.05-py3"}],
    }
    body.update(overrides)
    return Pod.model_validate(body)


def phase_update(phase: str, minutes_ago: float, message: str = "") -> HistoryRecord:
    return HistoryRecord.model_validate(
        {
            "meta": {"creationTimestamp": iso(ago(minutes_ago)), "type": "PhaseUpdate"},
            "spec": {"phaseUpdate": {"phase": phase, "phaseMessage": message}},
        }
    )


def history_event(reason: str, message: str, minutes_ago: float) -> HistoryRecord:
    ev = event(reason, message, minutes_ago)
    return HistoryRecord.model_validate(
        {
            "meta": {"creationTimestamp": iso(ago(minutes_ago)), "type": "Event"},
            "spec": {"event": ev.model_dump(by_alias=True, mode="json")},
        }
    )


def spec(**spec_fields: Any) -> WorkloadSpec:
    return WorkloadSpec.model_validate({"workloadId": WORKLOAD_ID, "spec": spec_fields})


def usage(*values: int) -> Measurement:
    return Measurement.model_validate(
        {
            "type": "CPU_MEMORY_USAGE_BYTES",
            "values": [
                {"value": str(v), "timestamp": iso(ago(30 - i))} for i, v in enumerate(values)
            ],
        }
    )


def evidence(
    wl: Workload | None = None,
    *,
    events: list[Event] | None = None,
    pods: list[Pod] | None = None,
    history: list[HistoryRecord] | None = None,
    spec_: WorkloadSpec | None = None,
    metrics: list[Measurement] | None = None,
    metrics_requested: bool = False,
    lookback: timedelta = timedelta(hours=24),
) -> Evidence:
    """Evidence whose signals are extracted exactly as the pipeline extracts them."""
    wl = wl or workload()
    redactor = Redactor()
    signals = [
        *status_signals(wl, redactor),
        *events_signals(events or [], redactor),
        *pod_signals(pods or [], redactor),
        *history_signals(history or [], redactor),
    ]
    return Evidence(
        request=DiagnosisRequest(cluster_id=CLUSTER, workload_id=wl.id, lookback=lookback),
        now=NOW,
        cutoff=NOW - lookback,
        workload=wl,
        events=tuple(events) if events is not None else None,
        pods=tuple(pods) if pods is not None else None,
        history=tuple(history) if history is not None else None,
        spec=spec_,
        metrics=tuple(metrics) if metrics is not None else None,
        metrics_requested=metrics_requested,
        signals=tuple(signals),
    )


def unreachable_node_body(name: str, since: datetime | str) -> dict[str, Any]:
    """A Kubernetes node, as the API serves it, whose kubelet stopped posting status at `since`."""
    changed = since if isinstance(since, str) else iso(since)
    return {
        "metadata": {"name": name},
        "spec": {"taints": [{"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}]},
        "status": {
            "conditions": [
                {
                    "type": "Ready",
                    "status": "Unknown",
                    "reason": "NodeStatusUnknown",
                    "message": "Kubelet stopped posting node status.",
                    "lastTransitionTime": changed,
                }
            ]
        },
    }


def unreachable_node(name: str, since: datetime | str) -> KubeNode:
    """`unreachable_node_body` as the model Tier 2 reads it."""
    return KubeNode.model_validate(unreachable_node_body(name, since))


def report(outcome: Outcome = Outcome.DIAGNOSED, **fields: Any) -> Report:
    """A Report as a composer builds it: a categorised one names its category's owner.

    The composers set `recovery_owner` (the report model does not); a test report that has
    a category and no owner given gets the one its registry row names.
    """
    category = fields.get("category")
    if category is not None and "recovery_owner" not in fields:
        fields["recovery_owner"] = row(category).owner
    return Report(outcome=outcome, **fields)
