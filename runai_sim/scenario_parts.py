"""The parts of a scenario file: its credentials, a workload's entry, the Kubernetes view."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from runai_sim.filters import parse_datetime

__all__ = [
    "DEFAULT_CLIENT_ID",
    "DEFAULT_CLIENT_SECRET",
    "DEFAULT_KUBE_TOKEN",
    "ContainerLogs",
    "Credentials",
    "Kind",
    "KubernetesView",
    "WorkloadEntry",
    "drop_comments",
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


def drop_comments(data: Any) -> Any:
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
        return drop_comments(data)

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
        return drop_comments(data)

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
