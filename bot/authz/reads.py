"""The Run:ai reads behind a decision: a person's grants, and what they make readable.

`bot.authz.authorizer` shares, caches and prefetches these; `bot.authz.policy` decides from
what they return. Each read raises `DiagnosisError` when Run:ai fails (the caller fails closed).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from typing import Protocol, TypeVar

from bot.authz.decision import Target
from bot.authz.policy import Grant, needs_units, reach, read_grants, readable_resources
from diagnosis import AccessRule, Department, Project, Role, RunaiUser

__all__ = ["AccessReader", "grants_of", "pair", "reach_of", "readable", "readable_names"]

A = TypeVar("A")
B = TypeVar("B")


class AccessReader(Protocol):
    """The reads the authorizer needs; `diagnosis.RunaiClient` provides them."""

    async def list_access_rules(
        self, *, subject_type: str, subject_ids: Sequence[str]
    ) -> list[AccessRule]:
        """Live rules of these subjects."""
        ...

    async def find_users(self, username: str) -> list[RunaiUser]:
        """Users with exactly this username."""
        ...

    async def list_roles(self) -> list[Role]:
        """Every role."""
        ...

    async def list_projects(
        self,
        *,
        cluster_id: str | None = None,
        name: str | None = None,
        parent_id: str | None = None,
    ) -> list[Project]:
        """Projects matching every given filter."""
        ...

    async def list_departments(self, *, cluster_id: str | None = None) -> list[Department]:
        """Every department (of one cluster)."""
        ...


async def pair(first: Awaitable[A], second: Awaitable[B]) -> tuple[A, B]:
    """Both results, concurrently; the first failure is raised once both have finished."""
    one, two = await asyncio.gather(first, second, return_exceptions=True)
    if isinstance(one, BaseException):
        raise one
    if isinstance(two, BaseException):
        raise two
    return one, two


async def grants_of(runai: AccessReader, email: str) -> list[Grant]:
    """The rules of `email` and of its groups whose role grants read on workloads or departments."""
    (own, users), roles = await pair(
        pair(
            runai.list_access_rules(subject_type="user", subject_ids=[email]),
            runai.find_users(email),
        ),
        runai.list_roles(),
    )
    groups = sorted({g for user in users for g in user.groups})
    rules = list(own)
    if groups:
        rules += await runai.list_access_rules(subject_type="group", subject_ids=groups)
    return read_grants(rules, roles)


async def readable(
    runai: AccessReader, grants_read: Awaitable[list[Grant]], target: Target
) -> frozenset[str]:
    """The resource types `grants_read` makes readable in the target's project."""
    grants, projects = await pair(
        grants_read,
        runai.list_projects(cluster_id=target.cluster_id, name=target.project),
    )
    project = next((p for p in projects if p.name == target.project), None)
    grants = [g for g in grants if g.workloads]
    if not grants or project is None:
        return frozenset()
    departments = sorted({g.rule.scope_id for g in grants if g.rule.scope_type == "department"})
    members: dict[str, frozenset[str]] = {}
    for department in departments:
        listed = await runai.list_projects(parent_id=department)
        members[department] = frozenset(p.id for p in listed)
    return readable_resources(
        grants, cluster_id=target.cluster_id, project=project, department_projects=members
    )


async def readable_names(runai: AccessReader, email: str, cluster_id: str) -> list[str]:
    """The names of the projects on `cluster_id` where `email` may read some workloads."""
    found, projects = await pair(
        grants_of(runai, email), runai.list_projects(cluster_id=cluster_id)
    )
    grants = [g for g in found if g.workloads]
    departments = sorted({g.rule.scope_id for g in grants if g.rule.scope_type == "department"})
    members = {
        d: frozenset(p.id for p in await runai.list_projects(parent_id=d)) for d in departments
    }
    return [
        p.name
        for p in projects
        if readable_resources(grants, cluster_id=cluster_id, project=p, department_projects=members)
    ]


async def reach_of(runai: AccessReader, grants: list[Grant]) -> tuple[bool, frozenset[str]]:
    """Whether `grants` read everywhere, else the clusters they cover."""
    by_department, by_project = needs_units(grants)
    departments: dict[str, str | None] = {}
    projects: dict[str, str | None] = {}
    if by_department:
        departments = {d.id: d.cluster_id for d in await runai.list_departments()}
    if by_project:
        projects = {p.id: p.cluster_id for p in await runai.list_projects()}
    return reach(grants, department_clusters=departments, project_clusters=projects)
