"""One set of GPU figures per node pool: the request, the project's quota and usage, capacity.

Each figure says where it came from; a figure that was not read is None, never zero. The
scheduler's own numbers (from its message or a PodGroup condition's `queueDetails`) replace
the recomputed ones they cover, and say so.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict

from diagnosis.kube.scheduling_models import quantity_number
from diagnosis.pending.evidence import PendingEvidence, Said
from diagnosis.preemptibility import preemptibility
from diagnosis.runai.scheduling_models import is_unlimited

__all__ = [
    "DEPARTMENT",
    "GET_PROJECT",
    "GPUS",
    "PROJECT",
    "SNAPSHOT_SKEW",
    "STATUS",
    "Level",
    "PoolFigures",
    "gpu_count",
    "gpu_noun",
    "gpus",
    "pool_figures",
    "preemptible",
    "resource",
]

#: Two "now" snapshots (project status, pool telemetry) this far apart are not one moment.
SNAPSHOT_SKEW = timedelta(minutes=5)
GET_PROJECT = "get_project"
TELEMETRY = "get_node_telemetry"
STATUS = "get_workload_status"
#: Whose quota or limit a typed reason is about (its `orgType`; the project's unless it says).
Level = Literal["project", "department"]
PROJECT: Level = "project"
DEPARTMENT: Level = "department"
#: The resource a scheduler statement measures, unless its text names another.
GPUS = "GPUs"
_RESOURCES = {"gpus": GPUS, "cpu cores": "CPU cores", "memory": "memory"}


def resource(said: Said) -> str:
    """What a statement's numbers measure: `GPUs`, or the `CPU cores` or `memory` it names."""
    return _RESOURCES.get(said.values.get("resource", "").lower(), GPUS)


def gpus(value: float | None) -> str:
    """A GPU count as people write it (`4`, `0.5`), or `?` when it was not read."""
    if value is None:
        return "?"
    return f"{value:g}"


def gpu_noun(value: float | None) -> str:
    """`GPU` after a count of at most one (`1 GPU`, `0.5 GPU`), else `GPUs`."""
    return "GPU" if value is not None and 0 < value <= 1 else "GPUs"


def gpu_count(value: float | None) -> str:
    """A number of GPUs in words: `1 GPU`, `0.5 GPU`, `4 GPUs`, `? GPUs` when not read."""
    return f"{gpus(value)} {gpu_noun(value)}"


def preemptible(ev: PendingEvidence) -> bool | None:
    """Whether the workload may be preempted (and so go over quota); None when unknown."""
    return preemptibility(ev.workload).preemptible


class PoolFigures(BaseModel):
    """The figures of one node pool, each None when it was not read.

    Attributes:
        pool: the node pool.
        requested: the workload's GPUs; per_pod: one pod's.
        deserved, limit, weight, allocated, allocated_np: the project's in the pool.
        unlimited: the project was read and its limit there is unlimited (null or -1).
        free, total: the pool's GPUs now.
        project_at, capacity_at: when those two snapshots were taken, when said.
        sources: figure name -> citation.
    """

    model_config = ConfigDict(frozen=True)

    pool: str | None
    requested: float | None = None
    per_pod: float | None = None
    deserved: float | None = None
    limit: float | None = None
    weight: float | None = None
    allocated: float | None = None
    allocated_np: float | None = None
    unlimited: bool = False
    free: float | None = None
    total: float | None = None
    project_at: datetime | None = None
    capacity_at: datetime | None = None
    sources: dict[str, str] = {}

    def same_moment(self) -> bool:
        """Whether the project and capacity snapshots may be compared (within the skew)."""
        if self.project_at is None or self.capacity_at is None:
            return True
        return abs(self.project_at - self.capacity_at) <= SNAPSHOT_SKEW

    def with_said(self, said: Said, level: Level = PROJECT) -> PoolFigures:
        """These figures with the scheduler's own numbers from `said` in place where they fit.

        These are the project's GPUs: numbers of another resource (CPU cores, memory) never
        replace them, and of a department's numbers only the request (the workload's own)
        does; the department's quota and usage are not the project's.
        """
        if resource(said) != GPUS:
            return self
        names: tuple[str, ...] = ("requested",)
        if level == PROJECT:
            names += ("deserved", "allocated", "allocated_np", "limit")
        found = {n: quantity_number(said.values[n]) for n in names if n in said.values}
        numbers = {n: v for n, v in found.items() if v is not None}
        if not numbers:
            return self
        cited = f"{said.source} ({said.origin})"
        return self.model_copy(
            update={**numbers, "sources": {**self.sources, **dict.fromkeys(numbers, cited)}}
        )


def _request(ev: PendingEvidence) -> tuple[float | None, float | None]:
    w = ev.workload
    total = w.workload_requested_resources
    pod = w.pods_requested_resources
    if (total and (total.gpu_request_type or "").lower() == "memory") or (
        pod and (pod.gpu_request_type or "").lower() == "memory"
    ):
        return None, None  # a GPU-memory request is not a GPU count
    whole = quantity_number(total.gpu.request) if total and total.gpu else None
    each = quantity_number(pod.gpu.request) if pod and pod.gpu else None
    return whole, each


def pool_figures(ev: PendingEvidence, pool: str | None) -> PoolFigures:
    """The recomputed figures of `pool` (no scheduler numbers yet: see `with_said`)."""
    requested, per_pod = _request(ev)
    sources = {"requested": STATUS} if requested is not None else {}
    if per_pod is not None:
        sources["per_pod"] = STATUS
    values: dict[str, float | None] = {}
    unlimited = False
    project_at = None
    if ev.project is not None and pool is not None:
        quota = ev.project.quota_in(pool)
        status = ev.project.status_in(pool)
        if quota is not None and quota.gpu is not None:
            values |= {"deserved": quota.gpu.deserved, "weight": quota.gpu.over_quota_weight}
            unlimited = is_unlimited(quota.gpu.limit)
            values["limit"] = None if unlimited else quota.gpu.limit
        if status is not None:
            values["allocated"] = status.allocated.gpu if status.allocated else None
            np = status.allocated_non_preemptible
            values["allocated_np"] = np.gpu if np else None
        project_at = ev.project.status.last_updated_time if ev.project.status else None
    capacity_at = None
    if pool is not None:
        for name, telemetry in (("free", ev.free), ("total", ev.total)):
            if telemetry is not None:
                values[name] = telemetry.for_pool(pool)
                capacity_at = capacity_at or telemetry.timestamp
    for name, value in values.items():
        if value is not None:
            sources[name] = TELEMETRY if name in {"free", "total"} else GET_PROJECT
    return PoolFigures(
        pool=pool,
        requested=requested,
        per_pod=per_pod,
        unlimited=unlimited,
        project_at=project_at,
        capacity_at=capacity_at,
        sources=sources,
        **values,
    )
