"""Typed, tolerant models of the Kubernetes objects Tier 2 reads: pods and nodes.

Field names follow the core/v1 API (camelCase on the wire, snake_case here; acronyms such as
`containerID` carry explicit aliases). Unknown fields are ignored and `null` lists read as
empty, so a newer API server does not break the bot. Only the fields the diagnosis uses are
declared. Events, normalised from core/v1 and events.k8s.io/v1, are in `event_models.py`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator
from pydantic.alias_generators import to_camel

from diagnosis.moments import UtcTime

__all__ = [
    "Container",
    "ContainerState",
    "ContainerStatus",
    "KubeModel",
    "KubeNode",
    "NodeCondition",
    "ObjectMeta",
    "Pod",
    "PodCondition",
    "PodSpec",
    "PodStatus",
    "Resources",
    "Running",
    "Taint",
    "Terminated",
    "Volume",
    "Waiting",
]


class KubeModel(BaseModel):
    """Base: camelCase on the wire, snake_case in Python, unknown fields ignored.

    An explicit `null` where the field has a non-null default (a list, an object, a flag)
    reads as that default; a time is in UTC (`diagnosis.moments`).
    """

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True
    )

    @field_validator("*", mode="before")
    @classmethod
    def _null_is_default(cls, value: Any, info: ValidationInfo) -> Any:
        field = cls.model_fields.get(info.field_name or "")
        if value is None and field is not None and not field.is_required():
            return field.get_default(call_default_factory=True, validated_data={})
        return value


class ObjectMeta(KubeModel):
    """`metadata` (only what the diagnosis reads)."""

    name: str = ""
    namespace: str | None = None
    uid: str | None = None
    creation_timestamp: UtcTime | None = None
    deletion_timestamp: UtcTime | None = None
    annotations: dict[str, str] = Field(default_factory=dict)
    labels: dict[str, str] = Field(default_factory=dict)

    @field_validator("labels", "annotations", mode="before")
    @classmethod
    def _label_values(cls, value: Any) -> Any:
        return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else value


class Resources(KubeModel):
    """A container's `resources`: quantities as written (``32Gi``, ``500m``), as strings."""

    requests: dict[str, str] = Field(default_factory=dict)
    limits: dict[str, str] = Field(default_factory=dict)

    @field_validator("requests", "limits", mode="before")
    @classmethod
    def _quantities(cls, value: Any) -> Any:
        return {k: str(v) for k, v in value.items()} if isinstance(value, dict) else value


class Container(KubeModel):
    """A container of the pod spec: name, image and resource quantities as strings.

    `rank` is its `RANK` environment variable, which training operators and launchers set
    to the pod's rank; no other environment value is kept.
    """

    name: str
    image: str | None = None
    resources: Resources = Field(default_factory=Resources)
    rank: int | None = None

    @model_validator(mode="before")
    @classmethod
    def _rank_from_env(cls, data: Any) -> Any:
        if not isinstance(data, dict) or not isinstance(data.get("env"), list):
            return data
        ranks = [
            str(e.get("value"))
            for e in data["env"]
            if isinstance(e, dict) and e.get("name") == "RANK" and str(e.get("value", "")).isdigit()
        ]
        return {**data, "rank": int(ranks[0])} if ranks else data


class _ClaimSource(KubeModel):
    claim_name: str


class _SecretSource(KubeModel):
    secret_name: str | None = None


class _ConfigMapSource(KubeModel):
    name: str | None = None


class Volume(KubeModel):
    """A pod volume; only the PVC, secret and config-map sources are read."""

    name: str
    persistent_volume_claim: _ClaimSource | None = None
    secret: _SecretSource | None = None
    config_map: _ConfigMapSource | None = None


class PodSpec(KubeModel):
    """`spec` of a pod."""

    node_name: str | None = None
    restart_policy: str | None = None
    active_deadline_seconds: int | None = None
    containers: tuple[Container, ...] = ()
    init_containers: tuple[Container, ...] = ()
    volumes: tuple[Volume, ...] = ()


class Waiting(KubeModel):
    """`state.waiting`, e.g. reason ``ImagePullBackOff`` or ``CrashLoopBackOff``."""

    reason: str | None = None
    message: str | None = None


class Running(KubeModel):
    """`state.running`."""

    started_at: UtcTime | None = None


class Terminated(KubeModel):
    """`state.terminated`, e.g. reason ``OOMKilled`` with exit code 137."""

    exit_code: int
    signal: int | None = None
    reason: str | None = None
    message: str | None = None
    started_at: UtcTime | None = None
    finished_at: UtcTime | None = None
    container_id: str | None = Field(default=None, alias="containerID")


class ContainerState(KubeModel):
    """At most one of `waiting`, `running` and `terminated` is set."""

    waiting: Waiting | None = None
    running: Running | None = None
    terminated: Terminated | None = None


class ContainerStatus(KubeModel):
    """A `containerStatuses[]` / `initContainerStatuses[]` item."""

    name: str
    image: str | None = None
    ready: bool = False
    restart_count: int = 0
    started: bool | None = None
    state: ContainerState = Field(default_factory=ContainerState)
    last_state: ContainerState = Field(default_factory=ContainerState)


class PodCondition(KubeModel):
    """A pod condition (`PodScheduled`, `Initialized`, `ContainersReady`, `Ready`, ...)."""

    type: str
    status: str | None = None
    reason: str | None = None
    message: str | None = None
    last_transition_time: UtcTime | None = None


class PodStatus(KubeModel):
    """`status` of a pod; `reason`/`message` carry e.g. ``Evicted`` and the kubelet's why."""

    phase: str | None = None
    reason: str | None = None
    message: str | None = None
    qos_class: str | None = None
    start_time: UtcTime | None = None
    conditions: tuple[PodCondition, ...] = ()
    container_statuses: tuple[ContainerStatus, ...] = ()
    init_container_statuses: tuple[ContainerStatus, ...] = ()


class Pod(KubeModel):
    """A core/v1 Pod, as `kubectl describe pod` shows it."""

    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: PodSpec = Field(default_factory=PodSpec)
    status: PodStatus = Field(default_factory=PodStatus)

    @property
    def name(self) -> str:
        """`metadata.name`."""
        return self.metadata.name


class Taint(KubeModel):
    """A node taint, e.g. ``node.kubernetes.io/unreachable:NoExecute``."""

    key: str
    value: str | None = None
    effect: str | None = None
    time_added: UtcTime | None = None


class NodeCondition(KubeModel):
    """A node condition (`Ready`, `MemoryPressure`, `DiskPressure`, ...)."""

    type: str
    status: str | None = None
    reason: str | None = None
    message: str | None = None
    last_transition_time: UtcTime | None = None
    last_heartbeat_time: UtcTime | None = None


class KubeNode(KubeModel):
    """A core/v1 Node, flattened to what `kubectl describe node` shows for diagnosis.

    Validates either the API object (`metadata.name`, `spec.taints`, `spec.unschedulable`,
    `status.conditions`) or the flat field names.
    """

    name: str
    unschedulable: bool = False
    taints: tuple[Taint, ...] = ()
    conditions: tuple[NodeCondition, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _flatten(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "metadata" not in data:
            return data
        parts = {key: data.get(key) or {} for key in ("metadata", "spec", "status")}
        wrong = [key for key, part in parts.items() if not isinstance(part, dict)]
        if wrong:  # a ValueError is a validation error; an AttributeError would escape
            raise ValueError(f"`{wrong[0]}` is not an object")
        spec, status = parts["spec"], parts["status"]
        return {
            "name": parts["metadata"].get("name"),
            "unschedulable": spec.get("unschedulable"),
            "taints": spec.get("taints"),
            "conditions": status.get("conditions"),
        }
