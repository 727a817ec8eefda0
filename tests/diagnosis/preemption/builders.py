"""Builders for the preemption answer's evidence: evictions as the scheduler records them."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from diagnosis.kube.event_models import KubeEvent
from diagnosis.preemption.evidence import PreemptionEvidence, evictions_of
from diagnosis.preemption.party import party
from diagnosis.redact import Redactor
from diagnosis.report_facts import Party
from diagnosis.request import DiagnosisRequest
from diagnosis.runai.models import Event, HistoryRecord, Measurement, Workload
from diagnosis.signals import events_signals, history_signals
from tests.factories import CLUSTER, NOW, ago, event, iso, phase_update, workload

#: The reference's eviction texts (pending-and-preemption.md §5.1), for victim runai-ml-team/v-0-0.
PRIORITY = (
    "Pod runai-ml-team/v-0-0 was preempted by higher priority workload runai-ml-team/eval-prod"
)
RECLAIM = (
    "Pod runai-ml-team/v-0-0 was preempted by workload runai-nlp/pg-serve-70b-0-1a2b3c4d. "
    "ml-team uses 12 GPUs with a quota of 8 GPUs, fair-share of 10 GPUs and queue priority of 100. "
    "nlp uses 4 GPUs with a quota of 16 GPUs, fair-share of 16 GPUs and queue priority of 100."
)
CONSOLIDATION = (
    "Pod runai-ml-team/v-0-0 was preempted and rescheduled due to bin packing (resource "
    "consolidation) procedure"
)
STALE_GANG = (
    "Workload doesn't meet the minimum required number of pods (4), evicting remaining pod: "
    "runai-ml-team/v-0-2"
)
EVICTED = 20  # minutes ago


def victim(**overrides: Any) -> Workload:
    """A preemptible training of ml-team, evicted and requeued as Pending."""
    body: dict[str, Any] = {
        "name": "v",
        "projectName": "ml-team",
        "projectId": "3",
        "namespace": "runai-ml-team",
        "phase": "Pending",
        "phaseUpdatedAt": iso(ago(EVICTED - 0.5)),
        "priority": 50,
        "preemptible": True,
        "requestedNodePools": ["default"],
    }
    body.update(overrides)
    return workload(**body)


def evict(message: str, minutes_ago: float = EVICTED) -> Event:
    """The scheduler's `Evict` event on the victim's PodGroup, as Run:ai lists it."""
    return event(
        "Evict",
        message,
        minutes_ago,
        type="Normal",
        involvedObject={
            "kind": "PodGroup",
            "name": "pg-v-0-3f1c2a9e",
            "namespace": "runai-ml-team",
        },
    )


def annotated(
    message: str, action: str, evictor: str | None = None, namespace: str | None = None
) -> KubeEvent:
    """The same event read from Kubernetes, with the evictor's annotations."""
    annotations = {"evictor-action-type": action}
    if evictor:
        annotations |= {
            "evictor-pod-group-name": evictor,
            "evictor-pod-group-namespace": namespace or "",
        }
    return KubeEvent(
        reason="Evict",
        message=message,
        last_timestamp=ago(EVICTED),
        involved_kind="PodGroup",
        involved_name="pg-v-0-3f1c2a9e",
        annotations=annotations,
    )


def preemptor(
    name: str = "eval-prod", project: str = "ml-team", priority: int | None = 125
) -> Party:
    """A named preemptor whose workload was found."""
    found = workload(
        id="9b1f2a3c-4d5e-4f60-8a7b-9c0d1e2f3a4b",
        name=name,
        projectName=project,
        namespace=f"runai-{project}",
        priority=priority,
        priorityClassName="high",
        phase="Running",
    )
    return party(
        found,
        podgroup=name,
        namespace=f"runai-{project}",
        project=project,
        victim=victim(),
        priorities=None,
    )


def quota_metrics(
    quota: float, allocation: float, minutes_ago: float = EVICTED + 2
) -> list[Measurement]:
    """The project's GPU quota and allocation sampled shortly before the eviction."""

    def series(kind: str, value: float) -> Measurement:
        return Measurement.model_validate(
            {"type": kind, "values": [{"value": str(value), "timestamp": iso(ago(minutes_ago))}]}
        )

    return [series("GPU_QUOTA", quota), series("GPU_ALLOCATION", allocation)]


def preemption_evidence(
    wl: Workload | None = None,
    *,
    events: list[Event] | None = None,
    history: list[HistoryRecord] | None = None,
    kube_events: list[KubeEvent] | None = None,
    by: Party | None = None,
    metrics: list[Measurement] | None = None,
    lookback: timedelta = timedelta(hours=24),
) -> PreemptionEvidence:
    """Evidence assembled as `collect_preemption` assembles it; the newest preemption decides."""
    wl = wl or victim()
    events = events if events is not None else [evict(PRIORITY)]
    history = history if history is not None else [phase_update("Running", 200)]
    redactor = Redactor()
    signals = [*events_signals(events, redactor), *history_signals(history, redactor)]
    preempted = [s for s in signals if s.kind.value == "preempted"]
    decisive = max(preempted, key=lambda s: s.at or NOW)
    return PreemptionEvidence(
        request=DiagnosisRequest(cluster_id=CLUSTER, workload_id=wl.id, lookback=lookback),
        now=NOW,
        cutoff=NOW - lookback,
        workload=wl,
        decisive=decisive,
        signals=tuple(signals),
        evictions=tuple(
            evictions_of(
                events, history, kube_events or [], "kubectl get events, namespace runai-ml-team"
            )
        ),
        history=tuple(history),
        metrics=tuple(metrics) if metrics is not None else None,
        metrics_pool="default",
        preemptor=by,
    )
