"""The Run:ai access-model reads of `RunaiClient`: access rules, users, roles, org units.

Per-user authorization (bot/authz) asks these to decide what a person may see; the diagnosis
itself never does. A mixin over the client's session and paging (`diagnosis.runai.session`),
so `client.py` stays about workloads. Failures raise the one error tree (`diagnosis.errors`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from diagnosis.errors import UpstreamUnavailable
from diagnosis.http.responses import json_member, parse_models, shape_error
from diagnosis.runai.access_models import AccessRule, Department, Project, Role, RunaiUser
from diagnosis.runai.session import MAX_PAGES, Params, Session, get

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["AccessReads"]

# The access model's list sizes (the largest `limit` each endpoint accepts).
_ACCESS_PAGE_SIZE = 500
_USERS_PAGE_SIZE = 500


class AccessReads:
    """The access-model reads, each a GET of the 2.24 API (see the module docstring)."""

    async def list_access_rules(
        self: Session, *, subject_type: str, subject_ids: Sequence[str]
    ) -> list[AccessRule]:
        """`GET /api/v1/authorization/access-rules` for these subjects: live rules, all pages.

        The body is `{totalRecords, displayRecords, accessRules}` (no `next`): pages of 500
        are read until `totalRecords` are in. Rules of other subjects, should the server
        ignore the filter, and deleted rules are dropped, so they can never grant anything.
        """
        wanted = {s for s in subject_ids if s}
        if not wanted:
            return []
        operation, path = "list_access_rules", "/api/v1/authorization/access-rules"
        params: Params = {
            "subjectType": subject_type,
            "subjectIds": ",".join(sorted(wanted)),
            "limit": _ACCESS_PAGE_SIZE,
        }
        rules: list[AccessRule] = []
        for _ in range(MAX_PAGES):
            query = {**params, "offset": len(rules)} if rules else params
            body, url = await get(self._http, path, operation=operation, params=query)
            total = json_member(body, "totalRecords", operation=operation, url=url)
            raw = json_member(body, "accessRules", operation=operation, url=url)
            page = parse_models(AccessRule, raw, operation=operation, url=url)
            if not isinstance(total, int) or isinstance(total, bool):
                raise shape_error("`totalRecords` is not a number", operation=operation, url=url)
            rules.extend(page)
            if not page or len(rules) >= total:
                return [
                    r
                    for r in rules
                    if r.subject_type == subject_type
                    and r.subject_id in wanted
                    and r.deleted_at is None
                ]
        raise UpstreamUnavailable(
            f"pagination did not terminate after {MAX_PAGES} pages", operation=operation, url=path
        )

    async def find_users(self: Session, username: str) -> list[RunaiUser]:
        """`GET /api/v1/users?filterBy=username==<username>` (a bare array): exact matches."""
        operation = "find_users"
        params: Params = {"filterBy": f"username=={username}", "limit": _USERS_PAGE_SIZE}
        users: list[RunaiUser] = []
        for _ in range(MAX_PAGES):
            query = {**params, "offset": len(users)} if users else params
            body, url = await get(self._http, "/api/v1/users", operation=operation, params=query)
            page = parse_models(RunaiUser, body, operation=operation, url=url)
            users.extend(page)
            if len(page) < _USERS_PAGE_SIZE:
                return [u for u in users if u.username.casefold() == username.casefold()]
        raise UpstreamUnavailable(
            f"pagination did not terminate after {MAX_PAGES} pages",
            operation=operation,
            url="/api/v1/users",
        )

    async def list_roles(self: Session) -> list[Role]:
        """`GET /api/v1/authorization/roles` (a bare array of `RoleV1`)."""
        operation = "list_roles"
        body, url = await get(self._http, "/api/v1/authorization/roles", operation=operation)
        return parse_models(Role, body, operation=operation, url=url)

    async def list_projects(
        self: Session,
        *,
        cluster_id: str | None = None,
        name: str | None = None,
        parent_id: str | None = None,
    ) -> list[Project]:
        """`GET /api/v1/org-unit/projects`, filtered by whichever of the three are given."""
        terms = [
            f"{field}=={value}"
            for field, value in (("clusterId", cluster_id), ("name", name), ("parentId", parent_id))
            if value is not None
        ]
        params: Params = {"limit": _ACCESS_PAGE_SIZE}
        if terms:
            params["filterBy"] = ",".join(terms)
        found = await self._collect(
            "list_projects", "/api/v1/org-unit/projects", params, key="projects", model=Project
        )
        return [
            p
            for p in found
            if cluster_id in {None, p.cluster_id}
            and name in {None, p.name}
            and parent_id in {None, p.department_id}
        ]

    async def list_departments(self: Session, *, cluster_id: str | None = None) -> list[Department]:
        """`GET /api/v1/org-unit/departments`, optionally of one cluster."""
        params: Params = {"limit": _ACCESS_PAGE_SIZE}
        if cluster_id is not None:
            params["filterBy"] = f"clusterId=={cluster_id}"
        return await self._collect(
            "list_departments",
            "/api/v1/org-unit/departments",
            params,
            key="departments",
            model=Department,
        )
