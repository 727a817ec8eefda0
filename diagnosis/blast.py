"""A node failure's blast radius: the other workloads it ended, as far as the asker may see.

When the verdict is NODE_FAILURE, the node rarely took down only this workload. Run:ai
lists the pods that ran on the node and ended around the failure (Tier 1:
`GET /api/v1/workloads/pods` by node and `completedAt`); each of their workloads is read and
offered to the asker's access check (`diagnosis.access`, kind included). Only the readable
ones are counted and named: what the asker may not read does not exist here.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Protocol, runtime_checkable

from diagnosis.access import Authorize, readable
from diagnosis.errors import NotFound, UpstreamError
from diagnosis.evidence import Gap
from diagnosis.fetch import gap_for, within_deadline
from diagnosis.redact import quote
from diagnosis.report import EvidenceLine
from diagnosis.runai.models import Pod, Workload
from diagnosis.runai.reader import RunaiReader

__all__ = ["BLAST_FACT", "MAX_WORKLOADS", "WINDOW", "NodePods", "blast_radius"]

#: How far around this workload's termination the node's other terminations are counted.
WINDOW = timedelta(minutes=30)
#: Other workloads read at most (a busy node's pods are listed once; each workload once).
MAX_WORKLOADS = 50
PODS = "get_workload_pods"
#: The blast-radius line's fact key: it was counted for one asker (`diagnosis.viewer`).
BLAST_FACT = "blast-radius"


@runtime_checkable
class NodePods(Protocol):
    """A reader that lists every workload's pods on one node (`RunaiClient` is one)."""

    async def list_node_pods(
        self, *, cluster_id: str, node: str, start: datetime, end: datetime
    ) -> list[Pod]:
        """The pods that ran on `node` and ended between `start` and `end`."""
        ...


async def _workloads(runai: RunaiReader, ids: list[str]) -> tuple[list[Workload], int]:
    """The workloads read, and how many could not be read (deleted ones are not counted)."""
    found, lost = [], 0
    for workload_id in ids[:MAX_WORKLOADS]:
        try:
            found.append(
                await within_deadline(runai.get_workload(workload_id), "get_workload_status")
            )
        except NotFound:
            continue  # deleted since: it is not there to name
        except UpstreamError:
            lost += 1
    return found, lost + max(0, len(ids) - MAX_WORKLOADS)


async def blast_radius(
    workload: Workload,
    node: str,
    *,
    pods: NodePods,
    runai: RunaiReader,
    authorize: Authorize | None,
) -> tuple[EvidenceLine | None, Gap | None]:
    """The line saying how many other readable workloads ended on `node` around this failure."""
    at = workload.phase_updated_at
    if at is None:
        return None, None
    start, end = at - WINDOW, at + WINDOW
    what = f"other workloads ended on node {node}"
    try:
        listed = await within_deadline(
            pods.list_node_pods(cluster_id=workload.cluster_id, node=node, start=start, end=end),
            PODS,
        )
    except UpstreamError as error:
        return None, gap_for(PODS, what, error)
    ids = list(
        dict.fromkeys(
            p.workload_id for p in listed if p.workload_id and p.workload_id != workload.id
        )
    )
    found, lost = await _workloads(runai, ids)
    mine = await readable(found, authorize)
    minutes = int(WINDOW.total_seconds() // 60)
    within = f"on node {quote(node, 80)} within {minutes} min of this failure"
    if mine:
        noun = "workload" if len(mine) == 1 else "workloads"
        named = ", ".join(f"{quote(w.name, 80)} ({quote(w.project_name or '?', 80)})" for w in mine)
        text = f"{len(mine)} other {noun} you can read also ended {within}: {named}"
    else:
        text = f"No other workload you can read ended {within}"
    gap = None
    if lost:
        gap = Gap(source="get_workload_status", what=f"{lost} of the {what} could not be read")
    line = EvidenceLine(
        text=text,
        source=PODS,
        sources=(PODS, "get_workload_status"),
        deciding=True,
        fact=BLAST_FACT,
    )
    return line, gap
