"""Typed, tolerant models of the Run:ai control-plane responses the engine reads.

Derived from the 2.24 OpenAPI schemas (`Workload`, `WorkloadDetailed`, `Pod1`, `Event2`,
`HistoryRecord1`, `MeasurementResponse`, `WorkloadMeta1` + `*SpecSpec`, `DisplayedCluster`,
`Node`). Every model ignores unknown fields and accepts the field-name differences between
endpoints (`id` vs `workloadId`, `phase` vs `actualPhase`, `arguments` vs `args`, an
environment map vs an array), so a newer control plane does not break the bot.
Only the fields the diagnosis uses are declared. The submitted spec's models live in
`diagnosis.runai.spec_models` (re-exported here).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import AliasChoices, Field, field_validator

from diagnosis.moments import UtcTime
from diagnosis.runai.api_model import ApiModel as _ApiModel
from diagnosis.runai.scheduling_models import PendingSchedulingMessage, RequestedPods
from diagnosis.runai.spec_models import SpecSpec, WorkloadSpec

__all__ = [
    "Cluster",
    "Condition",
    "Container",
    "Event",
    "GpuInfo",
    "HistoryRecord",
    "InvolvedObject",
    "Measurement",
    "MetricValue",
    "Node",
    "NodeCondition",
    "NodeTaint",
    "PhaseUpdate",
    "Pod",
    "ResourceRange",
    "Resources",
    "SpecSpec",
    "Toleration",
    "Workload",
    "WorkloadSpec",
]


class ResourceRange(_ApiModel):
    """A `{request, limit}` pair; quantities stay strings (`16G`), cores stay numbers."""

    request: str | float | None = None
    limit: str | float | None = None


class Resources(_ApiModel):
    """`WorkloadRequestResources` / `PodRequestResources` (only what diagnosis reads)."""

    gpu: ResourceRange | None = None
    cpu: ResourceRange | None = None
    cpu_memory: ResourceRange | None = None
    gpu_request_type: str | None = None
    gpu_memory: ResourceRange | None = None


class Condition(_ApiModel):
    """`Condition1`: a workload condition."""

    type: str
    status: str | None = None
    reason: str | None = None
    message: str | None = None
    last_transition_time: UtcTime | None = None


class Workload(_ApiModel):
    """`Workload` / `WorkloadDetailed` from list and get; also accepts spec-style names."""

    id: str = Field(validation_alias=AliasChoices("id", "workloadId"))
    name: str
    type: str | None = None
    cluster_id: str
    project_id: str | None = None
    project_name: str | None = None
    namespace: str | None = None
    source_api: str | None = None
    created_at: UtcTime | None = None
    completed_at: UtcTime | None = None
    phase: str | None = Field(default=None, validation_alias=AliasChoices("phase", "actualPhase"))
    phase_reason: str | None = None
    phase_message: str | None = None
    phase_updated_at: UtcTime | None = None
    k8s_phase: str | None = Field(default=None, alias="k8sPhase")
    conditions: tuple[Condition, ...] = ()
    running_pods: int | None = None
    workload_requested_resources: Resources | None = None
    pods_requested_resources: Resources | None = None
    images: tuple[str, ...] = ()
    command: str | None = None
    arguments: str | None = Field(default=None, validation_alias=AliasChoices("arguments", "args"))
    # Scheduling fields (the Pending and preemption diagnoses).
    department_id: str | None = None
    department_name: str | None = None
    priority: int | None = None
    priority_class_name: str | None = None
    preemptible: bool | None = None
    requested_node_pools: tuple[str, ...] = ()
    current_node_pools: tuple[str, ...] = ()
    requested_pods: RequestedPods | None = None
    total_pending_time_seconds: int | None = None
    guaranteed_runtime_ends_at: UtcTime | None = None
    pending_scheduling_messages: tuple[PendingSchedulingMessage, ...] | None = None
    total_running_time_seconds: float | None = None

    @field_validator(
        "conditions", "images", "requested_node_pools", "current_node_pools", mode="before"
    )
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return () if value is None else value

    @field_validator("project_id", "department_id", mode="before")
    @classmethod
    def _ids_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


class Container(_ApiModel):
    """`Container1`: only name, image and start time are exposed by Run:ai."""

    name: str
    image: str | None = None
    started_at: UtcTime | None = None


class Toleration(_ApiModel):
    """`PodToleration`: a taint the pod tolerates (an empty key with Exists tolerates all)."""

    key: str | None = None
    operator: str | None = None
    value: str | None = None
    effect: str | None = None

    def tolerates(self, taint: NodeTaint) -> bool:
        """Whether this toleration covers `taint` (the Kubernetes matching rules)."""
        if self.effect and taint.effect and self.effect != taint.effect:
            return False
        if not self.key:
            return (self.operator or "").lower() == "exists"
        if self.key != taint.key:
            return False
        return (self.operator or "equal").lower() == "exists" or self.value == taint.value


class Pod(_ApiModel):
    """`Pod1`. Run:ai pods carry no container states, exit codes or restart counts."""

    id: str | None = None
    name: str
    workload_id: str | None = None
    node_name: str | None = None
    k8s_phase: str | None = Field(default=None, alias="k8sPhase")
    k8s_phase_updated_at: UtcTime | None = Field(default=None, alias="k8sPhaseUpdatedAt")
    created_at: UtcTime | None = None
    completed_at: UtcTime | None = None
    containers: tuple[Container, ...] = ()
    requested_resources: Resources | None = None
    current_node_pool: str | None = None
    #: None when the API did not return them (unknown), () when it returned none.
    tolerations: tuple[Toleration, ...] | None = None
    cluster_id: str | None = None
    project_name: str | None = None  # `verbosity=full` on `/api/v1/workloads/pods`
    workload_name: str | None = None

    @field_validator("containers", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return () if value is None else value


class InvolvedObject(_ApiModel):
    """The object an event is about."""

    kind: str | None = None
    name: str | None = None
    namespace: str | None = None


class Event(_ApiModel):
    """`Event2`: a workload event (no count/firstTimestamp, unlike raw Kubernetes)."""

    created_at: UtcTime | None = None
    id: str | None = None
    type: str | None = None
    reason: str | None = None
    message: str | None = None
    source: str | None = None
    cluster_id: str | None = None
    involved_object: InvolvedObject | None = None


class PhaseUpdate(_ApiModel):
    """`PhaseUpdate`: a phase change recorded in history."""

    phase: str
    phase_message: str | None = None


class _HistoryMeta(_ApiModel):
    creation_timestamp: UtcTime
    type: str


class _HistorySpec(_ApiModel):
    event: Event | None = None
    phase_update: PhaseUpdate | None = None


class HistoryRecord(_ApiModel):
    """`HistoryRecord1`: either an event or a phase update, with its timestamp."""

    meta: _HistoryMeta
    spec: _HistorySpec

    @property
    def at(self) -> datetime:
        """When the record was created."""
        return self.meta.creation_timestamp


class MetricValue(_ApiModel):
    """One sample; Run:ai serialises the value as a string."""

    value: str
    timestamp: UtcTime | None = None


class Measurement(_ApiModel):
    """`MeasurementResponse`: one metric series."""

    type: str
    labels: dict[str, str] | None = None
    values: tuple[MetricValue, ...] = ()

    @field_validator("values", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return () if value is None else value


class Cluster(_ApiModel):
    """`DisplayedCluster`: one item of the bare `/api/v1/clusters` array."""

    uuid: str
    name: str
    version: str | None = None
    status: dict[str, Any] | None = None


class NodeCondition(_ApiModel):
    """`NodeStatusConditionDetails`."""

    type: str
    reason: str | None = None
    message: str | None = None


class NodeTaint(_ApiModel):
    """`NodeTaint`."""

    key: str
    value: str | None = None
    effect: str | None = None


class GpuInfo(_ApiModel):
    """`Node.gpuInfo`: the node's GPU type and how many it has."""

    gpu_type: str | None = None
    gpu_count: int | None = None


class Node(_ApiModel):
    """`Node` from `/api/v1/nodes`."""

    name: str
    cluster_uuid: str | None = None
    status: str | None = None
    conditions: tuple[NodeCondition, ...] = ()
    taints: tuple[NodeTaint, ...] = ()
    node_pool: str | None = None
    updated_at: UtcTime | None = None
    gpu_info: GpuInfo | None = None

    @field_validator("conditions", "taints", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return () if value is None else value
