"""The pure part of the decision: which rules grant read, and which scopes cover a project.

Run:ai is the authority. A person's rules are those of their e-mail (`subjectType=user`) and
of their groups. A rule counts when its role grants `read` on `workloads` or on a workload
kind (`trainings`, `workspaces`, `inferences`). Its scope covers a project when it is the
system or the tenant, the project's cluster, the project's department (the department's
projects, as the control plane lists them), or the project itself. Before any cluster is
named to a person, `reach` says on which clusters any of their grants reads something.

A department's quota and usage (which sum its projects') are theirs to see when a rule's
role grants `read` on `department` and its scope covers the department: the system or the
tenant, the department's cluster, or the department itself (a project scope does not).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from bot.authz.decision import DEPARTMENT_READ, READ_RESOURCES
from diagnosis import AccessRule, Project, Role

__all__ = [
    "Grant",
    "cluster_wide",
    "covers",
    "needs_units",
    "reach",
    "read_grants",
    "readable_resources",
    "reads_department",
    "role_reads",
]

_EVERYWHERE = frozenset({"system", "tenant"})


#: What a grant may read: workloads (of some kinds), and departments.
_READABLE = READ_RESOURCES | {DEPARTMENT_READ}


@dataclass(frozen=True)
class Grant:
    """One access rule that lets its subject read some workloads or departments, and which."""

    rule: AccessRule
    resources: frozenset[str]

    @property
    def workloads(self) -> frozenset[str]:
        """The workload resource types it reads (empty for a rule that reads only departments)."""
        return self.resources & READ_RESOURCES


def role_reads(role: Role) -> frozenset[str]:
    """The workload (and department) resource types `role` grants `read` on (empty: none)."""
    return frozenset(r for r in _READABLE if role.grants(r, "read"))


def read_grants(rules: Iterable[AccessRule], roles: Iterable[Role]) -> list[Grant]:
    """The rules whose role grants read on workloads or departments; unknown roles dropped."""
    by_id = {role.id: role for role in roles}
    grants: list[Grant] = []
    for rule in rules:
        role = by_id.get(rule.role_id)
        resources = role_reads(role) if role is not None else frozenset()
        if resources:
            grants.append(Grant(rule, resources))
    return grants


def covers(
    rule: AccessRule,
    *,
    cluster_id: str,
    project: Project,
    department_projects: Mapping[str, frozenset[str]],
) -> bool:
    """Whether `rule`'s scope includes `project` on `cluster_id`.

    `department_projects` maps a department id to the ids of its projects (from
    `GET /api/v1/org-unit/projects` filtered by parent); a department not in it covers
    nothing. An unknown scope type covers nothing.
    """
    scope = rule.scope_type.casefold()
    if scope in _EVERYWHERE:
        return True
    if scope == "cluster":
        return rule.scope_id == cluster_id
    if scope == "department":
        return project.id in department_projects.get(rule.scope_id, frozenset())
    if scope == "project":
        return rule.scope_id == project.id
    return False


def readable_resources(
    grants: Iterable[Grant],
    *,
    cluster_id: str,
    project: Project,
    department_projects: Mapping[str, frozenset[str]],
) -> frozenset[str]:
    """Every workload resource type some grant lets its subject read in `project`."""
    found: set[str] = set()
    for grant in grants:
        if grant.workloads and covers(
            grant.rule,
            cluster_id=cluster_id,
            project=project,
            department_projects=department_projects,
        ):
            found |= grant.workloads
    return frozenset(found)


def cluster_wide(grants: Iterable[Grant], cluster_id: str) -> frozenset[str]:
    """What the grants scoped to the whole cluster (system, tenant or the cluster) read there.

    Every project on the cluster is covered by them, so when they read every kind of
    workload (`workloads`) no project needs to be looked up to decide.
    """
    found: set[str] = set()
    for grant in grants:
        scope = grant.rule.scope_type.casefold()
        if scope in _EVERYWHERE or (scope == "cluster" and grant.rule.scope_id == cluster_id):
            found |= grant.workloads
    return frozenset(found)


def reads_department(grants: Iterable[Grant], *, cluster_id: str, department_id: str) -> bool:
    """Whether a grant reads department `department_id` on `cluster_id` (its quota and usage).

    Its role must grant `read` on `department`, and its scope cover the department: the
    system or the tenant, the department's cluster, or the department itself. Neither a
    project scope nor a role that reads only workloads is enough.
    """
    for grant in grants:
        if DEPARTMENT_READ not in grant.resources:
            continue
        rule = grant.rule
        scope = rule.scope_type.casefold()
        if scope in _EVERYWHERE:
            return True
        if scope == "cluster" and rule.scope_id == cluster_id:
            return True
        if scope == "department" and rule.scope_id == department_id:
            return True
    return False


def reach(
    grants: Iterable[Grant],
    *,
    department_clusters: Mapping[str, str | None],
    project_clusters: Mapping[str, str | None],
) -> tuple[bool, frozenset[str]]:
    """Where `grants` read anything: (on every cluster, the ids of the clusters they cover).

    A system or tenant scope covers every cluster; a cluster scope, that cluster; a
    department or project scope, the cluster it belongs to: the rule's own `clusterId`, else
    that unit's cluster as the control plane lists it (`department_clusters`,
    `project_clusters`: unit id -> cluster id). A unit not listed, or an unknown scope type,
    covers nothing.
    """
    everywhere = False
    clusters: set[str | None] = set()
    for grant in grants:
        if not grant.workloads:
            continue  # reads only departments: no workload anywhere
        rule = grant.rule
        scope = rule.scope_type.casefold()
        if scope in _EVERYWHERE:
            everywhere = True
        elif scope == "cluster":
            clusters.add(rule.scope_id)
        elif scope == "department":
            clusters.add(rule.cluster_id or department_clusters.get(rule.scope_id))
        elif scope == "project":
            clusters.add(rule.cluster_id or project_clusters.get(rule.scope_id))
    return everywhere, frozenset(c for c in clusters if c)


def needs_units(grants: Iterable[Grant]) -> tuple[bool, bool]:
    """Whether `reach` needs the departments' and the projects' clusters listed.

    Only for department or project rules that do not name their cluster themselves.
    """
    unplaced = {
        g.rule.scope_type.casefold() for g in grants if g.workloads and not g.rule.cluster_id
    }
    return "department" in unplaced, "project" in unplaced
