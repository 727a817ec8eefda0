"""The scenario file: what the simulated Run:ai control plane serves, loaded and checked."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

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
from runai_sim.scenario_parts import Credentials, KubernetesView, WorkloadEntry, drop_comments

__all__ = [
    "REQUIRED_FIELDS",
    "Scenario",
    "ScenarioError",
]

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
        return drop_comments(data)

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
