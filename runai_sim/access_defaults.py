"""What a scenario's access model defaults to: built-in roles, derived projects and departments.

Used by `runai_sim.access` when a scenario leaves out `roles`, `projects`, `departments` or
`access_rules` (then every user asked about gets `open_rule`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from runai_sim.scenario import Scenario

__all__ = [
    "BUILTIN_ROLES",
    "OPEN_RULE_ROLE_ID",
    "derived_departments",
    "derived_projects",
    "open_rule",
]

_EPOCH = "2025-01-01T00:00:00Z"
_READ = ["read"]
_CRUD = ["create", "read", "update", "delete"]


def _permission(resource: str, group: str, actions: list[str]) -> dict[str, Any]:
    return {"resourceType": resource, "displayName": resource, "groupId": group, "actions": actions}


def _role(role_id: int, name: str, description: str, perms: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": role_id,
        "name": name,
        "description": description,
        "permissions": perms,
        "createdAt": _EPOCH,
        "updatedAt": _EPOCH,
        "deletedAt": None,
        "createdBy": "system",
        "custom": False,
        "effectiveEnabled": True,
        "enabled": True,
    }


_ORG_READ = [_permission(r, "organization", _READ) for r in ("project", "department", "cluster")]

#: Served when the scenario has no `roles`: a few of Run:ai's predefined roles, trimmed.
BUILTIN_ROLES: list[dict[str, Any]] = [
    _role(
        1,
        "System administrator",
        "manages everything",
        [
            *(_permission(r, "organization", _CRUD) for r in ("project", "department", "cluster")),
            _permission("workloads", "workload", _CRUD),
            _permission("access_rules", "iam", _CRUD),
        ],
    ),
    _role(
        2,
        "Viewer",
        "reads everything",
        [*_ORG_READ, *(_permission(r, "workload", _READ) for r in ("workloads", "trainings"))],
    ),
    _role(
        3,
        "L1 researcher",
        "runs and reads workloads",
        [*_ORG_READ, _permission("workloads", "workload", _CRUD)],
    ),
    _role(
        4,
        "ML engineer",
        "manages inference workloads",
        [*_ORG_READ, _permission("inferences", "workload", _CRUD)],
    ),
    _role(
        5,
        "Credentials administrator",
        "manages credentials, not workloads",
        [_permission("credentials", "workload-asset", _CRUD)],
    ),
]

OPEN_RULE_ROLE_ID = 2
"""The role of the rules a scenario without an access model grants (the built-in Viewer)."""


def open_rule(number: int, subject: str, tenant: int) -> dict[str, Any]:
    """The rule a scenario without an access model has for user `subject`: tenant Viewer."""
    return {
        "id": number,
        "subjectId": subject,
        "subjectType": "user",
        "roleId": OPEN_RULE_ROLE_ID,
        "roleName": "Viewer",
        "scopeId": str(tenant),
        "scopeType": "tenant",
        "scopeName": "tenant",
        "tenantId": tenant,
        "createdAt": _EPOCH,
        "updatedAt": _EPOCH,
        "deletedAt": None,
        "createdBy": "runai-sim",
        "status": {"phase": "Ready"},
    }


def _org_unit(
    unit_id: str, name: str, cluster_id: str, created: str, extra: dict[str, Any]
) -> dict[str, Any]:
    return {
        "id": unit_id,
        "name": name,
        "clusterId": cluster_id,
        "description": "",
        "createdAt": created,
        "updatedAt": created,
        "createdBy": "runai-sim",
        "resources": [],
        "totalResources": {},
        **extra,
    }


def derived_projects(scenario: Scenario) -> list[dict[str, Any]]:
    """One `Project` per (cluster, project) the workloads name, under its department."""
    created = scenario.now.isoformat().replace("+00:00", "Z")
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for entry in scenario.workloads:
        body = entry.workload
        cluster, project_id = str(body.get("clusterId", "")), body.get("projectId")
        name = body.get("projectName")
        if project_id is None or not isinstance(name, str) or (cluster, project_id) in found:
            continue
        parent_id = str(body.get("departmentId") or "")
        parent = {"id": parent_id, "name": str(body.get("departmentName") or "")}
        found[cluster, str(project_id)] = _org_unit(
            str(project_id),
            name,
            cluster,
            created,
            {
                "parentId": parent_id,
                "parent": parent if parent_id else None,
                "requestedNamespace": None,
                "status": {"namespace": str(body.get("namespace") or f"runai-{name}")},
                "effective": {},
                "enforceRunaiScheduler": True,
            },
        )
    for project in found.values():
        project["status"]["phase"] = "Ready"
    return list(found.values())


def derived_departments(scenario: Scenario, projects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One `DepartmentForList` per department the projects name, with its projects as children."""
    created = scenario.now.isoformat().replace("+00:00", "Z")
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for project in projects:
        parent = project.get("parent")
        if not isinstance(parent, Mapping) or not parent.get("id"):
            continue
        key = (str(project.get("clusterId", "")), str(parent["id"]))
        if key not in found:
            found[key] = _org_unit(key[1], str(parent.get("name", "")), key[0], created, {})
            found[key]["children"] = []
        found[key]["children"].append({"id": str(project["id"]), "name": str(project["name"])})
    return list(found.values())
