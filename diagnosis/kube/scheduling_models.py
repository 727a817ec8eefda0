"""Typed, tolerant models of the scheduler's Kubernetes objects: PodGroups and Queues.

`scheduling.run.ai/v2alpha2` PodGroup (namespaced) and `scheduling.run.ai/v2` Queue (cluster
scoped), as the KAI scheduler writes them. Unknown fields are ignored and `null` lists read as
empty; quantities stay as written. Only what the Pending and preemption diagnoses read is
declared.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

from diagnosis.kube.models import ObjectMeta
from diagnosis.moments import UtcTime

__all__ = [
    "PodGroup",
    "Queue",
    "SchedulingCondition",
    "SchedulingReason",
    "quantity_number",
]


class _Model(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True
    )


def _empty(value: Any) -> Any:
    return () if value is None else value


def quantity_number(value: object) -> float | None:
    """A plain resource quantity (`4`, `"2"`, `"500m"`) as a number; None when it is not one."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    text = str(value).strip()
    try:
        return float(text[:-1]) / 1000 if text.endswith("m") else float(text)
    except ValueError:
        return None


class SchedulingReason(_Model):
    """One `reasons[]` item of a scheduling condition: the typed reason and its message."""

    reason: str | None = None
    message: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)

    @field_validator("details", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return {} if value is None else value

    def queue_details(self) -> dict[str, Any]:
        """`details.queueDetails` (the scheduler's quota numbers at the time), or empty."""
        found = self.details.get("queueDetails")
        return found if isinstance(found, dict) else {}


class SchedulingCondition(_Model):
    """`status.schedulingConditions[]`: why the group could not be placed in one node pool."""

    type: str | None = None
    node_pool: str | None = None
    reason: str | None = None
    message: str | None = None
    reasons: tuple[SchedulingReason, ...] = ()
    status: str | None = None
    last_transition_time: UtcTime | None = None
    transition_id: str | None = Field(default=None, alias="transitionID")

    @field_validator("reasons", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return _empty(value)

    @property
    def order(self) -> int:
        """The numeric `transitionID` (newest is highest); -1 when absent or not a number."""
        try:
            return int(self.transition_id or "")
        except ValueError:
            return -1


class _PodGroupSpec(_Model):
    min_member: int | None = None
    queue: str | None = None
    priority_class_name: str | None = None
    preemptibility: str | None = None


class _ResourcesStatus(_Model):
    allocated: dict[str, Any] = Field(default_factory=dict)

    @field_validator("allocated", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return {} if value is None else value


class _PodGroupStatus(_Model):
    scheduling_conditions: tuple[SchedulingCondition, ...] = ()
    resources_status: _ResourcesStatus = Field(default_factory=_ResourcesStatus)

    @field_validator("scheduling_conditions", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return _empty(value)

    @field_validator("resources_status", mode="before")
    @classmethod
    def _none_is_default(cls, value: Any) -> Any:
        return {} if value is None else value


class PodGroup(_Model):
    """A PodGroup: its queue, gang minimum, scheduling conditions and allocated resources."""

    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: _PodGroupSpec = Field(default_factory=_PodGroupSpec)
    status: _PodGroupStatus = Field(default_factory=_PodGroupStatus)

    @field_validator("spec", "status", "metadata", mode="before")
    @classmethod
    def _none_is_default(cls, value: Any) -> Any:
        return {} if value is None else value

    @property
    def name(self) -> str:
        """`metadata.name`."""
        return self.metadata.name

    @property
    def allocates(self) -> bool:
        """Whether any of its pods holds resources (its conditions are then not updated)."""
        return any(
            (quantity_number(v) or 0) > 0 for v in self.status.resources_status.allocated.values()
        )

    def conditions_newest_first(self) -> list[SchedulingCondition]:
        """Its scheduling conditions, newest (highest `transitionID`, else last) first."""
        indexed = list(enumerate(self.status.scheduling_conditions))
        indexed.sort(key=lambda pair: (pair[1].order, pair[0]), reverse=True)
        return [c for _, c in indexed]


class _QueueResource(_Model):
    quota: float | None = None
    limit: float | None = None
    over_quota_weight: float | None = None


class _QueueResources(_Model):
    gpu: _QueueResource | None = None


class _QueueSpec(_Model):
    parent_queue: str | None = None
    display_name: str | None = None
    priority: int | None = None
    resources: _QueueResources | None = None


class Queue(_Model):
    """A scheduling Queue: its parent, priority and GPU quota/limit (cluster scoped)."""

    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: _QueueSpec = Field(default_factory=_QueueSpec)

    @property
    def name(self) -> str:
        """`metadata.name`."""
        return self.metadata.name
