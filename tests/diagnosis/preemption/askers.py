"""An access check for the preemption tests: the (project, kind) pairs and departments it reads."""

from __future__ import annotations

from diagnosis.access import DepartmentAccess, WorkloadAccess

__all__ = ["Asker"]


class Asker:
    """An access check that reads the listed (project, kind) pairs and `departments` (IDs).

    It records the workloads it was asked about (`asked`) and the departments (`checked`).
    """

    def __init__(self, *readable: tuple[str, str], departments: tuple[str, ...] = ()) -> None:
        self.readable = set(readable)
        self.departments = set(departments)
        self.asked: list[WorkloadAccess] = []
        self.checked: list[DepartmentAccess] = []

    async def __call__(self, access: WorkloadAccess | DepartmentAccess, /) -> bool:
        if isinstance(access, DepartmentAccess):
            self.checked.append(access)
            return access.department_id in self.departments
        self.asked.append(access)
        return (access.project, access.kind) in self.readable
