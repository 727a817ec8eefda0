"""`GET /api/v1/workloads/pods`: every workload's pods, filtered, as the control plane lists them.

The pods of all scenario workloads, in file order: `filterBy` on the documented fields
(`clusterId`, `workloadId`, `revisionId`, `nodeName`, `currentNodepool`, `createdAt`,
`completedAt`, `deletedAt`), `completed` (`true`: ended pods only, `false`: running ones),
`deleted`, `sortBy`/`sortOrder`, `offset`/`limit`; `verbosity=full` adds each pod's
`projectName` and `workloadName` from its workload. Bodies are served as written otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from runai_sim import filters
from runai_sim.scenario import Scenario

__all__ = ["POD_FIELDS", "list_all_pods"]

_STR = "clusterId workloadId revisionId nodeName currentNodepool"
_DATES = "createdAt completedAt deletedAt"


#: The documented `filterBy`/`sortBy` fields of `GET /api/v1/workloads/pods` (top-level members).
def _member(name: str) -> Callable[[Mapping[str, Any]], Any]:
    return lambda item: item.get(name)


POD_FIELDS: dict[str, filters.FieldSpec] = {
    **{name: filters.FieldSpec("str", _member(name)) for name in _STR.split()},
    **{name: filters.FieldSpec("date", _member(name)) for name in _DATES.split()},
}


def _pods(scenario: Scenario, *, full: bool) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for entry in scenario.workloads:
        named = {
            "projectName": entry.workload.get("projectName"),
            "workloadName": entry.workload.get("name"),
        }
        found.extend({**pod, **named} if full else pod for pod in entry.pods)
    return found


async def list_all_pods(scenario: Scenario, request: Request) -> Response:
    """The `{pods, next}` page the query selects."""
    params = request.query_params
    terms = filters.parse_filters(params.getlist("filterBy"), POD_FIELDS)
    spec, descending = filters.parse_sort(params, POD_FIELDS)
    offset, limit = filters.parse_page(params)
    deleted = filters.parse_bool(params, "deleted")
    completed = (params.get("completed") or "").lower()
    if completed not in {"", "true", "false"}:
        raise filters.QueryError(f"Invalid completed value {completed!r}")
    items = [
        pod
        for pod in _pods(scenario, full=params.get("verbosity") == "full")
        if (pod.get("deletedAt") is not None) == deleted
        and (not completed or (pod.get("completedAt") is not None) == (completed == "true"))
    ]
    items = filters.sort_items(filters.apply_filters(items, terms), spec, descending=descending)
    chosen, next_offset = filters.page(items, offset, limit)
    body: dict[str, Any] = {"pods": chosen}
    if next_offset is not None:
        body["next"] = next_offset
    return JSONResponse(body)
