"""One row per Pending reason, from the scheduler's own texts: the reason, and its key figures."""

from __future__ import annotations

from typing import Any

import pytest

from diagnosis.pending.table import decide
from diagnosis.pending.verdict import PendingReason
from tests.diagnosis.pending import builders as b
from tests.factories import ago, history_event, phase_update, pod

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
        {"events": [b.fit(b.NP_OVER_QUOTA, reason="NonPreemptibleOverQuota")]},
        R.NON_PREEMPTIBLE_OVER_QUOTA,
        ["requested 2, non-preemptible allocated 3, deserved 4"],
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
        {"events": [b.fit("Non-preemptible over quota")]},
        R.NON_PREEMPTIBLE_OVER_QUOTA,
        ["Non-preemptible and over the project's GPU quota in node pool default"],
        id="np-over-quota-run-ai-words",
    ),
    pytest.param(
        {"events": [b.fit(b.PVC)]}, R.PVC_UNBOUND, ["cannot be bound"], id="pvc-no-volumes"
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
            "nodes": {
                "default": (
                    b.node(
                        "dgx-01", 8, taints=[{"key": "team", "value": "cv", "effect": "NoSchedule"}]
                    ),
                    b.node(
                        "dgx-02", 8, taints=[{"key": "team", "value": "cv", "effect": "NoSchedule"}]
                    ),
                )
            },
            "free": 16,
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
        ["(10m0s)", "before 2026-11-30T12:05:00Z"],
        id="preemption-delay",
    ),
    pytest.param(
        {"events": [b.fit(b.SHORTAGE)], "quota": b.project(deserved=4, allocated=6), "free": 1},
        R.PROJECT_OVER_QUOTA,
        ["6 of 4 deserved GPUs are allocated", "only 1 of 32 GPUs are free"],
        id="over-quota-shortage",
    ),
    pytest.param(
        {"events": [b.fit(b.SHORTAGE)], "quota": b.project(deserved=8, allocated=2), "free": 1},
        R.NODE_POOL_FULL,
        ["only 1 of 32 are free", "2 allocated + 4 requested of 8 deserved"],
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
        ["missing: node pool default's free GPUs"],
        id="free-gpus-not-read",
    ),
]


@pytest.mark.parametrize(("given", "reason", "words"), CASES)
def test_each_reason_from_the_schedulers_words(given: dict[str, Any], reason: R, words: list[str]):
    best, _ = decide(b.pending_evidence(**given))
    assert best.reason is reason, best.headline
    for word in words:
        assert word in best.headline, best.headline


def test_every_reason_has_a_row_here():
    covered = {c.values[1] for c in CASES}
    assert covered == set(PendingReason)


def test_the_cited_statement_comes_with_its_source_and_time():
    best, _ = decide(b.pending_evidence(events=[b.fit(b.GANG, minutes_ago=5)]))
    [line] = best.lines
    assert line.source == "get_workload_status"
    assert line.text.startswith(
        f"Event at {ago(5):%Y-%m-%d %H:%M:%SZ}: Unschedulable: Resources were found"
    )


def test_a_pool_prefix_attributes_the_statement_to_that_pool():
    text = f"Node-Pool 'h100': {b.GANG}"
    wl = b.waiting(requestedNodePools=["default", "h100"])
    ev = b.pending_evidence(
        wl, events=[b.fit(text)], free=0, quota=b.project(deserved=8, allocated=0)
    )
    best, others = decide(ev)
    assert (best.reason, best.pool) == (R.GANG_MIN_MEMBER_NOT_MET, "h100")
    assert [(v.reason, v.pool) for v in others] == [(R.NODE_POOL_FULL, "default")]


def test_no_pool_named_anywhere_is_unknown_naming_it():
    wl = b.waiting(requestedNodePools=[])
    quota = b.project().model_copy(update={"effective": None})
    best, others = decide(b.pending_evidence(wl, quota=quota, events=[b.fit(b.SHORTAGE)]))
    assert (best.reason, best.pool, others) == (R.UNKNOWN, None, [])
    assert "the node pool it waits for" in best.missing[0]


def test_a_gpu_memory_request_is_not_a_gpu_count():
    wl = b.waiting(
        workloadRequestedResources={"gpuRequestType": "memory", "gpuMemory": {"request": "20G"}}
    )
    best, _ = decide(b.pending_evidence(wl, events=[b.fit(b.SHORTAGE)]))
    assert best.reason is R.UNKNOWN
    assert best.missing == ("the workload's GPU request",)


def test_a_preemptibility_nobody_read_leaves_over_quota_unknown():
    wl = b.waiting(preemptible=None, priority=None)
    ev = b.pending_evidence(
        wl, events=[b.fit(b.SHORTAGE)], quota=b.project(deserved=4, allocated=6)
    )
    best, _ = decide(ev)
    assert best.reason is R.UNKNOWN
    assert "whether it is preemptible" in best.missing[0]


def test_priority_decides_preemptibility_when_the_flag_is_absent():
    wl = b.waiting(preemptible=None, priority=40)
    ev = b.pending_evidence(
        wl, events=[b.fit(b.SHORTAGE)], quota=b.project(deserved=4, allocated=6)
    )
    assert decide(ev)[0].reason is R.PROJECT_OVER_QUOTA


def test_room_in_the_pool_without_a_constraint_text_is_unknown():
    ev = b.pending_evidence(events=[b.fit(b.SHORTAGE)], free=16)
    best, _ = decide(ev)
    assert best.reason is R.UNKNOWN
    assert "although node pool default has 16 free" in best.missing[0]


def test_a_non_preemptible_in_quota_by_its_own_measure_waits_for_the_pool():
    wl = b.waiting(preemptible=False, priority=125)
    quota = b.project(deserved=8, allocated=10, allocated_np=2)
    best, _ = decide(b.pending_evidence(wl, events=[b.fit(b.SHORTAGE)], quota=quota, free=0))
    assert best.reason is R.NODE_POOL_FULL
    assert "2 allocated + 4 requested of 8 deserved" in best.headline


def test_unknown_preemptibility_without_non_preemptible_figures():
    wl = b.waiting(preemptible=False, priority=125)
    quota = b.project(deserved=8, allocated=10, allocated_np=None)
    best, _ = decide(b.pending_evidence(wl, events=[b.fit(b.SHORTAGE)], quota=quota, free=0))
    assert best.reason is R.UNKNOWN
    assert "non-preemptible GPUs allocated" in best.missing[0]


def test_a_typed_message_from_the_status_is_current_and_pool_specific():
    message = {"nodePool": "h100", "phaseReason": "NonPreemptibleOverQuota",
               "reason": "Non-preemptible over quota", "orgType": "PROJECT",
               "userMessage": "You have reached the limit of non-preemptible resources"}  # fmt: skip
    wl = b.waiting(requestedNodePools=["default", "h100"], pendingSchedulingMessages=[message])
    ev = b.pending_evidence(wl, events=[b.fit(b.SHORTAGE)], free=1, quota=b.project(deserved=8))
    best, others = decide(ev)
    assert (best.reason, best.pool) == (R.NON_PREEMPTIBLE_OVER_QUOTA, "h100")
    assert [v.reason for v in others] == [R.NODE_POOL_FULL]
    assert best.lines[0].text.startswith("Pending scheduling message: NonPreemptibleOverQuota")


def test_a_history_event_counts_like_an_event():
    history = [phase_update("Pending", 40), history_event("Unschedulable", b.GANG, 3)]
    best, _ = decide(b.pending_evidence(history=history))
    assert best.reason is R.GANG_MIN_MEMBER_NOT_MET
    assert best.lines[0].source == "get_workload_history"
