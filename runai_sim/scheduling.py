"""The simulated scheduling endpoints: org-unit quotas, node pools, telemetry, priorities.

Served from the scenario's `projects` and `departments` (their `resources` and `status`),
`node_pools`, `nodes_telemetry`, `workload_priorities` and `project_metrics`, in the 2.24
shapes of `runai-openapi-2.24-scheduling.json` (`Project`, `Department`, `Nodepool`,
`TelemetryResponse`, `WorkloadPriority`, `MetricsResponse`). Bodies are served as written.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse, Response

from runai_sim import filters
from runai_sim.filters import FieldSpec, QueryError
from runai_sim.metrics_query import parse_metrics_query, select_measurements

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.routing import Route

    from runai_sim.scenario import Scenario

__all__ = [
    "DEFAULT_PRIORITIES",
    "NODE_TELEMETRY_TYPES",
    "ORG_UNIT_METRIC_TYPES",
    "SchedulingAPI",
]

NODE_TELEMETRY_TYPES = frozenset(
    "READY_GPU_NODES READY_GPUS TOTAL_GPU_NODES TOTAL_GPUS IDLE_ALLOCATED_GPUS FREE_GPUS "  # noqa: SIM905 - a word list reads better.
    "ALLOCATED_GPUS TOTAL_CPU_CORES USED_CPU_CORES ALLOCATED_CPU_CORES TOTAL_GPU_MEMORY_BYTES "
    "USED_GPU_MEMORY_BYTES TOTAL_CPU_MEMORY_BYTES USED_CPU_MEMORY_BYTES "
    "ALLOCATED_CPU_MEMORY_BYTES FULLY_FREE_GPU_NODES".split()
)
ORG_UNIT_METRIC_TYPES = frozenset(
    "GPU_QUOTA CPU_QUOTA_MILLICORES CPU_MEMORY_QUOTA_MB GPU_ALLOCATION "  # noqa: SIM905 - a word list reads better.
    "CPU_ALLOCATION_MILLICORES CPU_MEMORY_ALLOCATION_MB GPU_MEMORY_UTILIZATION".split()
)
_GROUP_BY = frozenset({"ClusterId", "Nodepool", "Node"})
_EPOCH = "2025-01-01T00:00:00Z"


def _priority(name: str, value: int) -> dict[str, Any]:
    return {
        "id": f"prio-{name}",
        "name": name,
        "value": value,
        "source": "Run:ai",
        "scopeType": "tenant",
        "scopeId": "1001",
        "aggregatedPhase": "Ready",
        "status": [],
        "createdAt": _EPOCH,
        "updatedAt": _EPOCH,
    }


#: Served when a scenario has no `workload_priorities`: Run:ai's 2.23+ dictionary.
DEFAULT_PRIORITIES: list[dict[str, Any]] = [
    _priority(name, value)
    for name, value in (
        ("very-low", 25),
        ("low", 40),
        ("medium-low", 65),
        ("medium", 80),
        ("medium-high", 90),
        ("high", 125),
        ("very-high", 150),
    )
]


def _member(name: str) -> Callable[[Mapping[str, Any]], Any]:
    return lambda item: item.get(name)


_POOL_FIELDS: dict[str, FieldSpec] = {
    **{name: FieldSpec("str", _member(name)) for name in ("name", "clusterId", "phase")},
    **{name: FieldSpec("date", _member(name)) for name in ("createdAt", "updatedAt")},
}

_Handler = Callable[["Request"], Awaitable[Response]]


class SchedulingAPI:
    """The read endpoints of the scheduling subset, over one scenario."""

    def __init__(
        self,
        scenario: Scenario,
        projects: list[dict[str, Any]],
        departments: list[dict[str, Any]] | None = None,
    ) -> None:
        self._scenario = scenario
        self._projects = projects
        self._departments = departments or []

    def routes(self, get: Callable[[str, _Handler], Route]) -> list[Route]:
        """The routes, each wrapped by `get` (the app's GET route with its 400 handling)."""
        return [
            get("/api/v1/org-unit/projects/{project_id}", self._project),
            get("/api/v1/org-unit/projects/{project_id}/metrics", self._project_metrics),
            get("/api/v1/org-unit/departments/{department_id}", self._department),
            get("/api/v1/node-pools", self._node_pools),
            get("/api/v1/node-pools/{pool_id}", self._node_pool),
            get("/api/v1/nodes/telemetry", self._telemetry),
            get("/api/v1/workload-priorities", self._priorities),
        ]

    def _find_project(self, request: Request) -> dict[str, Any]:
        wanted = str(request.path_params["project_id"])
        for project in self._projects:
            if str(project.get("id")) == wanted:
                return project
        raise HTTPException(404, f"Project {wanted} not found.")

    async def _project(self, request: Request) -> Response:
        return JSONResponse(self._find_project(request))

    async def _department(self, request: Request) -> Response:
        wanted = str(request.path_params["department_id"])
        for department in self._departments:
            if str(department.get("id")) == wanted:
                return JSONResponse(department)
        raise HTTPException(404, f"Department {wanted} not found.")

    async def _project_metrics(self, request: Request) -> Response:
        project = self._find_project(request)
        query = parse_metrics_query(request.query_params, ORG_UNIT_METRIC_TYPES)
        pool = request.query_params.get("nodepoolName")
        series = [
            measurement
            for entry in self._scenario.project_metrics
            if str(entry.get("projectId")) == str(project.get("id"))
            and (pool is None or entry.get("nodePool") in {None, pool})
            for measurement in entry.get("measurements") or []
        ]
        return JSONResponse({"measurements": select_measurements(series, query)})

    def _pools(self) -> list[dict[str, Any]]:
        return self._scenario.node_pools or []

    async def _node_pools(self, request: Request) -> Response:
        params = request.query_params
        terms = filters.parse_filters(params.getlist("filterBy"), _POOL_FIELDS)
        spec, descending = filters.parse_sort(params, _POOL_FIELDS)
        offset, limit = filters.parse_page(params)
        items = filters.sort_items(
            filters.apply_filters(self._pools(), terms), spec, descending=descending
        )
        return JSONResponse({"nodepools": filters.page(items, offset, limit)[0]})

    async def _node_pool(self, request: Request) -> Response:
        wanted = str(request.path_params["pool_id"])
        for pool in self._pools():
            if str(pool.get("id")) == wanted:
                return JSONResponse(pool)
        raise HTTPException(404, f"Node pool {wanted} not found.")

    async def _telemetry(self, request: Request) -> Response:
        params = request.query_params
        kind = params.get("telemetryType")
        if kind is None:
            raise QueryError(
                "Missing required parameter telemetryType", "Required parameter is missing"
            )
        if kind not in NODE_TELEMETRY_TYPES:
            raise QueryError(f"Invalid telemetryType {kind!r}")
        groups = [g for raw in params.getlist("groupBy") for g in raw.split(",") if g]
        if len(groups) > 2 or any(g not in _GROUP_BY for g in groups):  # noqa: PLR2004 - the API's maximum
            raise QueryError(f"Invalid groupBy {groups!r}; at most two of {sorted(_GROUP_BY)}")
        now = self._scenario.now.isoformat().replace("+00:00", "Z")
        body: dict[str, Any] = next(
            (t for t in self._scenario.nodes_telemetry if t.get("type") == kind),
            {"type": kind, "timestamp": now, "values": []},
        )
        pool = params.get("nodepoolName")
        if pool is not None:
            values = [v for v in body.get("values") or [] if _in_pool(v, pool)]
            body = {**body, "values": values}
        return JSONResponse(body)

    async def _priorities(self, _request: Request) -> Response:
        listed = self._scenario.workload_priorities
        return JSONResponse({"priorities": DEFAULT_PRIORITIES if listed is None else listed})


def _in_pool(value: Mapping[str, Any], pool: str) -> bool:
    return any(
        str(g.get("key", "")).lower() == "nodepool" and pool in {g.get("value"), g.get("name")}
        for g in value.get("groups") or []
    )
