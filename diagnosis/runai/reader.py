"""The read-only view of the Run:ai control plane that the pipeline depends on.

`RunaiClient` implements it over HTTP; tests may supply any other implementation. Each
method's docstring names the skill's tool it stands for.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from diagnosis.runai.models import (
    Cluster,
    Event,
    HistoryRecord,
    Measurement,
    Node,
    Pod,
    Workload,
    WorkloadSpec,
)
from diagnosis.runai.scheduling_models import (
    DepartmentQuota,
    NodePool,
    ProjectQuota,
    Telemetry,
    WorkloadPriority,
)

__all__ = ["RunaiReader"]


class RunaiReader(Protocol):
    """Read-only Run:ai operations. All raise only `diagnosis.errors` exceptions."""

    async def list_workloads(self, *, cluster_id: str, project: str, name: str) -> list[Workload]:
        """`list_workloads`: exact name/cluster/project filters, newest `phaseUpdatedAt` first.

        Follows every page. Items whose name, project or cluster do not match exactly are
        dropped client-side, whatever the server's filter did.
        """
        ...

    async def list_project_workloads(self, *, cluster_id: str, project: str) -> list[Workload]:
        """The newest workloads of one project on one cluster (one page), for near matches."""
        ...

    async def get_workload(self, workload_id: str) -> Workload:
        """`get_workload_status`: `GET /api/v1/workloads/{id}`."""
        ...

    async def list_events(self, workload_id: str, *, since: datetime) -> list[Event] | None:
        """Workload events newest first, down to `since`; `None` when the API returned null."""
        ...

    async def get_workload_spec(self, workload: Workload) -> WorkloadSpec:
        """`get_workload_spec`: the kind-specific spec; `NotFound` when no kind path has it."""
        ...

    async def list_pods(self, workload_id: str) -> list[Pod]:
        """`get_workload_pods`: every page of `GET /api/v1/workloads/{id}/pods`."""
        ...

    async def get_history(self, workload_id: str, *, cutoff: datetime) -> list[HistoryRecord]:
        """`get_workload_history`: pages until `next` is null or older than `cutoff`.

        Returned oldest first (sorted client-side by `meta.creationTimestamp`), cutoff applied.
        A history too long to read in full raises `PartialHistory` with the part that was read.
        """
        ...

    async def get_metrics(
        self,
        workload_id: str,
        *,
        metric_types: Sequence[str],
        start: datetime,
        end: datetime,
        samples: int = 200,
    ) -> list[Measurement]:
        """`get_workload_metrics`: `metricType` comma-joined; 200 and 207 both accepted."""
        ...

    async def list_clusters(self) -> list[Cluster]:
        """`GET /api/v1/clusters` (a bare array)."""
        ...

    async def list_nodes(self, *, cluster_id: str, names: Sequence[str]) -> list[Node]:
        """`GET /api/v1/nodes` filtered to the cluster and the given node names."""
        ...

    # ------------------------------------------------------------------ scheduling reads
    async def get_project(self, project_id: str) -> ProjectQuota:
        """`get_project`: the project's quota (`resources`) and usage (`status`) per node pool."""
        ...

    async def get_department(self, department_id: str) -> DepartmentQuota:
        """`get_department`: the department's quota and its projects' usage per node pool."""
        ...

    async def list_project_quotas(self, *, cluster_id: str) -> list[ProjectQuota]:
        """`GET /api/v1/org-unit/projects` of one cluster (namespace to project)."""
        ...

    async def list_node_pools(self, *, cluster_id: str) -> list[NodePool]:
        """`get_nodepools`: the cluster's node pools."""
        ...

    async def list_pool_nodes(self, *, cluster_id: str, node_pool: str) -> list[Node]:
        """`GET /api/v1/nodes` of one node pool."""
        ...

    async def list_pool_workloads(self, *, cluster_id: str, node_pool: str) -> list[Workload]:
        """The node pool's Running workloads, newest phase change first (one page)."""
        ...

    async def get_node_telemetry(self, *, cluster_id: str, telemetry_type: str) -> Telemetry:
        """`get_node_telemetry`: one type (`FREE_GPUS`, `TOTAL_GPUS`) now, per node pool."""
        ...

    async def list_workload_priorities(self) -> list[WorkloadPriority]:
        """`get_workload_priorities`: priority class names and values."""
        ...

    async def get_project_metrics(
        self,
        project_id: str,
        *,
        metric_types: Sequence[str],
        start: datetime,
        end: datetime,
        node_pool: str | None = None,
        samples: int = 20,
    ) -> list[Measurement]:
        """`get_project_metrics`: quota and allocation over time (200 and 207 accepted)."""
        ...
