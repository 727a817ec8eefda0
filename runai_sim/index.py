"""Workloads by id and by name, in step with the scenario's list however it is changed.

The simulator serves a scenario object that tests and the control endpoint change in place
(append, replace, delete). Every per-workload request looks its workload up by id, and the
bot resolves a name with `filterBy=name==…`: a scan of the whole list each time made the
simulator's CPU grow with the scenario (1,000 workloads in the benchmark). The index is
rebuilt when the list no longer holds the same entries in the same places, and when a
lookup misses (an entry's id or name edited in place is found again that way).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from runai_sim.scenario import WorkloadEntry

__all__ = ["WorkloadIndex"]


class WorkloadIndex:
    """Lookups over `entries`, the scenario's own list (not a copy)."""

    def __init__(self, entries: list[WorkloadEntry]) -> None:
        self._entries = entries
        self._seen: list[int] = []
        self._by_id: dict[str, WorkloadEntry] = {}
        self._by_name: dict[str, list[WorkloadEntry]] = {}

    def over(self, entries: list[WorkloadEntry]) -> bool:
        """Whether this indexes that very list."""
        return entries is self._entries

    def by_id(self, workload_id: str) -> WorkloadEntry | None:
        """The first entry whose `workload.id` is `workload_id`, as a scan would find it."""
        self._refresh()
        entry = self._by_id.get(workload_id)
        if entry is None or entry.id != workload_id:
            self._rebuild()
            entry = self._by_id.get(workload_id)
        return entry

    def named(self, name: str) -> list[WorkloadEntry]:
        """The entries whose `workload.name` may be `name`, in list order (check each)."""
        self._refresh()
        found = self._by_name.get(name)
        if not found:
            self._rebuild()
            found = self._by_name.get(name)
        return list(found or ())

    def _refresh(self) -> None:
        # By identity: the index holds every entry it saw, so no id here can be reused.
        if list(map(id, self._entries)) != self._seen:
            self._rebuild()

    def _rebuild(self) -> None:
        entries = list(self._entries)  # one state of it, were a test thread changing it now
        by_id: dict[str, WorkloadEntry] = {}
        by_name: defaultdict[str, list[WorkloadEntry]] = defaultdict(list)
        for entry in entries:
            by_id.setdefault(entry.id, entry)
            by_name[str(entry.workload.get("name", ""))].append(entry)
        self._by_id, self._by_name = by_id, dict(by_name)
        self._seen = list(map(id, entries))
