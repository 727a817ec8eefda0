"""The Pending advice about another node pool with free GPUs, given where it stands in the list.

The scheduler tries a workload's node pools in the order listed (its own list, else its
project's defaults). Advice to try a pool with room first is given only for a pool listed
after another one, says whose list it is, and never for a pool the workload cannot use.
"""

from __future__ import annotations

from typing import Any

import pytest

from diagnosis.kube.scheduling_models import PodGroup
from diagnosis.pending.compose import compose_pending
from diagnosis.pending.evidence import PendingEvidence
from diagnosis.pending.table import decide
from diagnosis.pending.verdict import PendingReason
from diagnosis.runai.models import Event
from diagnosis.runai.scheduling_models import NodePool
from tests.diagnosis.pending import builders as b
from tests.factories import pod

R = PendingReason

#: Pool default is full (the project is within its quota there); h100 has room for the 4 GPUs.
FREE: dict[str, float] = {"default": 0, "h100": 12}
TOTAL: dict[str, float] = {"default": 32, "h100": 16}
OVER_LIMIT_IN_DEFAULT = {"nodePool": "default", "phaseReason": "OverLimit", "reason": "Over limit"}


def _evidence(
    requested: list[str],
    *,
    defaults: tuple[str, ...] = ("default", "h100"),
    events: tuple[Event, ...] = (b.fit(b.SHORTAGE),),
    typed: tuple[dict[str, Any], ...] = (),
    pools: list[NodePool] | None = None,
    podgroup: PodGroup | None = None,
) -> PendingEvidence:
    wl = b.waiting(requestedNodePools=requested, pendingSchedulingMessages=list(typed))
    quota = b.project()
    effective = (
        quota.effective.model_copy(update={"default_node_pools": defaults})
        if defaults and quota.effective
        else None
    )
    ev = b.pending_evidence(
        wl,
        events=list(events),
        quota=quota.model_copy(update={"effective": effective}),
        pools=pools,
    )
    return ev.model_copy(
        update={"free": b.capacity("FREE_GPUS", FREE), "total": b.capacity("TOTAL_GPUS", TOTAL)}
    )


#: (the evidence, h100's verdict, words of the one piece of advice naming h100, or None: none).
CASES: list[Any] = [
    pytest.param(
        _evidence(["default", "h100"]),
        R.UNKNOWN,
        ["Node pool h100 has 12 free GPUs", "the workload lists it after default", "h100 first"],
        id="listed-second",
    ),
    pytest.param(
        _evidence(["a100", "default", "h100"]),
        R.UNKNOWN,
        ["the workload lists it after a100, default", "h100 first"],
        id="listed-third",
    ),
    pytest.param(_evidence(["h100", "default"]), R.UNKNOWN, None, id="listed-first"),
    pytest.param(
        _evidence(
            ["default", "h100"],
            events=(),
            typed=(OVER_LIMIT_IN_DEFAULT,),
            pools=[b.pool("default"), b.pool("h100", "Empty")],
        ),
        R.NODE_CONSTRAINT_MISMATCH,
        None,
        id="listed-second-but-unusable",
    ),
    pytest.param(
        _evidence([]),
        R.UNKNOWN,
        ["comes after default in the project's default node pools", "h100 first"],
        id="project-default-second",
    ),
    pytest.param(_evidence([], defaults=("h100", "default")), R.UNKNOWN, None, id="project-first"),
    pytest.param(
        _evidence(
            [],
            defaults=(),
            events=(
                b.fit(f"Node-Pool 'default': {b.SHORTAGE}"),
                b.fit(f"Node-Pool 'h100': {b.MIXED}"),
            ),
        ),
        R.UNKNOWN,
        None,
        id="order-not-read",
    ),
]


@pytest.mark.parametrize(("ev", "h100", "words"), CASES)
def test_a_pool_with_room_is_advised_first_only_when_listed_later(
    ev: PendingEvidence, h100: PendingReason, words: list[str] | None
):
    best, others = decide(ev)
    assert (best.reason, best.pool) != (h100, "h100")
    assert {v.pool: v.reason for v in others}["h100"] is h100
    report = compose_pending(ev, best, others)
    about = [a for a in report.recommendations if "h100" in a]
    if words is None:
        assert about == []
        return
    [advice] = about
    for word in words:
        assert word in advice, advice


#: (the pools it lists, their phases, what the advice opens with): a pool waiting never fixes
#: heads the answer, but the scheduler tries every pool listed, so "never" is said of that
#: pool alone whenever another listed pool may still take it, with that pool's prospect.
NEVER_HERE: list[Any] = [
    pytest.param(
        ["h100"],
        {"default": 0},
        ["Waiting will never fix this: no node of the pool meets the constraint."],
        id="one-pool",
    ),
    pytest.param(
        ["h100", "default"],
        {"default": 0},
        [
            "In node pool h100, waiting will never fix this: no node of the pool meets the "
            "constraint.",
            "But it may also start in node pool default (NODE_POOL_FULL); there, waiting should fix it "
            "while the project and its department are within their quotas",
        ],
        id="other-pool-full",
    ),
    pytest.param(
        ["h100", "default"],
        {"default": 16},
        [
            "In node pool h100, waiting will never fix this",
            "But it may also start in node pool default (UNKNOWN); there, whether waiting helps cannot "
            "be told.",
        ],
        id="other-pool-unknown",
    ),
]


@pytest.mark.parametrize(("listed", "free", "opening"), NEVER_HERE)
def test_never_is_said_of_the_headline_pool_alone(
    listed: list[str], free: dict[str, float], opening: list[str]
):
    wl = b.waiting(requestedNodePools=listed)
    ev = b.pending_evidence(
        wl, events=[b.fit(b.SHORTAGE)], pools=[b.pool("h100", "Empty"), b.pool("default")]
    ).model_copy(update={"free": b.capacity("FREE_GPUS", free)})
    best, others = decide(ev)
    assert (best.reason, best.pool) == (R.NODE_CONSTRAINT_MISMATCH, "h100")
    advice = compose_pending(ev, best, others).recommendations
    for text, words in zip(advice, opening, strict=False):
        assert text.startswith(words), advice
    assert advice[len(opening)].startswith("Ask for another node pool (h100 has no node"), advice
    assert not any("toleration" in a for a in advice), advice
    if "default" in listed:  # the other pool's gaps are listed too, naming their pool
        missing = compose_pending(ev, best, others).missing
        assert all(v.missing for v in others if v.reason is not R.NODE_POOL_FULL)
        for gap in (g for v in others for g in v.missing):
            assert any(gap in m and "node pool default" in m for m in missing), missing


AFFINITY_ONLY = b.CONSTRAINT.split(" \n")[0] + "."
TAINT_ONLY = b.CONSTRAINT.replace("3 node(s) didn't match Pod's node affinity/selector. \n", "")

#: (evidence arguments, what the advice after "waiting never" says, words it never has): the
#: toleration is advised only where a taint is at issue, another pool where the pool is empty.
CONSTRAINTS: list[Any] = [
    pytest.param({"pools": [b.pool(phase="Empty")]},
                 "Ask for another node pool (default has no node", "toleration", id="pool-empty"),
    pytest.param({"nodes": b.tainted_nodes(), "free": 16,
                  "pods": [pod("Pending", nodeName=None, tolerations=[])]},
                 "Add a toleration for taint team=cv:NoSchedule", "selector", id="tainted-nodes"),
    pytest.param({"events": [b.fit(AFFINITY_ONLY)]},
                 "Change the node pool, node type, node selector or affinity", "toleration",
                 id="affinity-text"),
    pytest.param({"events": [b.fit(TAINT_ONLY)]},
                 "Add the toleration the nodes' taint needs", "selector", id="taint-text"),
    pytest.param({"events": [b.fit(b.CONSTRAINT)]},
                 "Change the node pool, node type or selector, or add the toleration", "Ask for",
                 id="both-in-the-text"),
]  # fmt: skip


@pytest.mark.parametrize(("given", "action", "never"), CONSTRAINTS)
def test_the_constraint_advice_names_what_is_at_issue(given: dict[str, Any], action, never):
    ev = b.pending_evidence(**given)
    best, others = decide(ev)
    assert best.reason is R.NODE_CONSTRAINT_MISMATCH, best.headline
    advice = compose_pending(ev, best, others).recommendations
    assert advice[0].startswith("Waiting will never fix this"), advice
    assert advice[1].startswith(action), advice
    assert not any(never in a for a in advice), advice
