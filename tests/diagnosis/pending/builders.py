"""Builders for the Pending answer's evidence: a waiting workload, a project, capacity."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from diagnosis.kube.scheduling_models import PodGroup
from diagnosis.pending.evidence import PendingEvidence, pending_since, sayings
from diagnosis.request import DiagnosisRequest
from diagnosis.runai.models import Event, HistoryRecord, Node, Pod, Workload
from diagnosis.runai.scheduling_models import NodePool, ProjectQuota, Telemetry
from tests.factories import CLUSTER, NOW, ago, event, iso, phase_update, pod, workload

__all__ = [
    "capacity",
    "fit",
    "pending_evidence",
    "project",
    "waiting",
]

#: The reference's scheduler texts, verbatim shapes (pending-and-preemption.md §3.1).
OVER_LIMIT = (
    "nlp quota has reached the allowable limit of GPUs. Limit is 8 GPUs, currently 6 GPUs "
    "allocated and workload requested 4 GPUs"
)
NP_OVER_QUOTA = (
    "Non-preemptible workload is over quota. Workload requested 2 GPUs, but nlp quota is 4 GPUs, "
    "while 3 GPUs are already allocated for non-preemptible pods. Use a preemptible workload to "
    "go over quota."
)
QUEUE_MISSING = "Queue 'nlp-default' does not exist"
PREEMPTION_DELAY = (
    "Workload is within its preemption delay window (10m0s) and may not trigger evictions "
    "before 2026-11-30T12:05:00Z"
)
NOT_READY = "Job is not ready for scheduling. Waiting for 4 pods, currently 2 exist, 2 are gated"
GANG = (
    "Resources were found for 2 pods while 4 are required for gang scheduling. Additional pods "
    "cannot be scheduled due to: no nodes with enough resources were found: 4 node(s) didn't "
    "have enough resources: GPUs."
)
SHORTAGE = (
    "Resources were not found for pod runai-nlp/bert-ft-0-0 due to: no nodes with enough "
    "resources were found: 4 node(s) didn't have enough resources: GPUs."
)
CONSTRAINT = (
    "Resources were not found for pod runai-nlp/bert-ft-0-0 due to: no nodes with enough "
    "resources were found: 3 node(s) didn't match Pod's node affinity/selector. \n1 node(s) had "
    "untolerated taint {nvidia.com/maintenance: true}."
)
MIXED = (
    "Resources were not found for pod runai-nlp/bert-ft-0-0 due to: no nodes with enough "
    "resources were found: 3 node(s) didn't have enough resources: GPUs. \n1 node(s) didn't "
    "match Pod's node affinity/selector."
)
LARGEST = (
    "The pod runai-nlp/bert-ft-0-0 requires GPU: 16. Max GPU resources available in a single "
    "node in the default node-pool is topped at 8"
)
NO_GPU_NODE = (
    "The pod runai-nlp/bert-ft-0-0 requires GPU: 1. No node in the cpu node-pool has GPU resources"
)
PVC = "0/4 nodes are available: 4 node(s) didn't find available persistent volumes to bind."
PVC_IMMEDIATE = (
    "Resources were not found for pod runai-nlp/bert-ft-0-0 due to: no nodes with enough "
    "resources were found: pod has unbound immediate PersistentVolumeClaims."
)
MIG = "MIG job cannot be scheduled on non-MIG node"
FRACTION = "fractional/shared GPU pods are not yet supported on DRA-only nodes"
PIPELINED = "Pod runai-nlp/bert-ft-0-0 was pipelined to node dgx-a100-02"


def tainted_nodes(key: str = "team", value: str = "cv") -> dict[str, tuple[Node, ...]]:
    """Pool default's two Ready nodes, both with one NoSchedule taint."""
    taint = [{"key": key, "value": value, "effect": "NoSchedule"}]
    return {"default": (node("dgx-01", 8, taints=taint), node("dgx-02", 8, taints=taint))}


def waiting(**overrides: Any) -> Workload:
    """A Pending, preemptible training asking for 4 GPUs in pool default, 40 minutes ago."""
    body: dict[str, Any] = {
        "phase": "Pending",
        "phaseUpdatedAt": iso(ago(40)),
        "projectId": "4",
        "priority": 50,
        "preemptible": True,
        "runningPods": 0,
        "requestedPods": {"number": 1},
        "requestedNodePools": ["default"],
        "workloadRequestedResources": {"gpu": {"request": 4}},
        "podsRequestedResources": {"gpu": {"request": 4}},
    }
    body.update(overrides)
    return workload(**body)


def project(
    *,
    deserved: float | None = 8,
    limit: float | None = None,
    allocated: float | None = 2,
    allocated_np: float | None = 0,
    at: datetime | None = None,
    pool: str = "default",
) -> ProjectQuota:
    """Project nlp with its quota and usage in one pool (a None figure is left out)."""
    status: dict[str, Any] = {"nodePoolName": pool, "nodePoolId": "22"}
    if allocated is not None:
        status["allocated"] = {"gpu": allocated}
    if allocated_np is not None:
        status["allocatedNonPreemptible"] = {"gpu": allocated_np}
    gpu = {"limit": limit} if deserved is None else {"deserved": deserved, "limit": limit}
    return ProjectQuota.model_validate(
        {
            "id": "4",
            "name": "nlp",
            "resources": [{"nodePool": {"id": "22", "name": pool}, "gpu": gpu}],
            "status": {
                "namespace": "runai-nlp",
                "lastUpdatedTime": iso(at or ago(1)),
                "nodePoolQuotaStatuses": [status],
            },
            "effective": {"defaultNodePools": ["default"]},
        }
    )


#: A non-preemptible workload whose project holds 3 of its 4 deserved GPUs with such work.
NON_PREEMPTIBLE_AT_QUOTA: dict[str, Any] = {
    "wl": waiting(preemptible=False, priority=125),
    "quota": project(deserved=4, allocated=3, allocated_np=3),
}


def capacity(kind: str, values: dict[str, float], at: datetime | None = None) -> Telemetry:
    """One telemetry type per node pool."""
    return Telemetry.model_validate(
        {
            "type": kind,
            "timestamp": iso(at or ago(1)),
            "values": [
                {"value": str(v), "groups": [{"key": "Nodepool", "value": p, "name": p}]}
                for p, v in values.items()
            ],
        }
    )


def fit(message: str, reason: str = "Unschedulable", minutes_ago: float = 5) -> Event:
    """A scheduler event on the workload's PodGroup."""
    return event(
        reason,
        message,
        minutes_ago,
        involvedObject={
            "kind": "PodGroup",
            "name": "pg-bert-ft-0-3f1c2a9e",
            "namespace": "runai-nlp",
        },
    )


def pending_evidence(
    wl: Workload | None = None,
    *,
    events: list[Event] | None = None,
    history: list[HistoryRecord] | None = None,
    pods: list[Pod] | None = None,
    quota: ProjectQuota | None = None,
    free: float | None = 0,
    total: float | None = 32,
    pools: list[NodePool] | None = None,
    nodes: dict[str, tuple[Node, ...]] | None = None,
    podgroup: PodGroup | None = None,
    queue_missing: str | None = None,
    tier2: bool = False,
) -> PendingEvidence:
    """Evidence assembled exactly as `collect_pending` assembles it (sayings and staleness)."""
    wl = wl or waiting()
    history = history if history is not None else [phase_update("Pending", 40)]
    since = pending_since(wl, history)
    said, stale = sayings(
        wl,
        events or [],
        history,
        since=since,
        podgroup=podgroup,
        podgroup_source="kubectl get podgroup",
    )
    return PendingEvidence(
        request=DiagnosisRequest(cluster_id=CLUSTER, workload_id=wl.id),
        now=NOW,
        workload=wl,
        events=tuple(events or ()),
        pods=tuple(pods) if pods is not None else (pod("Pending", nodeName=None),),
        history=tuple(history),
        project=quota if quota is not None else project(),
        node_pools=tuple(pools) if pools is not None else None,
        free=capacity("FREE_GPUS", {"default": free}) if free is not None else None,
        total=capacity("TOTAL_GPUS", {"default": total}) if total is not None else None,
        pool_nodes=nodes or {},
        podgroup=podgroup,
        queue_missing=queue_missing,
        said=tuple(said),
        stale=tuple(stale),
        since=since,
        tier2=tier2,
    )


def node(name: str, gpus: int, *, taints: list[dict[str, str]] | None = None) -> Node:
    """A Ready node of pool default."""
    return Node.model_validate(
        {
            "name": name,
            "status": "Ready",
            "nodePool": "default",
            "taints": taints or [],
            "gpuInfo": {"gpuType": "NVIDIA-A100-SXM4-80GB", "gpuCount": gpus},
        }
    )


def pool(name: str = "default", phase: str = "Ready") -> NodePool:
    """A node pool in a phase."""
    return NodePool.model_validate({"id": "22", "name": name, "phase": phase})


def podgroup(
    reason: str,
    message: str,
    *,
    minutes_ago: float = 5,
    allocated: dict[str, Any] | None = None,
    details: dict[str, Any] | None = None,
    transition: str = "1",
) -> PodGroup:
    """A PodGroup with one scheduling condition for pool default."""
    return PodGroup.model_validate(
        {
            "metadata": {"name": "pg-bert-ft-0-3f1c2a9e", "namespace": "runai-nlp"},
            "spec": {"queue": "nlp", "minMember": 1},
            "status": {
                "schedulingConditions": [
                    {
                        "type": "UnschedulableOnNodePool",
                        "nodePool": "default",
                        "reasons": [{"reason": reason, "message": message, "details": details}],
                        "lastTransitionTime": iso(ago(minutes_ago)),
                        "transitionID": transition,
                    }
                ],
                "resourcesStatus": {"allocated": allocated or {}},
            },
        }
    )
