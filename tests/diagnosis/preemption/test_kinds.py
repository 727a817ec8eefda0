"""One row per preemption kind, from the scheduler's own texts and annotations, and the order."""

from __future__ import annotations

from typing import Any

import pytest

from diagnosis.preemption import kinds
from diagnosis.preemption.kinds import KINDS, decide_kind
from diagnosis.preemption.texts import PreemptionKind, read_eviction
from tests.diagnosis.preemption import builders as b
from tests.factories import event

K = PreemptionKind

CASES: list[Any] = [
    pytest.param({"events": [b.evict(b.PRIORITY)], "by": b.preemptor()}, K.PRIORITY_PREEMPTION, id="priority-text"),
    pytest.param(
        {"events": [b.evict("Pod runai-ml-team/v-0-0 was preempted")],
         "kube_events": [b.annotated("", "preempt", "eval-prod", "runai-ml-team")]},
        K.PRIORITY_PREEMPTION,
        id="priority-annotation",
    ),
    pytest.param({"events": [b.evict(b.RECLAIM)]}, K.RECLAIM_FAIR_SHARE, id="reclaim-text"),
    pytest.param(
        {"events": [b.evict("Pod runai-ml-team/v-0-0 was preempted")],
         "kube_events": [b.annotated(b.RECLAIM, "reclaim", "pg-serve-70b-0-1a2b3c4d", "runai-nlp")]},
        K.RECLAIM_FAIR_SHARE,
        id="reclaim-annotation",
    ),
    pytest.param({"events": [b.evict(b.CONSOLIDATION)]}, K.CONSOLIDATION, id="consolidation-text"),
    pytest.param(
        {"events": [b.evict("Pod runai-ml-team/v-0-0 was preempted")],
         "kube_events": [b.annotated("moved", "consolidation", "pg-big-0-1", "runai-ml-team")]},
        K.CONSOLIDATION,
        id="consolidation-annotation",
    ),
    pytest.param({"events": [b.evict(b.STALE_GANG)]}, K.STALE_GANG_EVICTION, id="stale-gang-text"),
    pytest.param(
        {"events": [b.evict("Pod runai-ml-team/v-0-0 was preempted")],
         "kube_events": [b.annotated(b.STALE_GANG, "stalegangeviction")]},
        K.STALE_GANG_EVICTION,
        id="stale-gang-annotation",
    ),
    pytest.param({"events": [event("Preempted", None, b.EVICTED)]}, K.UNKNOWN, id="reason-only"),
    pytest.param(
        {"events": [b.evict("Pod runai-ml-team/v-0-0 was preempted")]}, K.UNKNOWN, id="no-kind-in-text"
    ),
]  # fmt: skip


@pytest.mark.parametrize(("given", "kind"), CASES)
def test_each_kind_from_the_schedulers_words(given: dict[str, Any], kind: PreemptionKind):
    assert decide_kind(b.preemption_evidence(**given)).kind is kind


def test_every_kind_has_a_row_here():
    assert {c.values[1] for c in CASES} == set(PreemptionKind)


def test_the_table_order():
    assert [name for name, _ in KINDS] == [
        "contradiction",
        "PRIORITY_PREEMPTION",
        "RECLAIM_FAIR_SHARE",
        "CONSOLIDATION",
        "STALE_GANG_EVICTION",
        "UNKNOWN",
    ]


@pytest.mark.parametrize("index", range(len(KINDS) - 1), ids=[n for n, _ in KINDS[:-1]])
def test_every_row_decides_some_case(index: int, monkeypatch: pytest.MonkeyPatch):
    """Without one row, some case above (or a contradiction below) gets another kind."""
    cases = [c.values[0] for c in CASES] + [CONTRADICTIONS[0].values[0]]
    reference = [decide_kind(b.preemption_evidence(**given)) for given in cases]
    monkeypatch.setattr(kinds, "KINDS", tuple(row for n, row in enumerate(KINDS) if n != index))
    changed = [decide_kind(b.preemption_evidence(**given)) for given in cases]
    assert [(v.kind, v.flags) for v in changed] != [(v.kind, v.flags) for v in reference]


CONTRADICTIONS: list[Any] = [
    pytest.param(
        {"events": [b.evict(b.PRIORITY)], "kube_events": [b.annotated(b.PRIORITY, "reclaim")]},
        "the eviction records disagree",
        id="annotation-vs-text",
    ),
    pytest.param(
        {"events": [b.evict(b.PRIORITY.replace("runai-ml-team/eval-prod", "runai-nlp/serve"))]},
        "names a preemptor in namespace runai-nlp",
        id="priority-preemption-across-projects",
    ),
    pytest.param(
        {"events": [b.evict(b.PRIORITY)], "by": b.preemptor(priority=40)},
        "eval-prod (project ml-team, priority 40 (high)) is not above the victim's priority 50",
        id="preemptor-not-higher",
    ),
    pytest.param(
        {"events": [b.evict(b.RECLAIM.replace("runai-nlp/", "runai-ml-team/"))]},
        "reclaim names a preemptor in the victim's own project",
        id="reclaim-inside-the-project",
    ),
    pytest.param(
        {"wl": b.victim(preemptible=False, priority=125), "by": b.preemptor(priority=150)},
        "priority preemption of a non-preemptible victim (preemptible: false)",
        id="priority-preemption-of-a-non-preemptible-victim",
    ),
    pytest.param(
        {"wl": b.victim(preemptible=None, priority=125), "by": b.preemptor(priority=150)},
        "non-preemptible victim (priority 125 >= 100, no preemptible flag)",
        id="priority-preemption-of-a-victim-non-preemptible-by-priority",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("given", "flag"), CONTRADICTIONS)
def test_a_contradiction_is_unknown_and_stated(given: dict[str, Any], flag: str):
    verdict = decide_kind(b.preemption_evidence(**given))
    assert verdict.kind is K.UNKNOWN
    assert any(flag in f for f in verdict.flags), verdict.flags


def test_only_the_decisive_evictions_records_count():
    """An older eviction of another kind does not decide the newest one."""
    events = [b.evict(b.RECLAIM, minutes_ago=300), b.evict(b.CONSOLIDATION)]
    assert decide_kind(b.preemption_evidence(events=events)).kind is K.CONSOLIDATION


def test_the_texts_carry_the_preemptor_and_both_queues():
    said = read_eviction(b.RECLAIM)
    assert said is not None
    assert (said.namespace, said.podgroup) == ("runai-nlp", "pg-serve-70b-0-1a2b3c4d")
    victim_queue, reclaimer = said.queues
    assert (victim_queue.queue, victim_queue.uses, victim_queue.quota, victim_queue.fair_share) == (
        "ml-team",
        12.0,
        8.0,
        10.0,
    )
    assert (reclaimer.queue, reclaimer.priority) == ("nlp", 100)
    assert read_eviction("Preempted by runai-nlp/x-0-0 on node n") is None
    assert read_eviction(None) is None


@pytest.mark.parametrize(
    ("resources", "gpus"),
    [
        ("6 GPUs", 6.0),
        ("GPU: 6, CPU: 48, memory: 256", 6.0),
        ("6", 6.0),
        ("CPU: 4, memory: 8", None),
    ],
)
def test_queue_line_gpu_figures(resources: str, gpus: float | None):
    text = (
        "Pod a/b was preempted by workload c/d. "
        f"q uses {resources} with a quota of 8, fair-share of 8 and queue priority of 100."
    )
    said = read_eviction(text)
    assert said is not None
    assert said.queues[0].uses == gpus


@pytest.mark.parametrize(
    ("given", "unseen"),
    [
        pytest.param(
            {"events": [b.evict(b.PRIORITY)], "by": b.preemptor(priority=40)},
            (kinds.UNSEEN_PRIORITY,),
            id="only-the-priority-contradicts",
        ),
        pytest.param(
            {"events": [b.evict(b.PRIORITY.replace("runai-ml-team/eval-prod", "runai-nlp/serve"))],
             "by": b.preemptor(project="nlp", priority=40)},
            ("a priority preemption names a preemptor in namespace runai-nlp, not the victim's "
             "runai-ml-team (priority preemption stays inside a project)",),
            id="the-record-contradicts-too",
        ),
    ],
)  # fmt: skip
def test_who_may_not_read_the_preemptor_is_not_told_how_its_priority_compares(
    given: dict[str, Any], unseen: tuple[str, ...]
):
    verdict = decide_kind(b.preemption_evidence(**given))
    assert verdict.kind is K.UNKNOWN
    assert any("is not above the victim's priority 50" in f for f in verdict.flags)
    assert verdict.flags_for(seen=True) == verdict.flags
    assert verdict.flags_for(seen=False) == unseen
