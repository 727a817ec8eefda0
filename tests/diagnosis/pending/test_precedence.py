"""The Pending precedence, as its own table: when two reasons are supported, which one wins.

Also: the table's order is the documented one, and every text shape the rules read is
needed (without it, some case gets another answer: each was seen failing).
"""

from __future__ import annotations

from typing import Any

import pytest

from diagnosis.pending import texts
from diagnosis.pending.table import PRECEDENCE, decide
from diagnosis.pending.verdict import PendingReason
from tests.diagnosis.pending import builders as b
from tests.diagnosis.pending.cases import CASES
from tests.factories import pod

R = PendingReason

DOCUMENTED_ORDER = [
    R.NOT_WAITING_ON_SCHEDULER,
    R.QUEUE_MISSING,
    R.HELD_NOT_READY,
    R.OVER_LIMIT,
    R.NON_PREEMPTIBLE_OVER_QUOTA,
    R.PVC_UNBOUND,
    R.NODE_CONSTRAINT_MISMATCH,
    R.REQUEST_EXCEEDS_LARGEST_NODE,
    R.GPU_TYPE_OR_FRACTION_UNAVAILABLE,
    R.GANG_MIN_MEMBER_NOT_MET,
    R.PREEMPTION_DELAYED,
    R.PROJECT_OVER_QUOTA,
    R.NODE_POOL_FULL,
    R.UNKNOWN,
]

OVER_QUOTA = {"quota": b.project(deserved=4, allocated=6), "free": 0}

#: (both supported, the winner): each pair differs in one place of the order.
PAIRS: list[Any] = [
    pytest.param(
        {
            "pods": [pod("Pending", nodeName="n-1")],
            "events": [b.fit(b.QUEUE_MISSING, "QueueDoesNotExist")],
        },
        R.NOT_WAITING_ON_SCHEDULER,
        id="placed-over-queue",
    ),
    pytest.param(
        {"events": [b.fit(b.QUEUE_MISSING, "QueueDoesNotExist"), b.fit(b.NOT_READY, "NotReady")]},
        R.QUEUE_MISSING,
        id="queue-over-not-ready",
    ),
    pytest.param(
        {"events": [b.fit(b.NOT_READY, "NotReady"), b.fit(b.OVER_LIMIT, "OverLimit")]},
        R.HELD_NOT_READY,
        id="not-ready-over-limit",
    ),
    pytest.param(
        {
            "events": [
                b.fit(b.OVER_LIMIT, "OverLimit"),
                b.fit(b.NP_OVER_QUOTA, "NonPreemptibleOverQuota"),
            ]
        },
        R.OVER_LIMIT,
        id="limit-checked-before-quota",
    ),
    pytest.param(
        {"events": [b.fit(b.NP_OVER_QUOTA, "NonPreemptibleOverQuota"), b.fit(b.PVC)]},
        R.NON_PREEMPTIBLE_OVER_QUOTA,
        id="typed-quota-over-pvc",
    ),
    pytest.param(
        {"events": [b.fit(b.PVC), b.fit(b.CONSTRAINT)]}, R.PVC_UNBOUND, id="pvc-over-constraint"
    ),
    pytest.param(
        {"events": [b.fit(b.CONSTRAINT), b.fit(b.LARGEST)]},
        R.NODE_CONSTRAINT_MISMATCH,
        id="constraint-over-size",
    ),
    pytest.param(
        {"events": [b.fit(b.LARGEST), b.fit(b.MIG)]},
        R.REQUEST_EXCEEDS_LARGEST_NODE,
        id="size-over-gpu-kind",
    ),
    pytest.param(
        {"events": [b.fit(b.MIG), b.fit(b.GANG)]},
        R.GPU_TYPE_OR_FRACTION_UNAVAILABLE,
        id="gpu-kind-over-gang",
    ),
    pytest.param(
        {"events": [b.fit(b.GANG), b.fit(b.PREEMPTION_DELAY, "PreemptionDelayNotElapsed")]},
        R.GANG_MIN_MEMBER_NOT_MET,
        id="gang-over-delay",
    ),
    pytest.param(
        {"events": [b.fit(b.PREEMPTION_DELAY, "PreemptionDelayNotElapsed")], **OVER_QUOTA},
        R.PREEMPTION_DELAYED,
        id="typed-delay-over-derived-split",
    ),
    pytest.param(
        {"events": [b.fit(b.MIXED)], **OVER_QUOTA},
        R.PROJECT_OVER_QUOTA,
        id="mixed-fit-is-contention",
    ),
    pytest.param(
        {"events": [b.fit(b.SHORTAGE)], "free": 0}, R.NODE_POOL_FULL, id="full-over-unknown"
    ),
]


def test_the_table_is_in_the_documented_order():
    assert [row.reason for row in PRECEDENCE] == DOCUMENTED_ORDER


@pytest.mark.parametrize(("given", "winner"), PAIRS)
def test_the_higher_row_wins(given: dict[str, Any], winner: PendingReason):
    assert decide(b.pending_evidence(**given))[0].reason is winner


def test_across_pools_the_highest_precedence_heads_and_the_rest_follow():
    wl = b.waiting(requestedNodePools=["default", "h100"])
    ev = b.pending_evidence(wl, events=[b.fit(b.SHORTAGE)], pools=[b.pool("h100", "Empty")])
    best, others = decide(ev)
    assert (best.reason, best.pool) == (R.NODE_CONSTRAINT_MISMATCH, "h100")
    assert [(v.reason, v.pool) for v in others] == [(R.NODE_POOL_FULL, "default")]


@pytest.mark.parametrize("index", range(len(texts.TEXTS)), ids=[s.value for s, _ in texts.TEXTS])
def test_every_text_shape_is_needed(index: int, monkeypatch: pytest.MonkeyPatch):
    """Without one of the scheduler's text shapes, some case is answered otherwise.

    A typed reason code decides alone; its text shape still carries the scheduler's figures.
    """

    def answers() -> list[tuple[PendingReason, str]]:
        verdicts = [decide(b.pending_evidence(**c.values[0]))[0] for c in CASES]
        return [(v.reason, v.headline) for v in verdicts]

    reference = answers()
    shapes = tuple(shape for n, shape in enumerate(texts.TEXTS) if n != index)
    monkeypatch.setattr(texts, "TEXTS", shapes)
    assert answers() != reference
