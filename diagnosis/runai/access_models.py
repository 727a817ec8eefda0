"""Typed models of Run:ai's access model: access rules, users, roles, projects, departments.

Derived from the 2.24 OpenAPI schemas `AccessRule`, `User2`, `RoleV1` (`Permission`),
`Project` and `DepartmentForList`. Like `diagnosis.runai.models`, they ignore unknown fields
and declare only what authorization reads; enumerations stay strings, so a value a newer
control plane adds is kept (and grants nothing) rather than failing the whole answer.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

from diagnosis.moments import UtcTime

__all__ = [
    "AccessRule",
    "Department",
    "OrgUnitRef",
    "Permission",
    "Project",
    "Role",
    "RunaiUser",
]


class _AccessModel(BaseModel):
    """Base: camelCase on the wire, snake_case in Python, unknown fields ignored."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True
    )


def _text(value: object) -> object:
    """Ids are strings in some bodies and numbers in others; keep them as text."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


class AccessRule(_AccessModel):
    """`AccessRule`: `subject_id` (e-mail, group name, …) holds `role_id` over one scope.

    `scope_type` is one of system, tenant, cluster, department, project; `scope_id` is the
    tenant id, cluster UUID, department id or project id.
    """

    id: int | None = None
    subject_id: str
    subject_type: str
    role_id: int
    role_name: str | None = None
    scope_id: str
    scope_type: str
    scope_name: str | None = None
    cluster_id: str | None = None
    deleted_at: UtcTime | None = None

    @field_validator("scope_id", mode="before")
    @classmethod
    def _scope_text(cls, value: object) -> object:
        return _text(value)


class RunaiUser(_AccessModel):
    """`User2`: a Run:ai user (`username` is the e-mail) and the groups it belongs to."""

    id: str | None = None
    username: str
    groups: list[str] = Field(default_factory=list)

    @field_validator("groups", mode="before")
    @classmethod
    def _no_groups(cls, value: object) -> object:
        return [] if value is None else value


class Permission(_AccessModel):
    """`Permission`: the actions (create, read, update, delete, sync) on one resource type."""

    resource_type: str
    actions: list[str] = Field(default_factory=list)
    group_id: str | None = None


class Role(_AccessModel):
    """`RoleV1`: a named set of permissions; `enabled`/`effective_enabled` False disables it."""

    id: int
    name: str
    permissions: list[Permission] = Field(default_factory=list)
    enabled: bool | None = None
    effective_enabled: bool | None = None
    deleted_at: UtcTime | None = None

    @property
    def active(self) -> bool:
        """Whether the role grants anything: not deleted and not disabled."""
        return (
            self.deleted_at is None
            and self.enabled is not False
            and self.effective_enabled is not False
        )

    def grants(self, resource_type: str, action: str) -> bool:
        """Whether the role allows `action` on `resource_type`."""
        return self.active and any(
            p.resource_type == resource_type and action in p.actions for p in self.permissions
        )


class OrgUnitRef(_AccessModel):
    """`DepartmentProjectParent` / `DepartmentProjectChild`: an org unit's id and name."""

    id: str
    name: str | None = None

    @field_validator("id", mode="before")
    @classmethod
    def _id_text(cls, value: object) -> object:
        return _text(value)


class Project(_AccessModel):
    """`Project`: id, name, cluster and parent department (`parent_id`)."""

    id: str
    name: str
    cluster_id: str | None = None
    parent_id: str | None = None
    parent: OrgUnitRef | None = None

    @field_validator("id", "parent_id", mode="before")
    @classmethod
    def _ids_text(cls, value: object) -> object:
        return _text(value)

    @property
    def department_id(self) -> str | None:
        """The parent department's id (`parentId`, else `parent.id`)."""
        return self.parent_id or (self.parent.id if self.parent else None)


class Department(_AccessModel):
    """`DepartmentForList`: id, name, cluster and (verbose bodies) its child projects."""

    id: str
    name: str
    cluster_id: str | None = None
    children: list[OrgUnitRef] = Field(default_factory=list)

    @field_validator("id", mode="before")
    @classmethod
    def _id_text(cls, value: object) -> object:
        return _text(value)

    @field_validator("children", mode="before")
    @classmethod
    def _no_children(cls, value: object) -> object:
        return [] if value is None else value
