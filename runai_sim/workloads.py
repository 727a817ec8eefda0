"""The simulated workload, cluster and node endpoints: lists, details, pods, events, metrics."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from runai_sim import filters
from runai_sim.filters import FieldSpec
from runai_sim.metrics_query import parse_metrics_query, select_measurements
from runai_sim.scenario import Scenario
from runai_sim.scenario_parts import Kind, WorkloadEntry

__all__ = ["NODE_FIELDS", "WORKLOAD_FIELDS", "WorkloadEndpoints"]

_Handler = Callable[[Request], Awaitable[Response]]


def _key(name: str) -> Callable[[Mapping[str, Any]], Any]:
    return lambda item: item.get(name)


def _nested(outer: str, inner: str) -> Callable[[Mapping[str, Any]], Any]:
    def get(item: Mapping[str, Any]) -> Any:
        value = item.get(outer)
        return value.get(inner) if isinstance(value, Mapping) else None

    return get


def _nodepools(item: Mapping[str, Any]) -> list[Any]:
    pools = [*(item.get("currentNodePools") or []), *(item.get("requestedNodePools") or [])]
    return list(dict.fromkeys(pools))


_STR_FIELDS = (
    "type name clusterId projectId projectName departmentId departmentName submittedBy phase "
    "distributedFramework category priorityClassName aiApplicationId aiApplicationName"
)
_NUM_FIELDS = "idleGpus idleAllocatedGpus priority totalPendingTimeSeconds totalRunningTimeSeconds"
_DATE_FIELDS = "createdAt deletedAt completedAt phaseUpdatedAt guaranteedRuntimeEndsAt"

#: The documented `filterBy`/`sortBy` fields of `GET /api/v1/workloads` and where they live.
WORKLOAD_FIELDS: dict[str, FieldSpec] = {
    **{name: FieldSpec("str", _key(name)) for name in _STR_FIELDS.split()},
    **{name: FieldSpec("num", _key(name)) for name in _NUM_FIELDS.split()},
    **{name: FieldSpec("date", _key(name)) for name in _DATE_FIELDS.split()},
    "nodepool": FieldSpec("str", _nodepools),
    "allocatedGPU": FieldSpec("num", _nested("allocatedResources", "gpu")),
}

#: The documented `filterBy`/`sortBy` fields of `GET /api/v1/nodes`.
NODE_FIELDS: dict[str, FieldSpec] = {
    **{
        name: FieldSpec("str", _key(name))
        for name in (
            "name",
            "status",
            "nodePool",
            "nvLinkDomainUid",
            "nvLinkCliqueId",
            "clusterUuid",
        )
    },
    "gpuType": FieldSpec("str", _nested("gpuInfo", "gpuType")),
}


def _paged(key: str, items: list[Any], offset: int, limit: int) -> JSONResponse:
    chosen, next_offset = filters.page(items, offset, limit)
    body: dict[str, Any] = {key: chosen}
    if next_offset is not None:
        body["next"] = next_offset
    return JSONResponse(body)


def _list_item(workload: Mapping[str, Any]) -> dict[str, Any]:
    """A `Workload` list item: the detail body without `pendingSchedulingMessages`."""
    return {k: v for k, v in workload.items() if k != "pendingSchedulingMessages"}


class WorkloadEndpoints:
    """The base of `Simulator`: the endpoints served from its scenario's workloads and nodes.

    `Simulator.__init__` sets the scenario declared here (no runtime attribute is added).
    """

    scenario: Scenario

    # ------------------------------------------------------------------ workloads
    def _entry(self, request: Request) -> WorkloadEntry:
        workload_id = str(request.path_params["workload_id"])
        entry = self.scenario.workload(workload_id)
        if entry is None:
            raise HTTPException(404, f"Workload {workload_id} not found.")
        return entry

    def _selected_workloads(self, request: Request) -> list[dict[str, Any]]:
        params = request.query_params
        deleted = filters.parse_bool(params, "deleted")
        terms = filters.parse_filters(params.getlist("filterBy"), WORKLOAD_FIELDS)
        search = (params.get("search") or "").lower()
        items = [
            entry.workload
            for entry in self.scenario.workloads
            if (entry.workload.get("deletedAt") is not None) == deleted
            and search in str(entry.workload.get("name", "")).lower()
        ]
        # Filtered before the list items are copied: no filterBy field is the one left out.
        return [_list_item(item) for item in filters.apply_filters(items, terms)]

    async def _list_workloads(self, request: Request) -> Response:
        spec, descending = filters.parse_sort(request.query_params, WORKLOAD_FIELDS)
        offset, limit = filters.parse_page(request.query_params)
        items = filters.sort_items(self._selected_workloads(request), spec, descending=descending)
        return _paged("workloads", items, offset, limit)

    async def _count_workloads(self, request: Request) -> Response:
        return JSONResponse({"count": len(self._selected_workloads(request))})

    async def _get_workload(self, request: Request) -> Response:
        return JSONResponse(self._entry(request).workload)

    def _spec(self, kind: Kind) -> _Handler:
        async def handler(request: Request) -> Response:
            entry = self._entry(request)
            if entry.resolved_kind != kind or entry.spec is None:
                raise HTTPException(404, f"Workload {entry.id} has no {kind} spec.")
            return JSONResponse(entry.spec)

        return handler

    async def _pods(self, request: Request) -> Response:
        entry = self._entry(request)
        offset, limit = filters.parse_page(request.query_params)
        return _paged("pods", entry.pods, offset, limit)

    async def _events(self, request: Request) -> Response:
        entry = self._entry(request)
        descending = filters.parse_descending(request.query_params, default_desc=True)
        offset, limit = filters.parse_page(request.query_params)
        if entry.events is None:
            return JSONResponse({"events": None})
        key = filters.FieldSpec("date", lambda event: event.get("createdAt"))
        return _paged(
            "events", filters.sort_items(entry.events, key, descending=descending), offset, limit
        )

    async def _history(self, request: Request) -> Response:
        entry = self._entry(request)
        offset, limit = filters.parse_page(request.query_params)
        return _paged("records", entry.history, offset, limit)

    async def _metrics(self, request: Request) -> Response:
        entry = self._entry(request)
        query = parse_metrics_query(request.query_params)
        return JSONResponse({"measurements": select_measurements(entry.metrics, query)})

    # ------------------------------------------------------------------ clusters and nodes
    async def _clusters(self, _request: Request) -> Response:
        return JSONResponse(self.scenario.clusters)

    async def _cluster(self, request: Request) -> Response:
        uuid = str(request.path_params["cluster_uuid"])
        for cluster in self.scenario.clusters:
            if cluster.get("uuid") == uuid:
                return JSONResponse(cluster)
        raise HTTPException(404, f"Cluster {uuid} not found.")

    async def _nodes(self, request: Request) -> Response:
        params = request.query_params
        terms = filters.parse_filters(params.getlist("filterBy"), NODE_FIELDS)
        spec, descending = filters.parse_sort(params, NODE_FIELDS)
        offset, limit = filters.parse_page(params)
        items = filters.sort_items(
            filters.apply_filters(self.scenario.nodes, terms), spec, descending=descending
        )
        chosen, _ = filters.page(items, offset, limit)
        return JSONResponse({"nodes": chosen})
