"""Typed models of the Run:ai scheduling reads: org-unit quotas, node pools, telemetry, priorities.

Derived from the 2.24 schemas in `runai-openapi-2.24-scheduling.json` (`Project`,
`Department`, `Resources`, `QuotaStatusNodePool`, `Nodepool`, `TelemetryResponse`,
`WorkloadPriority`) and the workload's `PendingSchedulingMessage`/`RequestedPods`. Like
`diagnosis.runai.models` they ignore unknown fields and declare only what the Pending and
preemption diagnoses read. A figure the body leaves out stays None: a quota nobody read is
never a quota of zero.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator
from pydantic.alias_generators import to_camel

from diagnosis.moments import UtcTime

__all__ = [
    "DepartmentQuota",
    "NodePool",
    "PendingSchedulingMessage",
    "PoolQuotaStatus",
    "ProjectQuota",
    "ProjectResources",
    "QuotaAmounts",
    "QuotaFigure",
    "RequestedPods",
    "Telemetry",
    "WorkloadPriority",
    "is_unlimited",
]


class _ApiModel(BaseModel):
    """Base: camelCase on the wire, snake_case in Python, unknown fields ignored, times in UTC."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True
    )


def _text(value: object) -> object:
    """Ids are strings in some bodies and numbers in others; keep them as text."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _empty(value: object) -> object:
    return () if value is None else value


def is_unlimited(limit: float | None) -> bool:
    """A limit of null or -1 means unlimited (the API's spelling of it is unconfirmed)."""
    return limit is None or limit < 0


class PendingSchedulingMessage(_ApiModel):
    """`PendingSchedulingMessage`: the scheduler's typed reason for one node pool."""

    node_pool: str | None = None
    phase_reason: str | None = None
    reason: str | None = None
    org_type: str | None = None
    user_message: str | None = None


class RequestedPods(_ApiModel):
    """`RequestedPods`: how many pods the workload needs (`min` for an elastic gang)."""

    number: int | None = None
    min: int | None = None
    max: int | None = None


class QuotaFigure(_ApiModel):
    """`NonNullResource` / `Resource`: one resource's deserved quota, limit and weight."""

    deserved: float | None = None
    limit: float | None = None
    over_quota_weight: float | None = None


class _PoolRef(_ApiModel):
    id: str | None = None
    name: str | None = None

    @field_validator("id", mode="before")
    @classmethod
    def _id_text(cls, value: object) -> object:
        return _text(value)


class ProjectResources(_ApiModel):
    """`Resources`: a project's quota in one node pool (GPU; `priority` is the rank)."""

    node_pool: _PoolRef | None = None
    gpu: QuotaFigure | None = None
    priority: str | None = None

    @property
    def pool(self) -> str | None:
        """The node pool's name."""
        return self.node_pool.name if self.node_pool else None


class QuotaAmounts(_ApiModel):
    """`QuotaStatusResource`: GPUs (fractional), CPU millicores and memory MB."""

    gpu: float | None = None
    cpu: float | None = None
    memory: float | None = None


class PoolQuotaStatus(_ApiModel):
    """`QuotaStatusNodePool`: what the project holds and asks for in one node pool, now."""

    node_pool_name: str | None = None
    node_pool_id: str | None = None
    allocated: QuotaAmounts | None = None
    allocated_non_preemptible: QuotaAmounts | None = None
    requested: QuotaAmounts | None = None

    @field_validator("node_pool_id", mode="before")
    @classmethod
    def _id_text(cls, value: object) -> object:
        return _text(value)


class _ProjectStatus(_ApiModel):
    namespace: str | None = None
    phase: str | None = None
    phase_message: str | None = None
    last_updated_time: UtcTime | None = None
    node_pool_quota_statuses: tuple[PoolQuotaStatus, ...] = ()

    @field_validator("node_pool_quota_statuses", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return _empty(value)


class _ProjectEffective(_ApiModel):
    default_node_pools: tuple[str, ...] = ()

    @field_validator("default_node_pools", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return _empty(value)


class _OrgUnitQuota(_ApiModel):
    """An org unit (project or department) with its quota and usage per node pool."""

    id: str
    name: str
    cluster_id: str | None = None
    resources: tuple[ProjectResources, ...] = ()
    status: _ProjectStatus | None = None

    @field_validator("id", mode="before")
    @classmethod
    def _id_text(cls, value: object) -> object:
        return _text(value)

    @field_validator("resources", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return _empty(value)

    def quota_in(self, pool: str) -> ProjectResources | None:
        """The unit's quota in node pool `pool`, if the body lists it."""
        return next((r for r in self.resources if r.pool == pool), None)

    def status_in(self, pool: str) -> PoolQuotaStatus | None:
        """The unit's usage in node pool `pool`, if the body lists it."""
        statuses = self.status.node_pool_quota_statuses if self.status else ()
        return next((s for s in statuses if s.node_pool_name == pool), None)


class ProjectQuota(_OrgUnitQuota):
    """`Project` with its quota (`resources`) and usage (`status`) per node pool."""

    parent_id: str | None = None
    effective: _ProjectEffective | None = None

    @field_validator("parent_id", mode="before")
    @classmethod
    def _parent_text(cls, value: object) -> object:
        return _text(value)

    @property
    def namespace(self) -> str | None:
        """The project's namespace (`status.namespace`)."""
        return self.status.namespace if self.status else None


class DepartmentQuota(_OrgUnitQuota):
    """`Department` with its quota (`resources`) and usage (`status`) per node pool.

    Its usage sums its projects'; its quota is its own (a project within its quota can still
    wait while its department is over the department's).
    """


class _SchedulingConfiguration(_ApiModel):
    min_guaranteed_runtime: str | None = None


class _NodePoolStatus(_ApiModel):
    nodes: tuple[str, ...] = ()

    @field_validator("nodes", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return _empty(value)


class NodePool(_ApiModel):
    """`Nodepool`: a node pool's phase (`Empty`, `Unschedulable`, ...) and its nodes."""

    id: str | None = None
    name: str
    cluster_id: str | None = None
    phase: str | None = None
    phase_message: str | None = None
    is_default: bool | None = None
    status: _NodePoolStatus | None = None
    scheduling_configuration: _SchedulingConfiguration | None = None

    @field_validator("id", mode="before")
    @classmethod
    def _id_text(cls, value: object) -> object:
        return _text(value)


class _TelemetryGroup(_ApiModel):
    key: str
    value: str
    name: str | None = None


class _TelemetryValue(_ApiModel):
    value: str
    groups: tuple[_TelemetryGroup, ...] = ()

    @field_validator("groups", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return _empty(value)


class Telemetry(_ApiModel):
    """`TelemetryResponse`: one telemetry type now, one value per group (e.g. node pool)."""

    type: str
    timestamp: UtcTime | None = None
    values: tuple[_TelemetryValue, ...] = ()

    @field_validator("values", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return _empty(value)

    def for_pool(self, pool: str) -> float | None:
        """The value of node pool `pool`; None when no group names it or it is not a number.

        The group's key spelling is unconfirmed (`Nodepool` in the query; the spec's example
        key is lower-case), so any key naming a node pool, in any case, is accepted.
        """
        for item in self.values:
            if any(
                g.key.replace("_", "").lower() in {"nodepool", "nodepoolname"}
                and pool in {g.value, g.name}
                for g in item.groups
            ):
                try:
                    return float(item.value)
                except ValueError:
                    return None
        return None


class WorkloadPriority(_ApiModel):
    """`WorkloadPriority`: a priority class name and its scheduling value."""

    id: str | None = None
    name: str
    value: int | None = None
