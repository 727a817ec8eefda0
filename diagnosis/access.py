"""Per-asker access, in diagnosis terms: an injectable check before a workload is shown.

`diagnose(..., authorize=...)` asks the caller's callback about every workload it is about
to use or list: by ID right after fetching its status (before the cluster guard, and
before any of its events, pods, history, spec, metrics or logs is read: `diagnosis.pipeline`
says why none is read ahead of the check),
and by name for each match and near match (those refused are dropped, as if absent). The
callback sees only the cluster, project and kind (`WorkloadAccess`), never the name, so
what it decides on cannot leak it. A refusal by ID raises `AccessDenied`, which carries
nothing about the workload: the caller says why, from its own decision.

The same callback is asked about a department (`DepartmentAccess`) before the department's
quota and usage are read or shown: they sum other projects', which reading one project's
workloads does not cover. A refusal there is no denial: the figures are a named gap.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from diagnosis.errors import DiagnosisError
from diagnosis.runai.models import Workload

__all__ = [
    "AccessDenied",
    "Authorize",
    "DepartmentAccess",
    "WorkloadAccess",
    "access_of",
    "may_read_department",
    "readable",
]


@dataclass(frozen=True)
class WorkloadAccess:
    """What an access check needs about a workload: where it is and of which kind."""

    cluster_id: str
    project: str | None
    kind: str | None


@dataclass(frozen=True)
class DepartmentAccess:
    """What an access check needs about a department: its cluster and its ID."""

    cluster_id: str
    department_id: str


class Authorize(Protocol):
    """The caller's access check (an async function of a `WorkloadAccess` or `DepartmentAccess`)."""

    async def __call__(self, access: WorkloadAccess | DepartmentAccess, /) -> bool:
        """True when the asker may see it; a refusal is False, never an error."""
        ...


class AccessDenied(DiagnosisError):
    """The asker may not see the workload asked for by ID; nothing about it is shown."""


def access_of(workload: Workload) -> WorkloadAccess:
    """The access check's view of `workload`."""
    return WorkloadAccess(workload.cluster_id, workload.project_name, workload.type)


async def readable(workloads: Iterable[Workload], authorize: Authorize | None) -> list[Workload]:
    """The workloads the asker may see, in order (all of them without a callback)."""
    listed = list(workloads)
    if authorize is None:
        return listed
    return [w for w in listed if await authorize(access_of(w))]


async def may_read_department(
    authorize: Authorize | None, cluster_id: str, department_id: str | None
) -> bool:
    """Whether the asker may see the department's figures (everyone, without a callback).

    A department that is not known (no ID) cannot be checked, so only an unchecked reader
    (the command line) may see it.
    """
    if authorize is None:
        return True
    if not department_id:
        return False
    return await authorize(DepartmentAccess(cluster_id, department_id))
