"""Everything the Pending answer reads, concurrently; every failed read is a stated gap.

Reads that need only the IDs the status already gave run at once: pods and history (the
workload ID), the project's quota (its project ID), its department's (its department ID), node
pools and the pools' free and total GPUs (the cluster ID). The pools' nodes follow the project
only when the workload names no pool, and so does the department when the workload names none;
Kubernetes (Tier 2) follows the pods: the pods' conditions and events, then the PodGroup, then
its Queue and its events.

The department's quota is read only when the asker may see it (`read_department`: no
per-asker check, as on the command line, or their own Run:ai access covers the department):
its usage sums other projects', which a person who may read this project's workloads need not
be allowed to see. Otherwise it is withheld, and the rules name it unknown where it decides;
one that cannot be read is a gap. Either way, never "unconstrained". A workload with no
department at all (neither it nor its project names one) misses nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable
from datetime import datetime
from typing import TypeVar

from diagnosis.errors import NotFound, UpstreamError
from diagnosis.evidence import Gap, Signal
from diagnosis.fetch import Fetched, fetch_history, gap_for, gather_gap, ready, within_deadline
from diagnosis.kube.collect import namespace_for
from diagnosis.kube.event_models import KubeEvent
from diagnosis.kube.models import Pod as KubePod
from diagnosis.kube.reader import KubeReader
from diagnosis.kube.scheduler_reads import podgroup_events, podgroup_name
from diagnosis.kube.scheduling_client import GET_PODGROUP, GET_QUEUE
from diagnosis.kube.scheduling_models import PodGroup
from diagnosis.kube.signals import source
from diagnosis.pending.department import GET_DEPARTMENT
from diagnosis.pending.evidence import PendingEvidence, pending_since, sayings
from diagnosis.request import DiagnosisRequest
from diagnosis.runai.models import Event, HistoryRecord, Node, Pod, Workload
from diagnosis.runai.reader import RunaiReader
from diagnosis.runai.scheduling_models import DepartmentQuota, ProjectQuota

__all__ = ["MAX_POOLS", "collect_pending"]

T = TypeVar("T")
#: Node pools whose nodes are read (a workload lists its pools in preference order).
MAX_POOLS = 3
#: Unplaced pods described through Kubernetes.
MAX_PODS = 3
_KubeLine = tuple[str | None, str | None, datetime | None, str, str]


class _Tier2:
    """What Kubernetes added: pods, statements, the PodGroup, a missing queue, gaps."""

    def __init__(self) -> None:
        self.pods: list[KubePod] = []
        self.lines: list[_KubeLine] = []
        self.podgroup: PodGroup | None = None
        self.cite = ""
        self.queue_missing: str | None = None
        self.gaps: list[Gap] = []

    def take(self, fetched: Fetched[T]) -> T | None:
        if fetched.gap is not None:
            self.gaps.append(fetched.gap)
        return fetched.value


async def _project(runai: RunaiReader, workload: Workload) -> Fetched[ProjectQuota]:
    if not workload.project_id:
        gap = Gap(
            source="get_project", what="the project's quota (the workload names no project ID)"
        )
        return Fetched(None, gap)
    return await gather_gap(
        "get_project", "the project's quota and usage", runai.get_project(workload.project_id)
    )


async def _department(
    runai: RunaiReader,
    workload: Workload,
    project: Awaitable[Fetched[ProjectQuota]],
    *,
    read: bool,
) -> tuple[Fetched[DepartmentQuota], bool]:
    """The department's quota and usage, and whether it was withheld from this asker.

    By the workload's department ID, else its project's parent; neither naming one, the
    workload has no department: nothing is missing. Withheld: `read` False, and it has (or,
    its project unread, may have) one.
    """
    department_id = (workload.department_id or "").strip()
    if not department_id:
        found = await project
        if found.value is None:  # whether it has a department is not known
            if not read:
                return Fetched(None, None), True
            what = "department quota unavailable (the project, which would name it, was not read)"
            return Fetched(None, Gap(source=GET_DEPARTMENT, what=what)), False
        department_id = (found.value.parent_id or "").strip()
    if not department_id:
        return Fetched(None, None), False
    if not read:
        return Fetched(None, None), True
    fetched = await gather_gap(
        GET_DEPARTMENT, "department quota", runai.get_department(department_id)
    )
    return fetched, False


async def _pool_nodes(
    runai: RunaiReader, workload: Workload, project: Awaitable[Fetched[ProjectQuota]]
) -> tuple[dict[str, tuple[Node, ...]], list[Gap]]:
    pools = list(workload.requested_node_pools)
    if not pools:
        read = (await project).value
        pools = list(read.effective.default_node_pools) if read and read.effective else []
    reads = await asyncio.gather(
        *(
            gather_gap(
                "list_nodes",
                f"nodes of node pool {pool}",
                runai.list_pool_nodes(cluster_id=workload.cluster_id, node_pool=pool),
            )
            for pool in pools[:MAX_POOLS]
        )
    )
    found = {
        pool: tuple(r.value) for pool, r in zip(pools, reads, strict=False) if r.value is not None
    }
    return found, [r.gap for r in reads if r.gap is not None]


async def _kube_pod(kube: KubeReader, out: _Tier2, namespace: str, name: str) -> None:
    describe = source("kubectl describe pod", namespace)
    events_cite = source("kubectl get events", namespace)
    pod, events = await asyncio.gather(
        gather_gap(describe, f"pod {name} ({describe})", kube.get_pod(namespace, name)),
        gather_gap(
            events_cite,
            f"events of pod {name} ({events_cite})",
            kube.list_pod_events(namespace, name),
        ),
    )
    found = out.take(pod)
    if found is not None:
        out.pods.append(found)
        for cond in found.status.conditions:
            if cond.type == "PodScheduled" and (cond.status or "").lower() == "false":
                origin = f"pod {name} condition PodScheduled=False"
                out.lines.append(
                    (cond.reason, cond.message, cond.last_transition_time, describe, origin)
                )
    said = out.take(events)
    out.lines.extend(_event_lines(said or [], events_cite, f"pod {name}"))


def _event_lines(events: Iterable[KubeEvent], cite: str, what: str) -> list[_KubeLine]:
    return [(e.reason, e.message, e.last_timestamp, cite, f"event on {what}") for e in events]


async def _tier2(
    kube: KubeReader,
    workload: Workload,
    events: tuple[Event, ...],
    pods: Awaitable[Fetched[list[Pod]]],
) -> _Tier2:
    out = _Tier2()
    namespace, _ = namespace_for(workload)
    if namespace is None:
        out.gaps.append(
            Gap(
                source="kubectl",
                what="Kubernetes evidence: the workload has no namespace or project",
            )
        )
        return out
    listed = (await pods).value or []
    waiting = [p.name for p in listed if not p.node_name][:MAX_PODS]
    await asyncio.gather(*(_kube_pod(kube, out, namespace, name) for name in waiting))
    name = podgroup_name(events, out.pods)
    if name is None:
        out.gaps.append(
            Gap(source=GET_PODGROUP, what="the PodGroup (no event or pod annotation names it)")
        )
        return out
    out.cite = source(GET_PODGROUP, namespace)
    read = await gather_gap(
        out.cite, f"PodGroup {name} ({out.cite})", kube.get_podgroup(namespace, name)
    )
    out.podgroup = out.take(read)
    queue = out.podgroup.spec.queue if out.podgroup else None
    (group_events, gap, cite), _ = await asyncio.gather(
        podgroup_events(kube, namespace, name), _queue(kube, out, queue)
    )
    if gap is not None:
        out.gaps.append(gap)
    out.lines.extend(_event_lines(group_events or [], cite, f"PodGroup {name}"))
    return out


async def _queue(kube: KubeReader, out: _Tier2, queue: str | None) -> None:
    """Read the PodGroup's queue: NotFound is a finding (it does not exist), not a gap."""
    if not queue:
        return
    try:
        await within_deadline(kube.get_queue(queue), GET_QUEUE)
    except NotFound:
        out.queue_missing = queue
    except UpstreamError as error:
        out.gaps.append(gap_for(GET_QUEUE, f"queue {queue}", error))


async def collect_pending(
    request: DiagnosisRequest,
    runai: RunaiReader,
    *,
    workload: Workload,
    events: Fetched[tuple[Event, ...]],
    signals: list[Signal],
    now: datetime,
    since: datetime,
    kube: KubeReader | None,
    history_read: Fetched[list[HistoryRecord]] | None = None,
    read_department: bool = False,
) -> PendingEvidence:
    """Read what explains a Pending workload (see the module docstring).

    `history_read`, when given, was read already (to tell a survived eviction): not read again.
    """
    cluster = workload.cluster_id
    pods = asyncio.ensure_future(
        gather_gap("get_workload_pods", "pods", runai.list_pods(workload.id))
    )
    project = asyncio.ensure_future(_project(runai, workload))
    department = asyncio.ensure_future(
        _department(runai, workload, asyncio.shield(project), read=read_department)
    )
    try:
        history, pools, free, total, (nodes, node_gaps), tier2 = await asyncio.gather(
            (
                fetch_history(runai, workload.id, since)
                if history_read is None
                else ready(history_read)
            ),
            gather_gap("get_nodepools", "node pools", runai.list_node_pools(cluster_id=cluster)),
            gather_gap(
                "get_node_telemetry",
                "the node pools' free GPUs",
                runai.get_node_telemetry(cluster_id=cluster, telemetry_type="FREE_GPUS"),
            ),
            gather_gap(
                "get_node_telemetry",
                "the node pools' total GPUs",
                runai.get_node_telemetry(cluster_id=cluster, telemetry_type="TOTAL_GPUS"),
            ),
            _pool_nodes(runai, workload, asyncio.shield(project)),
            _tier2(kube, workload, events.value or (), asyncio.shield(pods)) if kube else _none(),
        )
        pods_read, project_read, (unit, withheld) = await pods, await project, await department
    finally:
        pods.cancel()
        project.cancel()
        department.cancel()
    reads = (events, pods_read, history, project_read, unit, pools, free, total)
    gaps = [f.gap for f in reads if f.gap]
    gaps += node_gaps
    waiting_since = pending_since(workload, history.value)
    said, stale = sayings(
        workload,
        events.value or (),
        history.value or (),
        since=waiting_since,
        podgroup=tier2.podgroup if tier2 else None,
        podgroup_source=tier2.cite if tier2 else "",
        kube=tier2.lines if tier2 else (),
    )
    if tier2 is not None:
        gaps += tier2.gaps
    return PendingEvidence(
        request=request,
        now=now,
        workload=workload,
        signals=tuple(signals),
        events=events.value,
        pods=tuple(pods_read.value) if pods_read.value is not None else None,
        history=tuple(history.value) if history.value is not None else None,
        project=project_read.value,
        department=unit.value,
        department_withheld=withheld,
        node_pools=tuple(pools.value) if pools.value is not None else None,
        free=free.value,
        total=total.value,
        pool_nodes=nodes,
        podgroup=tier2.podgroup if tier2 else None,
        queue_missing=tier2.queue_missing if tier2 else None,
        kube_pods=tuple(tier2.pods) if tier2 else None,
        said=tuple(said),
        stale=tuple(stale),
        since=waiting_since,
        tier2=kube is not None,
        gaps=tuple(gaps),
    )


async def _none() -> None:
    return None
