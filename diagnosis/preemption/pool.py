"""The one node pool the victim ran in, or why it cannot be told (never a sum over pools).

Quotas and usage are per node pool, so the victim's quota position (and the candidates that
started after it) are read for one pool: the pool it runs in, else the one pool it requested,
else its project's one default pool (as the Pending answer falls back to the project's
defaults). Several pools at one of those steps, or none at all, mean the pool it ran in is not
known: the reason is returned so it can be stated as a gap, and nothing is read for "all pools".
"""

from __future__ import annotations

from dataclasses import dataclass

from diagnosis.runai.models import Workload
from diagnosis.runai.scheduling_models import ProjectQuota

__all__ = ["VictimPool", "needs_project", "victim_pool"]


@dataclass(frozen=True)
class VictimPool:
    """The pool the victim ran in, or None and why it is not known."""

    pool: str | None
    unknown_why: str | None = None


def needs_project(workload: Workload) -> bool:
    """Whether only the project's default pools can say where the victim ran."""
    return not workload.current_node_pools and not workload.requested_node_pools


def victim_pool(
    workload: Workload, project: ProjectQuota | None, *, project_read: bool
) -> VictimPool:
    """The pool the victim ran in (see the module docstring); `project` only when it was read."""
    current = tuple(dict.fromkeys(workload.current_node_pools))
    if len(current) == 1:
        return VictimPool(current[0])
    if current:
        return VictimPool(None, f"it runs in several node pools ({', '.join(current)})")
    requested = tuple(dict.fromkeys(workload.requested_node_pools))
    if len(requested) == 1:
        return VictimPool(requested[0])
    if requested:
        return VictimPool(
            None,
            f"it requested several node pools ({', '.join(requested)}) and names none it ran in",
        )
    if project is None:
        why = "its project could not be read" if project_read else "it names no project"
        return VictimPool(None, f"it names no node pool and {why} for its default pools")
    defaults = tuple(
        dict.fromkeys(project.effective.default_node_pools if project.effective else ())
    )
    if len(defaults) == 1:
        return VictimPool(defaults[0])
    if defaults:
        return VictimPool(
            None,
            f"it names no node pool and its project has several default pools "
            f"({', '.join(defaults)})",
        )
    return VictimPool(None, "it names no node pool and its project lists no default pool")
