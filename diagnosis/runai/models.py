"""Typed, tolerant models of the Run:ai control-plane responses the engine reads.

Derived from the 2.24 OpenAPI schemas (`Workload`, `WorkloadDetailed`, `Pod1`, `Event2`,
`HistoryRecord1`, `MeasurementResponse`, `WorkloadMeta1` + `*SpecSpec`, `DisplayedCluster`,
`Node`). Every model ignores unknown fields and accepts the field-name differences between
endpoints (`id` vs `workloadId`, `phase` vs `actualPhase`, `arguments` vs `args`, an
environment map vs an array), so a newer control plane does not break the bot.
Only the fields the diagnosis uses are declared.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

from diagnosis.runai.scheduling_models import PendingSchedulingMessage, RequestedPods

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
    "Toleration",
    "Workload",
    "WorkloadSpec",
]


class _ApiModel(BaseModel):
    """Base: camelCase on the wire, snake_case in Python, unknown fields ignored."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="ignore",
        frozen=True,
    )


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
    last_transition_time: datetime | None = None


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
    created_at: datetime | None = None
    completed_at: datetime | None = None
    phase: str | None = Field(default=None, validation_alias=AliasChoices("phase", "actualPhase"))
    phase_reason: str | None = None
    phase_message: str | None = None
    phase_updated_at: datetime | None = None
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
    priority: int | None = None
    priority_class_name: str | None = None
    preemptible: bool | None = None
    requested_node_pools: tuple[str, ...] = ()
    current_node_pools: tuple[str, ...] = ()
    requested_pods: RequestedPods | None = None
    total_pending_time_seconds: int | None = None
    guaranteed_runtime_ends_at: datetime | None = None
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
    started_at: datetime | None = None


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
    k8s_phase_updated_at: datetime | None = Field(default=None, alias="k8sPhaseUpdatedAt")
    created_at: datetime | None = None
    completed_at: datetime | None = None
    containers: tuple[Container, ...] = ()
    requested_resources: Resources | None = None
    current_node_pool: str | None = None
    tolerations: tuple[Toleration, ...] = ()
    cluster_id: str | None = None
    project_name: str | None = None  # `verbosity=full` on `/api/v1/workloads/pods`
    workload_name: str | None = None

    @field_validator("containers", "tolerations", mode="before")
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

    created_at: datetime | None = None
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
    creation_timestamp: datetime
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
    timestamp: datetime | None = None


class Measurement(_ApiModel):
    """`MeasurementResponse`: one metric series."""

    type: str
    labels: dict[str, str] | None = None
    values: tuple[MetricValue, ...] = ()

    @field_validator("values", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return () if value is None else value


class EnvVar(_ApiModel):
    """An environment variable of the submitted spec (array form)."""

    name: str | None = None
    value: str | None = None
    secret: dict[str, Any] | None = None
    config_map: dict[str, Any] | None = None


class _Compute(_ApiModel):
    cpu_memory_request: str | None = None
    cpu_memory_limit: str | None = None
    gpu_devices_request: float | None = None
    gpu_portion_request: float | None = None
    gpu_memory_request: str | None = None


class PvcMount(_ApiModel):
    """A PVC entry of `spec.storage.pvc`."""

    name: str | None = None
    claim_name: str | None = None
    path: str | None = None


#: What names a data source in each `spec.storage` list (`pvc`, `nfs`, `s3`, `git`, ...).
_SOURCE_NAMES = ("claimName", "name", "bucket", "repository", "server", "path")


class _Storage(_ApiModel):
    pvc: tuple[PvcMount, ...] = ()
    sources: tuple[str, ...] = ()  # `<kind> <name>` of every data source, whatever its kind

    @field_validator("pvc", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return () if value is None else value

    @model_validator(mode="before")
    @classmethod
    def _every_source(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        found = []
        for kind, items in data.items():
            for item in items if isinstance(items, list) else ():
                if isinstance(item, dict):
                    name = next((item[k] for k in _SOURCE_NAMES if item.get(k)), "?")
                    found.append(f"{kind} {name}")
        return {**data, "sources": tuple(found)}


class _NameValue(_ApiModel):
    name: str | None = None
    value: str | None = None


class SpecSpec(_ApiModel):
    """The kind-specific `spec` object (training, workspace, inference, distributed)."""

    image: str | None = None
    image_pull_policy: str | None = None
    command: str | None = None
    args: str | None = Field(default=None, validation_alias=AliasChoices("args", "arguments"))
    compute: _Compute | None = None
    storage: _Storage | None = None
    environment_variables: tuple[EnvVar, ...] = ()
    annotations: tuple[_NameValue, ...] = ()
    restart_policy: str | None = None
    backoff_limit: int | None = None
    node_pools: tuple[str, ...] = ()

    @field_validator("node_pools", mode="before")
    @classmethod
    def _pools(cls, value: Any) -> Any:
        return () if value is None else value

    @field_validator("environment_variables", mode="before")
    @classmethod
    def _env_map_or_array(cls, value: Any) -> Any:
        if value is None:
            return ()
        if isinstance(value, dict):
            return tuple({"name": k, "value": v} for k, v in value.items())
        return value

    @field_validator("annotations", mode="before")
    @classmethod
    def _annotations_map_or_array(cls, value: Any) -> Any:
        if value is None:
            return ()
        if isinstance(value, dict):
            return tuple({"name": k, "value": v} for k, v in value.items())
        return value


class WorkloadSpec(_ApiModel):
    """`Training1` / `Workspace1` / `Inference1` / `DistributedWorkload`: meta plus `spec`."""

    workload_id: str | None = Field(default=None, validation_alias=AliasChoices("workloadId", "id"))
    name: str | None = None
    desired_phase: str | None = None
    actual_phase: str | None = Field(
        default=None, validation_alias=AliasChoices("actualPhase", "phase")
    )
    spec: SpecSpec | None = None
    kind_path: str | None = None  # which endpoint served it; set by the client, not the API


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
    updated_at: datetime | None = None
    gpu_info: GpuInfo | None = None

    @field_validator("conditions", "taints", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return () if value is None else value
