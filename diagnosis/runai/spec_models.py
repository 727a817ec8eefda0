"""Typed, tolerant models of a workload's submitted spec (`WorkloadMeta1` + `*SpecSpec`).

Read by `get_workload_spec`; the kinds name a few fields differently (`args` vs `arguments`,
an environment map vs an array), and every model ignores fields it does not declare.
"""

from __future__ import annotations

from typing import Any

from pydantic import AliasChoices, Field, field_validator, model_validator

from diagnosis.runai.api_model import ApiModel as _ApiModel

__all__ = ["EnvVar", "PvcMount", "SpecSpec", "WorkloadSpec"]


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
