"""The scenario file: what the simulated Run:ai control plane serves, loaded and checked."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from runai_sim.access import ACCESS_KEYS, check_items
from runai_sim.faults import FaultRule
from runai_sim.filters import parse_datetime

__all__ = [
    "DEFAULT_CLIENT_ID",
    "DEFAULT_CLIENT_SECRET",
    "DEFAULT_KUBE_TOKEN",
    "REQUIRED_FIELDS",
    "ContainerLogs",
    "Credentials",
    "Kind",
    "KubernetesView",
    "Scenario",
    "ScenarioError",
    "WorkloadEntry",
]

DEFAULT_CLIENT_ID = "runai-why-demo"
DEFAULT_CLIENT_SECRET = "demo-secret"  # noqa: S105 - the published demo secret.
DEFAULT_KUBE_TOKEN = "demo-kube-token"  # noqa: S105 - the published demo token.

Kind = Literal[
    "trainings", "workspaces", "inferences", "distributed", "distributed-inferences", "v2"
]
_KIND_BY_TYPE: dict[str, Kind] = {
    "training": "trainings",
    "workspace": "workspaces",
    "inference": "inferences",
    "distributed": "distributed",
}

#: Required members of each served body, per the 2.24 OpenAPI schemas (see `schema_problems`).
REQUIRED_FIELDS: dict[str, tuple[str, ...]] = {
    "Workload": tuple(
        "id name type category tenantId clusterId projectId projectName departmentId "  # noqa: SIM905 - a word list reads better.
        "departmentName namespace source createdAt updatedAt deletedAt phase phaseUpdatedAt "
        "k8sPhase k8sPhaseUpdatedAt conditions runningPods priority priorityClassName".split()
    ),
    "Pod1": tuple(
        "id name workloadId clusterId tenantId priorityClassName k8sPhase k8sPhaseUpdatedAt "  # noqa: SIM905 - a word list reads better.
        "createdAt updatedAt containers".split()
    ),
    "Event2": ("createdAt", "type", "clusterId", "message"),
    "HistoryRecord1": ("meta", "spec"),
    "MeasurementResponse": ("type", "values"),
    "DisplayedCluster": ("uuid", "tenantId", "name", "createdAt"),
    "Node": ("name", "clusterUuid", "status", "nodePool", "createdAt", "updatedAt"),
}


#: The scheduling keys, and the members each item must have.
_SCHEDULING_KEYS: dict[str, tuple[str, ...]] = {
    "node_pools": ("id", "name"),
    "nodes_telemetry": ("type", "values"),
    "workload_priorities": ("id", "name", "value"),
    "project_metrics": ("projectId", "measurements"),
}


class ScenarioError(ValueError):
    """A scenario file that cannot be served; the message names the file and the key."""


def _drop_comments(data: Any) -> Any:
    """Keys starting with `_` are comments in a scenario object and are ignored."""
    if isinstance(data, Mapping):
        return {k: v for k, v in data.items() if not str(k).startswith("_")}
    return data


def _check_time(value: Any, where: str, *, nullable: bool = False) -> None:
    if value is None and nullable:
        return
    if not isinstance(value, str):
        raise ValueError(f"{where} must be an ISO-8601 date-time string")  # noqa: TRY004 - pydantic reports ValueError only.
    try:
        parse_datetime(value)
    except ValueError:
        raise ValueError(f"{where} is not an ISO-8601 date-time: {value!r}") from None


class Credentials(BaseModel):
    """The only client id and secret the simulator accepts."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    client_id: str = Field(default=DEFAULT_CLIENT_ID, min_length=1)
    client_secret: str = Field(default=DEFAULT_CLIENT_SECRET, min_length=1)


class WorkloadEntry(BaseModel):
    """One workload and everything served about it, as raw API bodies."""

    model_config = ConfigDict(extra="forbid")

    kind: Kind | None = None
    workload: dict[str, Any]
    spec: dict[str, Any] | None = None
    pods: list[dict[str, Any]] = Field(default_factory=list)
    events: list[dict[str, Any]] | None = Field(default_factory=list)
    history: list[dict[str, Any]] = Field(default_factory=list)
    metrics: list[dict[str, Any]] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _ignore_comments(cls, data: Any) -> Any:
        return _drop_comments(data)

    @field_validator("workload")
    @classmethod
    def _has_id(cls, value: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(value.get("id"), str) or not value["id"]:
            raise ValueError("id is missing (the workload id every path uses)")
        return value

    @field_validator("events")
    @classmethod
    def _events_dated(cls, value: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
        for index, event in enumerate(value or []):
            _check_time(event.get("createdAt"), f"[{index}].createdAt")
        return value

    @field_validator("metrics")
    @classmethod
    def _metrics_shaped(cls, value: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for index, series in enumerate(value):
            if not isinstance(series.get("type"), str):
                raise ValueError(f"[{index}].type is missing")  # noqa: TRY004 - pydantic reports ValueError only.
            values = series.get("values")
            if values is not None and not isinstance(values, list):
                raise ValueError(f"[{index}].values must be a list or null")
            for n, point in enumerate(values or []):
                if not isinstance(point, Mapping):
                    raise ValueError(f"[{index}].values[{n}] must be an object")  # noqa: TRY004 - pydantic reports ValueError only.
                _check_time(
                    point.get("timestamp"), f"[{index}].values[{n}].timestamp", nullable=True
                )
        return value

    @property
    def id(self) -> str:
        """The workload id (`workload.id`)."""
        return str(self.workload["id"])

    @property
    def resolved_kind(self) -> Kind:
        """Which spec path serves `spec`: `kind`, else from `workload.type`, else trainings."""
        if self.kind is not None:
            return self.kind
        return _KIND_BY_TYPE.get(str(self.workload.get("type", "")).lower(), "trainings")


class ContainerLogs(BaseModel):
    """One container's log texts: its previous (terminated) instance and its current one."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    previous: str | None = None
    current: str | None = None


class KubernetesView(BaseModel):
    """The `kubernetes` key: the objects the fake Kubernetes API (`runai_sim.kube`) serves."""

    model_config = ConfigDict(extra="forbid")

    token: str = Field(default=DEFAULT_KUBE_TOKEN, min_length=1)
    clusters: list[str] | None = None
    pods: list[dict[str, Any]] = Field(default_factory=list)
    events: list[dict[str, Any]] = Field(default_factory=list)
    logs: dict[str, ContainerLogs] = Field(default_factory=dict)
    nodes: list[dict[str, Any]] = Field(default_factory=list)
    podgroups: list[dict[str, Any]] = Field(default_factory=list)
    queues: list[dict[str, Any]] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _ignore_comments(cls, data: Any) -> Any:
        return _drop_comments(data)

    @field_validator("pods", "events", "nodes", "podgroups", "queues")
    @classmethod
    def _named(cls, value: list[dict[str, Any]], info: ValidationInfo) -> list[dict[str, Any]]:
        cluster_scoped = info.field_name in {"nodes", "queues"}
        keys = ("name",) if cluster_scoped else ("namespace", "name")
        for index, item in enumerate(value):
            meta = item.get("metadata")
            if not isinstance(meta, dict):
                raise ValueError(f"[{index}].metadata is missing")  # noqa: TRY004 - pydantic reports ValueError only.
            for key in keys:
                if not isinstance(meta.get(key), str) or not meta[key]:
                    raise ValueError(f"[{index}].metadata.{key} is missing")
        return value

    @model_validator(mode="after")
    def _logs_name_containers(self) -> KubernetesView:
        known = {
            f"{pod['metadata']['namespace']}/{pod['metadata']['name']}/{container.get('name')}"
            for pod in self.pods
            if isinstance(spec := pod.get("spec"), dict)
            for group in ("containers", "initContainers")
            for container in spec.get(group) or []
            if isinstance(container, dict)
        }
        for key in self.logs:
            if key not in known:
                raise ValueError(f"logs.{key}: no such container (key: namespace/pod/container)")
        return self


class Scenario(BaseModel):
    """A whole scenario file. Bodies are kept as raw JSON and served as written."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    description: str = ""
    now: AwareDatetime
    clusters: list[dict[str, Any]] = Field(default_factory=list)
    workloads: list[WorkloadEntry] = Field(default_factory=list)
    nodes: list[dict[str, Any]] = Field(default_factory=list)
    kubernetes: KubernetesView | None = None
    faults: list[FaultRule] = Field(default_factory=list)
    latency_ms: int = Field(default=0, ge=0)
    expect: Any = None  # the end-to-end tests own its shape (object or list); ignored here
    credentials: Credentials = Field(default_factory=Credentials)
    # The access model (runai_sim.access); None: derived, or (access_rules) everyone reads all.
    users: list[dict[str, Any]] | None = None
    access_rules: list[dict[str, Any]] | None = None
    roles: list[dict[str, Any]] | None = None
    projects: list[dict[str, Any]] | None = None
    departments: list[dict[str, Any]] | None = None
    # Scheduling (runai_sim.scheduling): node pools, telemetry, priorities, project metrics.
    node_pools: list[dict[str, Any]] | None = None
    nodes_telemetry: list[dict[str, Any]] = Field(default_factory=list)
    workload_priorities: list[dict[str, Any]] | None = None
    project_metrics: list[dict[str, Any]] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _ignore_comments(cls, data: Any) -> Any:
        return _drop_comments(data)

    @field_validator(*ACCESS_KEYS)
    @classmethod
    def _access_items(
        cls, value: list[dict[str, Any]] | None, info: ValidationInfo
    ) -> list[dict[str, Any]] | None:
        return check_items(str(info.field_name), value)

    @field_validator("node_pools", "nodes_telemetry", "workload_priorities", "project_metrics")
    @classmethod
    def _scheduling_items(
        cls, value: list[dict[str, Any]] | None, info: ValidationInfo
    ) -> list[dict[str, Any]] | None:
        required = _SCHEDULING_KEYS[str(info.field_name)]
        for index, item in enumerate(value or []):
            missing = [member for member in required if member not in item]
            if missing:
                raise ValueError(f"[{index}] lacks {', '.join(missing)}")
        return value

    @field_validator("clusters")
    @classmethod
    def _clusters_have_uuid(cls, value: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for index, cluster in enumerate(value):
            if not isinstance(cluster.get("uuid"), str):
                raise ValueError(f"[{index}].uuid is missing")  # noqa: TRY004 - pydantic reports ValueError only.
        return value

    @field_validator("nodes")
    @classmethod
    def _nodes_have_name(cls, value: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for index, node in enumerate(value):
            if not isinstance(node.get("name"), str):
                raise ValueError(f"[{index}].name is missing")  # noqa: TRY004 - pydantic reports ValueError only.
        return value

    @model_validator(mode="after")
    def _kube_clusters_exist(self) -> Scenario:
        uuids = {str(cluster["uuid"]) for cluster in self.clusters}
        for uuid in (self.kubernetes.clusters or []) if self.kubernetes else []:
            if uuid not in uuids:
                raise ValueError(f"kubernetes.clusters: {uuid!r} is not the uuid of a cluster")
        return self

    @field_validator("workloads")
    @classmethod
    def _unique_ids(cls, value: list[WorkloadEntry]) -> list[WorkloadEntry]:
        seen: set[str] = set()
        for index, entry in enumerate(value):
            if entry.id in seen:
                raise ValueError(f"[{index}].workload.id {entry.id!r} is used twice")
            seen.add(entry.id)
        return value

    @classmethod
    def parse(cls, data: Any, *, source: str = "<scenario>") -> Scenario:
        """Validate already-decoded JSON; errors become `ScenarioError` naming `source`."""
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '<top level>'}: {err['msg']}"
                for err in exc.errors()
            )
            raise ScenarioError(f"{source}: invalid scenario: {problems}") from None

    @classmethod
    def load(cls, path: str | Path) -> Scenario:
        """Read and validate a scenario file, raising `ScenarioError` on any problem."""
        file = Path(path)
        try:
            text = file.read_text(encoding="utf-8")
        except OSError as exc:
            raise ScenarioError(f"{file}: cannot read scenario file: {exc.strerror}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ScenarioError(
                f"{file}: not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
            ) from None
        return cls.parse(data, source=str(file))

    def workload(self, workload_id: str) -> WorkloadEntry | None:
        """The entry whose `workload.id` is `workload_id`, if any."""
        return next((e for e in self.workloads if e.id == workload_id), None)

    def schema_problems(self) -> list[str]:
        """Bodies missing members the official schemas require (the server serves them anyway)."""
        problems: list[str] = []

        def check(where: str, schema: str, body: Mapping[str, Any]) -> None:
            missing = [key for key in REQUIRED_FIELDS[schema] if key not in body]
            if missing:
                problems.append(f"{where} ({schema}) lacks {', '.join(missing)}")

        for i, cluster in enumerate(self.clusters):
            check(f"clusters[{i}]", "DisplayedCluster", cluster)
        for i, node in enumerate(self.nodes):
            check(f"nodes[{i}]", "Node", node)
        for w, entry in enumerate(self.workloads):
            check(f"workloads[{w}].workload", "Workload", entry.workload)
            groups = [("pods", "Pod1", entry.pods), ("events", "Event2", entry.events or [])]
            groups += [("history", "HistoryRecord1", entry.history)]
            groups += [("metrics", "MeasurementResponse", entry.metrics)]
            for key, schema, bodies in groups:
                for i, body in enumerate(bodies):
                    check(f"workloads[{w}].{key}[{i}]", schema, body)
        return problems
