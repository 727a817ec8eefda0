"""One row per Pending reason, from the scheduler's own texts: the evidence, reason and words."""

from __future__ import annotations

from typing import Any

import pytest

from diagnosis.pending.verdict import PendingReason
from tests.diagnosis.pending import builders as b
from tests.factories import pod

__all__ = ["CASES"]

R = PendingReason

#: id -> (evidence arguments, expected reason, words the headline must contain)
CASES: list[Any] = [
    pytest.param(
        {"pods": [pod("Pending", nodeName="dgx-a100-03")]},
        R.NOT_WAITING_ON_SCHEDULER,
        ["1 of 1 pods are placed on dgx-a100-03"],
        id="pods-placed",
    ),
    pytest.param(
        {"wl": b.waiting(phase="Initializing")},
        R.NOT_WAITING_ON_SCHEDULER,
        ["not waiting for the scheduler"],
        id="initializing",
    ),
    pytest.param(
        {"events": [b.fit(b.QUEUE_MISSING, reason="QueueDoesNotExist")]},
        R.QUEUE_MISSING,
        ["queue nlp-default does not exist"],
        id="queue-does-not-exist",
    ),
    pytest.param(
        {"events": [b.fit("failed to build a PodGroup", reason="PodGrouperWarning")]},
        R.QUEUE_MISSING,
        ["pod grouper could not build"],
        id="pod-grouper-warning",
    ),
    pytest.param(
        {"queue_missing": "nlp-h100", "tier2": True},
        R.QUEUE_MISSING,
        ["names queue nlp-h100, which does not exist"],
        id="queue-not-found-t2",
    ),
    pytest.param(
        {"events": [b.fit(b.NOT_READY, reason="NotReady")]},
        R.HELD_NOT_READY,
        ["it needs 4 pods, 2 exist and 2 are gated"],
        id="podgroup-not-ready",
    ),
    pytest.param(
        {"wl": b.waiting(requestedPods={"number": 4, "min": 4}), "pods": []},
        R.HELD_NOT_READY,
        ["it needs 4 pods and 0 exist"],
        id="pods-missing-tier1",
    ),
    pytest.param(
        {"events": [b.fit(b.OVER_LIMIT, reason="OverLimit")]},
        R.OVER_LIMIT,
        ["project's GPUs limit in node pool default: limit 8, allocated 6, requested 4"],
        id="over-limit-text",
    ),
    pytest.param(
        {
            "wl": b.waiting(
                pendingSchedulingMessages=[
                    {
                        "nodePool": "default",
                        "phaseReason": "OverLimit",
                        "reason": "Over limit",
                        "orgType": "DEPARTMENT",
                        "userMessage": None,
                    }
                ]
            )
        },
        R.OVER_LIMIT,
        ["department's GPUs limit"],
        id="over-limit-typed-department",
    ),
    pytest.param(
        {
            "events": [b.fit(b.NP_OVER_QUOTA, reason="NonPreemptibleOverQuota")],
            **b.NON_PREEMPTIBLE_AT_QUOTA,
        },
        R.NON_PREEMPTIBLE_OVER_QUOTA,
        ["Non-preemptible and over", "requested 2, non-preemptible allocated 3, deserved 4"],
        id="np-over-quota-text",
    ),
    pytest.param(
        {
            "wl": b.waiting(preemptible=False, priority=125),
            "quota": b.project(deserved=4, allocated=6, allocated_np=3),
        },
        R.NON_PREEMPTIBLE_OVER_QUOTA,
        ["requested 4, non-preemptible allocated 3, deserved 4"],
        id="np-over-quota-from-numbers",
    ),
    pytest.param(
        {
            "events": [b.fit("Non-preemptible over quota")],
            "wl": b.waiting(preemptible=False, priority=125),
            "quota": b.project(deserved=4, allocated=3, allocated_np=None),
        },
        R.NON_PREEMPTIBLE_OVER_QUOTA,
        ["Non-preemptible and over the project's GPU quota in node pool default"],
        id="np-over-quota-run-ai-words",
    ),
    pytest.param(
        {"events": [b.fit(b.PVC)]}, R.PVC_UNBOUND, ["cannot be bound"], id="pvc-no-volumes"
    ),
    pytest.param(
        {"events": [b.fit(b.PVC_IMMEDIATE)], "free": 16},
        R.PVC_UNBOUND,
        ["A volume claim it needs is unbound: with Immediate binding"],
        id="pvc-unbound-immediate",
    ),
    pytest.param(
        {"events": [b.fit(b.CONSTRAINT)]},
        R.NODE_CONSTRAINT_MISMATCH,
        ["selector, affinity or tolerations"],
        id="affinity-and-taint-only",
    ),
    pytest.param(
        {"pools": [b.pool(phase="Unschedulable")]},
        R.NODE_CONSTRAINT_MISMATCH,
        ["Node pool default is Unschedulable"],
        id="pool-unschedulable",
    ),
    pytest.param(
        {
            "nodes": b.tainted_nodes(),
            "free": 16,
            "pods": [pod("Pending", nodeName=None, tolerations=[])],
        },
        R.NODE_CONSTRAINT_MISMATCH,
        ["taint team=cv:NoSchedule"],
        id="every-node-tainted",
    ),
    pytest.param(
        {
            "events": [b.fit(b.LARGEST)],
            "wl": b.waiting(podsRequestedResources={"gpu": {"request": 16}}),
        },
        R.REQUEST_EXCEEDS_LARGEST_NODE,
        ["asks for 16 GPUs, but the largest node has 8 GPUs"],
        id="max-node-resources-text",
    ),
    pytest.param(
        {"events": [b.fit(b.NO_GPU_NODE)]},
        R.REQUEST_EXCEEDS_LARGEST_NODE,
        ["no node has GPUs"],
        id="no-gpu-node-text",
    ),
    pytest.param(
        {
            "wl": b.waiting(podsRequestedResources={"gpu": {"request": 16}}),
            "nodes": {"default": (b.node("dgx-01", 8), b.node("dgx-02", 8))},
            "free": 16,
        },
        R.REQUEST_EXCEEDS_LARGEST_NODE,
        ["largest Ready node in node pool default has 8"],
        id="largest-node-tier1",
    ),
    pytest.param(
        {"events": [b.fit(b.MIG)]}, R.GPU_TYPE_OR_FRACTION_UNAVAILABLE, ["kind of GPU"], id="mig"
    ),
    pytest.param(
        {"events": [b.fit(b.FRACTION)]},
        R.GPU_TYPE_OR_FRACTION_UNAVAILABLE,
        ["fraction"],
        id="fraction",
    ),
    pytest.param(
        {"events": [b.fit(b.GANG)]},
        R.GANG_MIN_MEMBER_NOT_MET,
        ["room for 2 pods, 4 must start together"],
        id="gang",
    ),
    pytest.param(
        {"events": [b.fit(b.PREEMPTION_DELAY, reason="PreemptionDelayNotElapsed")]},
        R.PREEMPTION_DELAYED,
        ["(10m0s)", "before 2026-11-30 12:05:00Z."],
        id="preemption-delay",
    ),
    pytest.param(
        {
            "events": [
                b.fit(
                    b.PREEMPTION_DELAY.replace("12:05:00Z", "14:05:00+02:00"),
                    reason="PreemptionDelayNotElapsed",
                )
            ]
        },
        R.PREEMPTION_DELAYED,
        ["before 2026-11-30 12:05:00Z."],
        id="preemption-delay-offset",
    ),
    pytest.param(
        {"events": [b.fit(b.SHORTAGE)], "quota": b.project(deserved=4, allocated=6), "free": 1},
        R.PROJECT_OVER_QUOTA,
        ["6 of 4 deserved GPUs allocated, 4 more asked for, 1 of 32 free"],
        id="over-quota-shortage",
    ),
    pytest.param(
        {"events": [b.fit(b.SHORTAGE)], "quota": b.project(deserved=8, allocated=2), "free": 1},
        R.NODE_POOL_FULL,
        ["(1 of 32 GPUs free, 4 asked for), though the project is within its quota: capacity"],
        id="in-quota-shortage",
    ),
    pytest.param(
        {"events": [b.fit(b.PIPELINED, reason="Pipelined")], "free": 0},
        R.NODE_POOL_FULL,
        ["capacity is held by others"],
        id="pipelined-in-quota",
    ),
    pytest.param(
        {"events": [b.fit(b.MIXED)], "free": None},
        R.UNKNOWN,
        ["cannot be told from what was read; what would decide it is under Not measured."],
        id="free-gpus-not-read",
    ),
]
