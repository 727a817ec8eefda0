"""Stand-ins the diagnosis is handed: an `authorize` that refuses, a `share` that remembers."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from diagnosis import DepartmentAccess, Payload, WorkloadAccess

__all__ = ["Memo", "Refusing"]


class Refusing:
    """Refuses the given (project, kind) pairs, and every department; remembers the workloads."""

    def __init__(self, *refused: tuple[str, str | None]) -> None:
        self.refused = set(refused)
        self.asked: list[WorkloadAccess] = []

    async def __call__(self, workload: WorkloadAccess | DepartmentAccess, /) -> bool:
        if isinstance(workload, DepartmentAccess):
            return False
        self.asked.append(workload)
        return (workload.project, workload.kind) not in self.refused


class Memo:
    """A `Share` that keeps every result, and remembers what it was asked (kind, key)."""

    def __init__(self) -> None:
        self.kept: dict[tuple[str, str], str] = {}
        self.asked: list[tuple[str, str]] = []

    async def __call__(
        self, kind: str, key: str, compute: Callable[[], Awaitable[Payload]], /
    ) -> str:
        self.asked.append((kind, key))
        if (kind, key) not in self.kept:
            payload = await compute()
            if not payload.keep:
                return payload.text
            self.kept[kind, key] = payload.text
        return self.kept[kind, key]
