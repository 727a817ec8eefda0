"""The Run:ai scheduling reads of `RunaiClient`: quotas, node pools, telemetry, priorities.

A mixin over the client's HTTP session and paging, so `client.py` stays about workloads.
Every read is a GET of a path in `runai-openapi-2.24-scheduling.json`; failures raise the one
error tree (`diagnosis.errors`), and the caller turns them into stated gaps.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from diagnosis.http.paths import segment
from diagnosis.http.responses import json_member, parse_model, parse_models, shape_error
from diagnosis.runai.models import Measurement, Node, Workload
from diagnosis.runai.scheduling_models import (
    DepartmentQuota,
    NodePool,
    ProjectQuota,
    Telemetry,
    WorkloadPriority,
)
from diagnosis.runai.session import Params, Session, get, metrics_query

if TYPE_CHECKING:
    from collections.abc import Sequence


__all__ = ["NODE_POOLS_PAGE", "POOL_WORKLOADS_PAGE", "SchedulingReads"]

_IDENTIFIER = "an identifier in a scheduling read"


NODE_POOLS_PAGE = 500
"""Node pools read in one page (the largest `limit` the API accepts)."""
POOL_WORKLOADS_PAGE = 50
"""A pool's most recently started workloads read for preemption candidates."""


class SchedulingReads:
    """The scheduling reads, each one GET of the 2.24 API (see the module docstring)."""

    async def get_project(self: Session, project_id: str) -> ProjectQuota:
        """`get_project`: `GET /api/v1/org-unit/projects/{projectId}` (quota and usage)."""
        path = f"/api/v1/org-unit/projects/{segment(project_id, _IDENTIFIER)}"
        body, url = await get(self._http, path, operation="get_project")
        return parse_model(ProjectQuota, body, operation="get_project", url=url)

    async def get_department(self: Session, department_id: str) -> DepartmentQuota:
        """`get_department`: `GET /api/v1/org-unit/departments/{departmentId}` (quota, usage)."""
        path = f"/api/v1/org-unit/departments/{segment(department_id, _IDENTIFIER)}"
        body, url = await get(self._http, path, operation="get_department")
        return parse_model(DepartmentQuota, body, operation="get_department", url=url)

    async def list_project_quotas(self: Session, *, cluster_id: str) -> list[ProjectQuota]:
        """`GET /api/v1/org-unit/projects` of one cluster, with each project's namespace."""
        params: Params = {"filterBy": f"clusterId=={cluster_id}", "limit": NODE_POOLS_PAGE}
        found = await self._collect(
            "list_projects", "/api/v1/org-unit/projects", params, key="projects", model=ProjectQuota
        )
        return [p for p in found if p.cluster_id in {None, cluster_id}]

    async def list_node_pools(self: Session, *, cluster_id: str) -> list[NodePool]:
        """`get_nodepools`: the cluster's node pools (phase, nodes, guaranteed runtime)."""
        operation = "get_nodepools"
        params: Params = {"filterBy": f"clusterId=={cluster_id}", "limit": NODE_POOLS_PAGE}
        body, url = await get(self._http, "/api/v1/node-pools", operation=operation, params=params)
        raw = json_member(body, "nodepools", operation=operation, url=url)
        pools = [] if raw is None else parse_models(NodePool, raw, operation=operation, url=url)
        return [p for p in pools if p.cluster_id in {None, cluster_id}]

    async def list_pool_nodes(self: Session, *, cluster_id: str, node_pool: str) -> list[Node]:
        """`GET /api/v1/nodes` of one node pool (status, taints, GPU type and count)."""
        params: Params = {
            "filterBy": f"clusterUuid=={cluster_id},nodePool=={node_pool}",
            "limit": NODE_POOLS_PAGE,
        }
        nodes = await self._collect("list_nodes", "/api/v1/nodes", params, key="nodes", model=Node)
        return [
            n for n in nodes if n.node_pool == node_pool and n.cluster_uuid in {None, cluster_id}
        ]

    async def list_pool_workloads(
        self: Session, *, cluster_id: str, node_pool: str
    ) -> list[Workload]:
        """The pool's Running workloads, newest phase change first (one page: context only)."""
        params: Params = {
            "filterBy": f"clusterId=={cluster_id},nodepool=={node_pool},phase==Running",
            "sortBy": "phaseUpdatedAt",
            "sortOrder": "desc",
            "limit": POOL_WORKLOADS_PAGE,
        }
        operation = "list_workloads"
        body, url = await get(self._http, "/api/v1/workloads", operation=operation, params=params)
        raw = json_member(body, "workloads", operation=operation, url=url)
        found = [] if raw is None else parse_models(Workload, raw, operation=operation, url=url)
        return [w for w in found if w.cluster_id == cluster_id]

    async def get_node_telemetry(
        self: Session, *, cluster_id: str, telemetry_type: str
    ) -> Telemetry:
        """`get_node_telemetry`: one telemetry type now, grouped by node pool."""
        operation = "get_node_telemetry"
        params: Params = {
            "clusterId": cluster_id,
            "telemetryType": telemetry_type,
            "groupBy": "Nodepool",
        }
        path = "/api/v1/nodes/telemetry"
        body, url = await get(self._http, path, operation=operation, params=params)
        return parse_model(Telemetry, body, operation=operation, url=url)

    async def list_workload_priorities(self: Session) -> list[WorkloadPriority]:
        """`get_workload_priorities`: every priority class name and its value (2.22+)."""
        operation = "get_workload_priorities"
        body, url = await get(self._http, "/api/v1/workload-priorities", operation=operation)
        raw = json_member(body, "priorities", operation=operation, url=url)
        return (
            [] if raw is None else parse_models(WorkloadPriority, raw, operation=operation, url=url)
        )

    async def get_project_metrics(
        self: Session,
        project_id: str,
        *,
        metric_types: Sequence[str],
        start: datetime,
        end: datetime,
        node_pool: str | None = None,
        samples: int = 20,
    ) -> list[Measurement]:
        """`get_project_metrics`: quota and allocation over time; 200 and 207 both accepted."""
        operation = "get_project_metrics"
        params = metrics_query(metric_types, start, end, samples)
        if node_pool:
            params["nodepoolName"] = node_pool
        path = f"/api/v1/org-unit/projects/{segment(project_id, _IDENTIFIER)}/metrics"
        body, url = await get(self._http, path, operation=operation, params=params, ok=(200, 207))
        raw = json_member(body, "measurements", operation=operation, url=url)
        if raw is None:  # null is a failed read, as for a workload's; an empty list no samples
            raise shape_error("`measurements` is null", operation=operation, url=url)
        return parse_models(Measurement, raw, operation=operation, url=url)
