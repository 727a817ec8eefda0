"""What the preemption answer knows: the evictions seen, the reads, and the named parties.

An `Eviction` is one scheduler record of the eviction: a Run:ai event or history event, or
(Tier 2) the victim PodGroup's `Evict` event with its annotations. The raw message is kept
to be parsed whole (a reclaim text carries both queues' figures), and quoted redacted.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from pydantic import BaseModel, ConfigDict

from diagnosis.evidence import Gap, Signal
from diagnosis.kube.event_models import KubeEvent
from diagnosis.preemptibility import Preemptibility, preemptibility
from diagnosis.preemption.texts import (
    ACTION_ANNOTATION,
    ACTIONS,
    EVICTOR_NAME,
    EVICTOR_NAMESPACE,
    EvictText,
    PreemptionKind,
    read_eviction,
)
from diagnosis.report_facts import Party
from diagnosis.request import DiagnosisRequest
from diagnosis.runai.models import Event, HistoryRecord, Measurement, Workload
from diagnosis.runai.scheduling_models import WorkloadPriority

__all__ = [
    "SAME_EVICTION",
    "Eviction",
    "PreemptionEvidence",
    "evictions_of",
    "nearest",
]

#: Records this close to each other describe one eviction.
SAME_EVICTION = timedelta(minutes=2)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class Eviction(BaseModel):
    """One record of an eviction: when, the raw text, where it was read, its annotations."""

    model_config = ConfigDict(frozen=True)

    at: datetime | None
    text: str
    source: str
    origin: str
    said: EvictText | None = None
    annotations: dict[str, str] = {}

    @property
    def action(self) -> PreemptionKind | None:
        """The kind its `evictor-action-type` annotation gives, if any."""
        return ACTIONS.get(self.annotations.get(ACTION_ANNOTATION, "").strip().lower())

    def evictor(self) -> tuple[str | None, str | None]:
        """(namespace, PodGroup) of the preemptor: the annotations, else the text."""
        name = self.annotations.get(EVICTOR_NAME)
        if name:
            return self.annotations.get(EVICTOR_NAMESPACE), name
        if self.said is not None:
            return self.said.namespace, self.said.podgroup
        return None, None


class PreemptionEvidence(BaseModel):
    """Everything read for one preempted workload; None means "could not be read"."""

    model_config = ConfigDict(frozen=True)

    request: DiagnosisRequest
    now: datetime
    cutoff: datetime
    workload: Workload
    decisive: Signal
    signals: tuple[Signal, ...] = ()
    evictions: tuple[Eviction, ...] = ()
    history: tuple[HistoryRecord, ...] | None = None
    metrics: tuple[Measurement, ...] | None = None
    metrics_pool: str | None = None
    priorities: tuple[WorkloadPriority, ...] | None = None
    preemptor: Party | None = None
    preemptor_workload: Workload | None = None
    candidates: tuple[Party, ...] = ()
    gaps: tuple[Gap, ...] = ()
    tier2: bool = False

    @property
    def at(self) -> datetime | None:
        """When it was evicted (the decisive preemption signal's time)."""
        return self.decisive.at

    @property
    def victim_preemptibility(self) -> Preemptibility:
        """Whether the victim could be preempted, by the one rule (`preemptibility`)."""
        return preemptibility(self.workload)


def _eviction(
    message: str | None, at: datetime | None, source: str, origin: str, annotations: dict[str, str]
) -> Eviction | None:
    said = read_eviction(message)
    if said is None and ACTION_ANNOTATION not in annotations:
        return None
    return Eviction(
        at=at,
        text=message or "",
        source=source,
        origin=origin,
        said=said,
        annotations=annotations,
    )


def evictions_of(
    events: Iterable[Event],
    history: Iterable[HistoryRecord],
    podgroup_events: Iterable[KubeEvent] = (),
    podgroup_cite: str = "",
) -> list[Eviction]:
    """Every eviction record in the Run:ai events, history and the PodGroup's events."""
    found: list[Eviction | None] = [
        _eviction(e.message, e.created_at, "get_workload_status", "event", {}) for e in events
    ]
    found += [
        _eviction(r.spec.event.message, r.at, "get_workload_history", "history event", {})
        for r in history
        if r.spec.event is not None
    ]
    found += [
        _eviction(
            e.message,
            e.last_timestamp,
            podgroup_cite,
            f"event {e.reason or '?'} on PodGroup {e.involved_name or '?'}",
            dict(e.annotations),
        )
        for e in podgroup_events
    ]
    return sorted((e for e in found if e is not None), key=lambda e: (e.at is None, e.at or _EPOCH))


def nearest(evictions: Iterable[Eviction], at: datetime | None) -> list[Eviction]:
    """The records of the eviction at `at` (all of them when its time is unknown), newest first."""
    close = [e for e in evictions if at is None or e.at is None or abs(e.at - at) <= SAME_EVICTION]
    return sorted(close, key=lambda e: (e.at is not None, e.at or at or _EPOCH), reverse=True)
