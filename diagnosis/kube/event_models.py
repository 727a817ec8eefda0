"""Kubernetes events: `KubeEvent`, normalised from core/v1 and events.k8s.io/v1 Events.

The raw shapes are read as tolerantly as the other models (`diagnosis.kube.models`): unknown
fields are ignored and `null` reads as the default.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from diagnosis.kube.models import KubeModel, ObjectMeta
from diagnosis.moments import UtcTime

__all__ = ["KubeEvent", "event_from_core", "event_from_events_v1"]


class KubeEvent(KubeModel):
    """One event about an object, from core/v1 or events.k8s.io/v1, normalised.

    `count` is at least 1; `first_timestamp`/`last_timestamp` fall back to `eventTime`, then
    to the event object's `creationTimestamp`; `source_component` is the reporting component
    (``kubelet``, ``default-scheduler``) and `source_host` the node, when reported.
    """

    reason: str | None = None
    message: str | None = None
    type: str | None = None
    count: int = 1
    first_timestamp: UtcTime | None = None
    last_timestamp: UtcTime | None = None
    source_component: str | None = None
    source_host: str | None = None
    involved_kind: str | None = None
    involved_name: str | None = None
    involved_field_path: str | None = None
    annotations: dict[str, str] = Field(default_factory=dict)


# ------------------------------------------------------------------ raw events


class _Reference(KubeModel):
    kind: str | None = None
    name: str | None = None
    field_path: str | None = None


class _Series(KubeModel):
    count: int | None = None
    last_observed_time: UtcTime | None = None


class _Source(KubeModel):
    component: str | None = None
    host: str | None = None


class _RawEvent(KubeModel):
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    reason: str | None = None
    type: str | None = None
    event_time: UtcTime | None = None
    series: _Series = Field(default_factory=_Series)


class _CoreEvent(_RawEvent):
    """core/v1 Event: `involvedObject`, `message`, `count`, `first/lastTimestamp`, `source`."""

    involved_object: _Reference = Field(default_factory=_Reference)
    message: str | None = None
    count: int | None = None
    first_timestamp: UtcTime | None = None
    last_timestamp: UtcTime | None = None
    source: _Source = Field(default_factory=_Source)
    reporting_component: str | None = None


class _EventsV1Event(_RawEvent):
    """events.k8s.io/v1 Event: `regarding`, `note`, `deprecated*`, `reportingController`."""

    regarding: _Reference = Field(default_factory=_Reference)
    note: str | None = None
    deprecated_count: int | None = None
    deprecated_first_timestamp: UtcTime | None = None
    deprecated_last_timestamp: UtcTime | None = None
    deprecated_source: _Source = Field(default_factory=_Source)
    reporting_controller: str | None = None


def event_from_core(raw: Any) -> KubeEvent:
    """A core/v1 Event normalised (raises `pydantic.ValidationError` on a wrong shape)."""
    event = _CoreEvent.model_validate(raw)
    series, source = event.series, event.source
    first = event.first_timestamp or event.event_time or event.metadata.creation_timestamp
    return KubeEvent(
        reason=event.reason,
        message=event.message,
        type=event.type,
        count=max(1, event.count or 0, series.count or 0),
        first_timestamp=first,
        last_timestamp=event.last_timestamp or series.last_observed_time or first,
        source_component=source.component or event.reporting_component or None,
        source_host=source.host or None,
        involved_kind=event.involved_object.kind,
        involved_name=event.involved_object.name,
        involved_field_path=event.involved_object.field_path,
        annotations=event.metadata.annotations,
    )


def event_from_events_v1(raw: Any) -> KubeEvent:
    """An events.k8s.io/v1 Event normalised: `note` → message, `deprecatedCount` → count."""
    event = _EventsV1Event.model_validate(raw)
    series, source = event.series, event.deprecated_source
    first = (
        event.deprecated_first_timestamp or event.event_time or event.metadata.creation_timestamp
    )
    last = event.deprecated_last_timestamp or series.last_observed_time or first
    return KubeEvent(
        reason=event.reason,
        message=event.note,
        type=event.type,
        count=max(1, event.deprecated_count or 0, series.count or 0),
        first_timestamp=first,
        last_timestamp=last,
        source_component=source.component or event.reporting_controller or None,
        source_host=source.host or None,
        involved_kind=event.regarding.kind,
        involved_name=event.regarding.name,
        involved_field_path=event.regarding.field_path,
        annotations=event.metadata.annotations,
    )
