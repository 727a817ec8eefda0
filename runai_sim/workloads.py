"""The simulated workload, cluster and node endpoints: lists, details, pods, events, metrics."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from runai_sim import filters
from runai_sim.scenario import Kind, Scenario, WorkloadEntry

__all__ = ["WorkloadEndpoints"]

_Handler = Callable[[Request], Awaitable[Response]]


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
        terms = filters.parse_filters(params.getlist("filterBy"), filters.WORKLOAD_FIELDS)
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
        spec, descending = filters.parse_sort(request.query_params, filters.WORKLOAD_FIELDS)
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
        query = filters.parse_metrics_query(request.query_params)
        return JSONResponse({"measurements": filters.select_measurements(entry.metrics, query)})

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
        terms = filters.parse_filters(params.getlist("filterBy"), filters.NODE_FIELDS)
        spec, descending = filters.parse_sort(params, filters.NODE_FIELDS)
        offset, limit = filters.parse_page(params)
        items = filters.sort_items(
            filters.apply_filters(self.scenario.nodes, terms), spec, descending=descending
        )
        chosen, _ = filters.page(items, offset, limit)
        return JSONResponse({"nodes": chosen})
