"""One row per Pending reason, from the scheduler's own texts: the reason, and its key figures."""

from __future__ import annotations

from typing import Any

import pytest

from diagnosis.pending.compose import compose_pending
from diagnosis.pending.table import decide
from diagnosis.pending.verdict import PendingReason
from tests.diagnosis.pending import builders as b
from tests.diagnosis.pending.cases import CASES
from tests.factories import ago, history_event, phase_update, pod

R = PendingReason


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


TYPED_FOR_DEFAULT = {"nodePool": "default", "phaseReason": "OverLimit", "reason": "Over limit"}
GANG_ONE = b.GANG.replace("found for 2 pods", "found for 1 pods")

#: (the workload's typed messages, events, each requested pool's reason): a statement naming
#: no pool is about the pools a statement of its kind names, never another requested pool.
NO_POOL_NAMED: list[Any] = [
    pytest.param(
        [TYPED_FOR_DEFAULT],
        [b.fit(b.OVER_LIMIT, "OverLimit")],
        {"default": R.OVER_LIMIT, "h100": R.UNKNOWN},
        id="typed-message-names-default",
    ),
    pytest.param(
        [],
        [b.fit(f"Node-Pool 'h100': {b.GANG}"), b.fit(GANG_ONE)],
        {"h100": R.GANG_MIN_MEMBER_NOT_MET, "default": R.NODE_POOL_FULL},
        id="prefix-names-h100",
    ),
]


@pytest.mark.parametrize(("typed", "events", "reasons"), NO_POOL_NAMED)
def test_a_statement_naming_no_pool_is_not_another_pools(typed, events, reasons):
    wl = b.waiting(requestedNodePools=["default", "h100"], pendingSchedulingMessages=typed)
    best, others = decide(b.pending_evidence(wl, events=events, free=0))
    assert {v.pool: v.reason for v in (best, *others)} == reasons


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


#: The project's allocated GPUs in all: a non-preemptible workload is within quota by its
#: non-preemptible share, which is never called "allocated", whether the project's preemptible
#: work takes it over its quota or not; the figures are the project's evidence line.
NON_PREEMPTIBLE_FULL: list[Any] = [
    pytest.param(3, id="in-quota-all-told"),
    pytest.param(10, id="over-quota-all-told"),
]


@pytest.mark.parametrize("allocated", NON_PREEMPTIBLE_FULL)
def test_a_non_preemptible_in_quota_by_its_own_measure_waits_for_the_pool(allocated):
    wl = b.waiting(preemptible=False, priority=125)
    quota = b.project(deserved=8, allocated=allocated, allocated_np=2)
    ev = b.pending_evidence(wl, events=[b.fit(b.SHORTAGE)], quota=quota, free=0)
    best, others = decide(ev)
    assert best.reason is R.NODE_POOL_FULL
    words = (
        "though as non-preemptible work it fits the project's quota: capacity is held by others."
    )
    assert words in best.headline
    assert "allocated" not in best.headline
    report = compose_pending(ev, best, others)
    figures = f"deserved 8 GPUs, limit unlimited; allocated {allocated} (2 non-preemptible)"
    assert any(figures in e.text for e in report.evidence), report.evidence
    assert "preempts the project's own lower-priority workloads" in report.recommendations[0]


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


TOLERATING = [{"key": "team", "operator": "Exists", "effect": "NoSchedule"}]
NOT_TOLERATED = "whether its pods tolerate taint team=cv:NoSchedule"

#: (the pods' tolerations as the API gave them, None: not returned; the scheduler's fit text;
#: the reason; the unread tolerations named, or None): every Ready node of pool default is
#: tainted. Tolerations never returned are unknown, not "none": the derived split, which says
#: waiting fixes it, is then UNKNOWN naming them; and the scheduler's own fit text, when it
#: says why, decides over any taint inference.
TAINTS: list[Any] = [
    pytest.param(None, None, R.UNKNOWN, NOT_TOLERATED, id="not-returned"),
    pytest.param([], None, R.NODE_CONSTRAINT_MISMATCH, None, id="returned-empty"),
    pytest.param(TOLERATING, None, R.NODE_POOL_FULL, None, id="tolerated"),
    pytest.param(None, b.SHORTAGE, R.NODE_POOL_FULL, None, id="not-returned-capacity-text"),
    pytest.param([], b.SHORTAGE, R.NODE_POOL_FULL, None, id="returned-empty-capacity-text"),
    pytest.param([], b.CONSTRAINT, R.NODE_CONSTRAINT_MISMATCH, None, id="constraint-text"),
]


@pytest.mark.parametrize(("tolerations", "said", "reason", "named"), TAINTS)
def test_unreturned_tolerations_are_unknown_and_the_fit_text_decides(
    tolerations: list[dict[str, str]] | None, said: str | None, reason: R, named: str | None
):
    returned = {} if tolerations is None else {"tolerations": tolerations}
    ev = b.pending_evidence(
        pods=[pod("Pending", nodeName=None, **returned)],
        nodes=b.tainted_nodes(),
        events=[b.fit(said)] if said else [],
        free=0,
    )
    best, others = decide(ev)
    assert best.reason is reason, best.headline
    gaps = [m for m in compose_pending(ev, best, others).missing if "tolerate" in m]
    assert len(gaps) == (named is not None), gaps
    assert all(named in gap for gap in gaps if named is not None), gaps
    if named is not None:  # named in full under Not measured, pointed to from line one
        assert "what would decide it is under Not measured" in best.headline, best.headline


#: (the project's quota, evidence arguments, the reason): tolerations not returned, every
#: Ready node tainted, no fit text. A verdict waiting would fix (P11, P12) is UNKNOWN naming
#: them; one that holds whatever the taint (the request above the largest node) stays, naming them.
UNREAD: list[Any] = [
    pytest.param(b.project(deserved=8, allocated=2), {}, R.UNKNOWN, id="in-quota"),
    pytest.param(b.project(deserved=4, allocated=6), {}, R.UNKNOWN, id="over-quota"),
    pytest.param(
        b.project(deserved=8, allocated=2),
        {"wl": b.waiting(podsRequestedResources={"gpu": {"request": 16}})},
        R.REQUEST_EXCEEDS_LARGEST_NODE,
        id="request-too-big",
    ),
]


@pytest.mark.parametrize(("quota", "given", "reason"), UNREAD)
def test_unread_tolerations_never_leave_a_confident_wait(quota, given: dict[str, Any], reason: R):
    ev = b.pending_evidence(
        pods=[pod("Pending", nodeName=None)], nodes=b.tainted_nodes(), quota=quota, free=0, **given
    )
    best, others = decide(ev)
    assert best.reason is reason, best.headline
    report = compose_pending(ev, best, others)
    assert any(NOT_TOLERATED in m for m in report.missing), report.missing
    assert not any(
        a.startswith(("Waiting should fix", "Waiting fixes")) for a in report.recommendations
    )


def test_the_api_distinguishes_tolerations_not_returned_from_none():
    assert pod("Pending").tolerations is None
    assert pod("Pending", tolerations=None).tolerations is None
    assert pod("Pending", tolerations=[]).tolerations == ()
