"""The simulated authorization endpoints: access rules, users, roles, projects and departments.

Served from the scenario's `access_rules`, `users`, `roles`, `projects` and `departments`
lists, in the 2.24 shapes (`AccessRule`, `User2`, `RoleV1`, `Project`, `DepartmentForList`).
A scenario without `access_rules` has no access model: every user asked about gets one
tenant-wide rule with the built-in Viewer role, so every user may read every project. Projects
and departments not listed are derived from the workloads; roles not listed are the built-in
ones (`BUILTIN_ROLES`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from runai_sim import filters
from runai_sim.access_defaults import (
    BUILTIN_ROLES,
    OPEN_RULE_ROLE_ID,
    derived_departments,
    derived_projects,
    open_rule,
)
from runai_sim.filters import FieldSpec, QueryError

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from starlette.requests import Request

    from runai_sim.scenario import Scenario

__all__ = [
    "ACCESS_KEYS",
    "BUILTIN_ROLES",
    "OPEN_RULE_ROLE_ID",
    "AccessAPI",
    "check_items",
]

#: The scenario keys of the access model, and the member each item must have.
ACCESS_KEYS: Mapping[str, tuple[str, ...]] = {
    "users": ("username",),
    "access_rules": ("subjectId", "subjectType", "roleId", "scopeId", "scopeType"),
    "roles": ("id", "name"),
    "projects": ("id", "name"),
    "departments": ("id", "name"),
}


def check_items(key: str, items: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    """`items` of access-model key `key`, or ValueError naming the first item lacking a member."""
    for index, item in enumerate(items or []):
        missing = [member for member in ACCESS_KEYS[key] if member not in item]
        if missing:
            raise ValueError(f"[{index}] lacks {', '.join(missing)}")
    return items


def _key(name: str) -> Callable[[Mapping[str, Any]], Any]:
    return lambda item: item.get(name)


def _nested(*path: str) -> Callable[[Mapping[str, Any]], Any]:
    def get(item: Mapping[str, Any]) -> Any:
        value: Any = item
        for part in path:
            value = value.get(part) if isinstance(value, Mapping) else None
        return value

    return get


def _boolean(name: str) -> Callable[[Mapping[str, Any]], Any]:
    def get(item: Mapping[str, Any]) -> Any:
        value = item.get(name)
        return None if value is None else str(bool(value)).lower()

    return get


_RULE_FIELDS: dict[str, FieldSpec] = {
    **{
        name: FieldSpec("str", _key(name))
        for name in ("subjectId", "subjectType", "roleId", "scopeId", "scopeType", "roleName")
    },
    "scopeName": FieldSpec("str", _key("scopeName")),
    "createdBy": FieldSpec("str", _key("createdBy")),
    "phase": FieldSpec("str", _nested("status", "phase")),
    "createdAt": FieldSpec("date", _key("createdAt")),
    "deletedAt": FieldSpec("date", _key("deletedAt")),
}
_USER_FIELDS: dict[str, FieldSpec] = {
    "username": FieldSpec("str", _key("username")),
    "createdBy": FieldSpec("str", _key("createdBy")),
    "isLocal": FieldSpec("str", _boolean("isLocal")),
    "lastLogin": FieldSpec("date", _key("lastLogin")),
    "creationTime": FieldSpec("date", _key("createdAt")),
    "lastUpdated": FieldSpec("date", _key("updatedAt")),
}
_USER_OPERATORS = frozenset({"==", "<=", ">=", "=@"})
_AVERAGES = [
    f"avg{what}{window}"
    for what in ("GpuAllocation", "GpuUtilization", "GpuMemoryUtilization")
    for window in ("24h", "7d", "30d")
]
_ORG_FIELDS: dict[str, FieldSpec] = {
    "name": FieldSpec("str", _key("name")),
    "clusterId": FieldSpec("str", _key("clusterId")),
    "createdAt": FieldSpec("date", _key("createdAt")),
    "totalGpuQuota": FieldSpec("num", _nested("totalResources", "gpuQuota")),
    "gpuAllocated": FieldSpec("num", _nested("status", "quotaStatus", "allocated", "gpu")),
    # The simulator keeps no utilisation history: these fields exist but match no value.
    **{name: FieldSpec("num", lambda _item: None) for name in _AVERAGES},
}
_PROJECT_FIELDS: dict[str, FieldSpec] = {
    **_ORG_FIELDS,
    "departmentId": FieldSpec("str", _key("parentId")),
    "parentId": FieldSpec("str", _key("parentId")),
    "parentName": FieldSpec("str", _nested("parent", "name")),
    "phase": FieldSpec("str", _nested("status", "phase")),
}


class AccessAPI:
    """The five read endpoints of the authorization model, over one scenario."""

    def __init__(self, scenario: Scenario) -> None:
        self._scenario = scenario
        self._projects = scenario.projects
        if self._projects is None:
            self._projects = derived_projects(scenario)
        self._departments = scenario.departments
        if self._departments is None:
            self._departments = derived_departments(scenario, self._projects)
        self._roles = BUILTIN_ROLES if scenario.roles is None else scenario.roles

    @property
    def projects(self) -> list[dict[str, Any]]:
        """The projects served: the scenario's, else those derived from its workloads."""
        return self._projects or []

    @property
    def departments(self) -> list[dict[str, Any]]:
        """The departments served: the scenario's, else those derived from the projects."""
        return self._departments or []

    def routes(
        self, get: Callable[[str, Callable[[Request], Awaitable[Response]]], Route]
    ) -> list[Route]:
        """The routes, each wrapped by `get` (the app's GET route with its 400 handling)."""
        return [
            get("/api/v1/authorization/access-rules", self._access_rules),
            get("/api/v1/authorization/roles", self._list_roles),
            get("/api/v1/authorization/roles/{role_id}", self._role),
            get("/api/v1/users", self._users),
            get("/api/v1/org-unit/projects", self._list_projects),
            get("/api/v1/org-unit/departments", self._list_departments),
        ]

    # ------------------------------------------------------------------ access rules
    def _rules(self, subject_type: str | None, subject_ids: Sequence[str]) -> list[dict[str, Any]]:
        if self._scenario.access_rules is not None:
            return list(self._scenario.access_rules)
        if subject_type not in {None, "user"}:
            return []
        tenant = next((c.get("tenantId") for c in self._scenario.clusters), None) or 1001
        return [open_rule(n, subject, tenant) for n, subject in enumerate(subject_ids, start=1)]

    async def _access_rules(self, request: Request) -> Response:
        params = request.query_params
        subject_type = params.get("subjectType")
        subject_ids = [s for raw in params.getlist("subjectIds") for s in raw.split(",") if s]
        terms = filters.parse_filters(params.getlist("filterBy"), _RULE_FIELDS)
        spec, descending = filters.parse_sort(params, _RULE_FIELDS)
        offset, limit = filters.parse_page(params)
        deleted = filters.parse_bool(params, "includeDeleted")
        exact = {
            "subjectType": subject_type,
            "clusterId": params.get("clusterId"),
            "scopeId": params.get("scopeId"),
            "scopeType": params.get("scopeType"),
            "roleId": params.get("roleId"),
        }
        items = [
            rule
            for rule in self._rules(subject_type, subject_ids)
            if (deleted or rule.get("deletedAt") is None)
            and (not subject_ids or rule.get("subjectId") in subject_ids)
            and all(want is None or str(rule.get(k)) == want for k, want in exact.items())
        ]
        items = filters.sort_items(filters.apply_filters(items, terms), spec, descending=descending)
        chosen, _ = filters.page(items, offset, limit)
        body = {"totalRecords": len(items), "displayRecords": len(chosen), "accessRules": chosen}
        return JSONResponse(body)

    # ------------------------------------------------------------------ roles and users
    async def _list_roles(self, _request: Request) -> Response:
        return JSONResponse(self._roles)

    async def _role(self, request: Request) -> Response:
        wanted = str(request.path_params["role_id"])
        for role in self._roles:
            if str(role.get("id")) == wanted:
                return JSONResponse(role)
        raise HTTPException(404, f"Role {wanted} not found.")

    async def _users(self, request: Request) -> Response:
        params = request.query_params
        terms = filters.parse_filters(params.getlist("filterBy"), _USER_FIELDS)
        for term in terms:
            if term.op not in _USER_OPERATORS:
                raise QueryError(f"Operator {term.op} cannot be used to filter users")
        spec, descending = filters.parse_sort(params, _USER_FIELDS)
        offset = filters.parse_page(params)[0]
        limit = _limit(params, default=500)
        users = self._scenario.users or []
        items = filters.sort_items(filters.apply_filters(users, terms), spec, descending=descending)
        return JSONResponse(filters.page(items, offset, limit)[0])

    # ------------------------------------------------------------------ org units
    async def _list_projects(self, request: Request) -> Response:
        return _org_page(request, "projects", self._projects or [], _PROJECT_FIELDS)

    async def _list_departments(self, request: Request) -> Response:
        verbosity = request.query_params.get("verbosity")
        if verbosity not in {None, "meta", "brief", "verbose"}:
            raise QueryError(f"Invalid verbosity {verbosity!r}; allowed: meta, brief, verbose")
        verbose = verbosity == "verbose"
        return _org_page(
            request,
            "departments",
            self._departments or [],
            _ORG_FIELDS,
            shown=lambda item: _listed(item, verbose=verbose),
        )


def _listed(department: dict[str, Any], *, verbose: bool) -> dict[str, Any]:
    """A department as the list gives it: its status only when verbose, and then only summed.

    The by-id read (`runai_sim.scheduling`) serves the per-pool `nodePoolQuotaStatuses`.
    """
    item = {key: value for key, value in department.items() if key != "status"}
    status = department.get("status")
    if verbose and isinstance(status, Mapping) and "quotaStatus" in status:
        item["status"] = {"quotaStatus": status["quotaStatus"]}
    return item


def _limit(params: Any, *, default: int) -> int:
    raw = params.get("limit")
    if raw is None:
        return default
    return filters.parse_page(params)[1]


def _org_page(
    request: Request,
    key: str,
    items: list[dict[str, Any]],
    fields: Mapping[str, FieldSpec],
    *,
    shown: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> Response:
    params = request.query_params
    terms = filters.parse_filters(params.getlist("filterBy"), fields)
    spec, descending = filters.parse_sort(params, fields)
    offset, limit = filters.parse_page(params)
    found = filters.sort_items(filters.apply_filters(items, terms), spec, descending=descending)
    chosen, next_offset = filters.page(found, offset, limit)
    body: dict[str, Any] = {key: [shown(i) for i in chosen] if shown else chosen}
    if next_offset is not None:
        body["next"] = next_offset
    return JSONResponse(body)
