"""What the Pending answer trusts: current statements, the scheduler's numbers, one moment.

Statements from before the last transition into Pending are not trusted; the scheduler's
own numbers win; figures are compared only for one pool at about one moment.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from diagnosis.evidence import Signal
from diagnosis.kube.scheduling_models import PodGroup, quantity_number
from diagnosis.lexicon import SignalKind
from diagnosis.pending.compose import compose_pending, waited
from diagnosis.pending.figures import SNAPSHOT_SKEW, pool_figures
from diagnosis.pending.table import decide
from diagnosis.pending.texts import Saying, fit_parts, read_text
from diagnosis.pending.verdict import PendingReason
from diagnosis.runai.scheduling_models import Telemetry, is_unlimited
from tests.diagnosis.pending import builders as b
from tests.factories import ago, phase_update

R = PendingReason


# ---------------------------------------------------------------- stale statements


def test_a_statement_from_before_the_last_transition_into_pending_is_not_trusted():
    history = [
        phase_update("Pending", 90),
        phase_update("Running", 60),
        phase_update("Pending", 20),
    ]
    old = b.fit(b.OVER_LIMIT, "OverLimit", minutes_ago=45)  # the previous wait's reason
    ev = b.pending_evidence(history=history, events=[old, b.fit(b.SHORTAGE, minutes_ago=5)])
    assert ev.since == ago(20)
    assert [s.saying for s in ev.stale] == [Saying.OVER_LIMIT]
    best, _ = decide(ev)
    assert best.reason is R.NODE_POOL_FULL
    report = compose_pending(ev, best, [])
    stale = [e.text for e in report.evidence if e.text.startswith("Not trusted")]
    assert len(stale) == 1
    assert "written before it last became Pending" in stale[0]
    assert "allowable limit" in stale[0]


def test_the_eviction_cited_is_the_latest_the_one_that_began_this_wait():
    def evicted(minutes: float) -> Signal:
        return Signal(
            kind=SignalKind.PREEMPTED,
            at=ago(minutes),
            source="get_workload_status",
            origin="event",
            text=f"Evict: preempted {minutes:g} minutes ago",
        )

    newest_first = (evicted(41), evicted(150), evicted(300))
    ev = b.pending_evidence(history=[phase_update("Pending", 40)])
    ev = ev.model_copy(update={"signals": newest_first})
    report = compose_pending(ev, *decide(ev))
    cited = [e.text for e in report.evidence if "preempted" in e.text]
    assert cited == [
        f"Event at {ago(41):%Y-%m-%d %H:%M:%SZ}: it was preempted (the scheduler's record is "
        "not quoted here: it may name other workloads and their queues' figures)"
    ]


def test_a_podgroup_condition_while_pods_hold_resources_is_not_trusted():
    group = b.podgroup("OverLimit", b.OVER_LIMIT, allocated={"nvidia.com/gpu": "2"})
    ev = b.pending_evidence(podgroup=group, events=[b.fit(b.SHORTAGE)], tier2=True)
    assert [s.saying for s in ev.stale] == [Saying.OVER_LIMIT]
    best, _ = decide(ev)
    assert best.reason is R.NODE_POOL_FULL
    [line] = [e.text for e in compose_pending(ev, best, []).evidence if "Not trusted" in e.text]
    assert "(a PodGroup condition while some of its pods hold resources)" in line


def test_running_pods_make_any_podgroup_condition_stale():
    wl = b.waiting(runningPods=1)
    ev = b.pending_evidence(wl, podgroup=b.podgroup("OverLimit", b.OVER_LIMIT), tier2=True)
    assert ev.stale
    assert not ev.said


def test_a_current_condition_decides_with_the_schedulers_numbers():
    details = {
        "queueDetails": {
            "name": "nlp",
            "queueDeservedResources": {"nvidia.com/gpu": "4"},
            "queueAllocatedNonPreemptibleResources": {"nvidia.com/gpu": 3},
            "podGroupRequestedResources": {"gpu": "2"},
        }
    }
    group = b.podgroup("NonPreemptibleOverQuota", "Non-preemptible over quota", details=details)
    ev = b.pending_evidence(podgroup=group, quota=b.project(deserved=8, allocated_np=0), tier2=True)
    best, _ = decide(ev)
    assert best.reason is R.NON_PREEMPTIBLE_OVER_QUOTA
    assert best.figures is not None
    assert (best.figures.deserved, best.figures.allocated_np, best.figures.requested) == (4, 3, 2)
    assert best.figures.sources["deserved"].startswith("kubectl get podgroup")
    assert best.lines[0].text.startswith(
        "PodGroup pg-bert-ft-0-3f1c2a9e condition (node pool default)"
    )


def test_the_newest_condition_is_read_first():
    group = PodGroup.model_validate(
        {
            "metadata": {"name": "pg"},
            "status": {
                "schedulingConditions": [
                    {
                        "nodePool": "b",
                        "transitionID": "9",
                        "reason": "Unschedulable",
                        "message": "x",
                    },
                    {
                        "nodePool": "a",
                        "transitionID": "10",
                        "reason": "Unschedulable",
                        "message": "y",
                    },
                    {
                        "nodePool": "c",
                        "transitionID": "?",
                        "reason": "Unschedulable",
                        "message": "z",
                    },
                ]
            },
        }
    )
    assert [c.node_pool for c in group.conditions_newest_first()] == ["a", "b", "c"]


def test_one_statement_repeated_every_cycle_is_one_statement_the_newest():
    events = [b.fit(b.GANG, minutes_ago=m) for m in (30, 20, 10)]
    ev = b.pending_evidence(events=events)
    [said] = ev.said
    assert said.at == ago(10)


def test_a_status_message_has_no_time_and_is_current():
    message = {"nodePool": "default", "phaseReason": "OverLimit", "reason": "Over limit"}
    ev = b.pending_evidence(b.waiting(pendingSchedulingMessages=[message]))
    [said] = ev.said
    assert said.at is None
    assert said.source == "get_workload_status"


# ---------------------------------------------------------------- figures


def test_the_split_needs_one_moment():
    late = b.project(at=ago(1) - SNAPSHOT_SKEW - timedelta(seconds=1))
    best, _ = decide(b.pending_evidence(quota=late, events=[b.fit(b.SHORTAGE)]))
    assert best.reason is R.UNKNOWN
    assert "figures from one moment" in best.missing[0]
    near = b.project(at=ago(1) - SNAPSHOT_SKEW)
    assert (
        decide(b.pending_evidence(quota=near, events=[b.fit(b.SHORTAGE)]))[0].reason
        is R.NODE_POOL_FULL
    )


@pytest.mark.parametrize(
    ("missing", "quota", "free", "named"),
    [
        ("deserved", b.project(deserved=None), 0, "the project's deserved GPUs"),
        ("allocated", b.project(allocated=None), 0, "the project's allocated GPUs"),
        ("free", b.project(), None, "node pool default's free GPUs"),
    ],
)
def test_a_missing_figure_is_null_and_named_never_zero(missing, quota, free, named):
    ev = b.pending_evidence(quota=quota, free=free, events=[b.fit(b.SHORTAGE)])
    best, others = decide(ev)
    assert best.reason is R.UNKNOWN
    assert named in best.missing[0]
    facts = compose_pending(ev, best, others).pending
    assert facts is not None
    values = {
        "deserved": facts.deserved_gpus,
        "allocated": facts.allocated_gpus,
        "free": facts.pool_free_gpus,
    }
    assert values[missing] is None


def _department(reason: str) -> dict[str, Any]:
    return {"nodePool": "default", "phaseReason": reason, "reason": reason, "orgType": "DEPARTMENT"}


CPU_LIMIT = (
    "nlp quota has reached the allowable limit of CPU cores. Limit is 48 cores, currently 44 "
    "cores allocated and workload requested 8 cores"
)
MEMORY_LIMIT = (
    "nlp quota has reached the allowable limit of memory. Limit is 200 GB, currently 190 GB "
    "allocated and workload requested 32 GB"
)
DEPARTMENT_LIMIT = b.OVER_LIMIT.replace("nlp quota", "research quota").replace("8 GPUs", "16 GPUs")
DEPARTMENT_NP = (
    "Non-preemptible workload is over quota. Workload requested 4 GPUs, but research quota is 16 "
    "GPUs, while 15 GPUs are already allocated for non-preemptible pods. Use a preemptible "
    "workload to go over quota."
)

#: (the workload's typed messages, the scheduler's event, words of the headline and advice):
#: numbers for another resource or for the department never become the project's GPUs.
FOREIGN_NUMBERS: list[Any] = [
    pytest.param(
        [],
        b.fit(CPU_LIMIT, "OverLimit"),
        ["project's CPU cores limit", "limit 48 cores, allocated 44 cores, requested 8 cores"],
        ["release CPU cores", "raise the project's CPU limit"],
        id="cpu-over-limit",
    ),
    pytest.param(
        [],
        b.fit(MEMORY_LIMIT, "OverLimit"),
        ["project's memory limit", "limit 200 GB, allocated 190 GB, requested 32 GB"],
        ["release memory", "raise the project's memory limit"],
        id="memory-over-limit",
    ),
    pytest.param(
        [_department("OverLimit")],
        b.fit(DEPARTMENT_LIMIT, "OverLimit"),
        ["department's GPUs limit", "limit 16 GPUs", "scheduler's figures for the department"],
        ["the department's own workloads", "raise the department's GPU limit"],
        id="department-over-limit",
    ),
    pytest.param(
        [_department("NonPreemptibleOverQuota")],
        b.fit(DEPARTMENT_NP, "NonPreemptibleOverQuota"),
        ["department's GPU quota", "deserved 16 GPUs", "scheduler's figures for the department"],
        ["department's own non-preemptible", "more deserved quota for the department"],
        id="department-non-preemptible",
    ),
]


@pytest.mark.parametrize(("typed", "said", "headline", "advice"), FOREIGN_NUMBERS)
def test_only_the_projects_gpu_numbers_replace_the_projects_gpu_figures(
    typed, said, headline, advice
):
    wl = b.waiting(preemptible=False, priority=125, pendingSchedulingMessages=typed)
    quota = b.project(deserved=8, limit=16, allocated=2, allocated_np=0)
    ev = b.pending_evidence(wl, events=[said], quota=quota)
    best, others = decide(ev)
    assert best.figures is not None
    figures = best.figures.model_dump(include={"requested", "deserved", "limit", "allocated"})
    assert figures == {"requested": 4, "deserved": 8, "limit": 16, "allocated": 2}, best.headline
    assert best.figures.allocated_np == 0
    report = compose_pending(ev, best, others)
    for words in headline:
        assert words in report.headline
    for words in advice:
        assert any(words in action for action in report.recommendations), report.recommendations
    [line] = [e.text for e in report.evidence if e.text.startswith("Project nlp")]
    assert "deserved 8 GPUs, limit 16" in line
    assert "allocated 2 (0 non-preemptible)" in line


def test_the_schedulers_numbers_are_never_cited_as_the_projects():
    quota = b.project(deserved=4, limit=16, allocated=2, allocated_np=0)
    ev = b.pending_evidence(events=[b.fit(b.OVER_LIMIT, "OverLimit")], quota=quota)
    best, others = decide(ev)
    assert "limit 8, allocated 6, requested 4" in best.headline
    report = compose_pending(ev, best, others)
    [line] = [e for e in report.evidence if e.text.startswith("Project nlp")]
    assert line.source == "get_project"
    assert line.text.startswith(
        "Project nlp in node pool default: deserved 4 GPUs, limit 16; allocated 2 (0 non-pre"
    )
    assert line.text.endswith("(the scheduler's statement above: limit 8, allocated 6)")


@pytest.mark.parametrize(
    ("limit", "unlimited"), [(None, True), (-1, True), (0, False), (16, False)]
)
def test_a_limit_of_null_or_minus_one_is_unlimited(limit, unlimited):
    assert is_unlimited(limit) is unlimited
    fig = pool_figures(b.pending_evidence(quota=b.project(limit=limit)), "default")
    assert fig.unlimited is unlimited
    assert fig.limit == (None if unlimited else limit)


def test_telemetry_reads_the_pool_whatever_the_group_key_spelling():
    body = {
        "type": "FREE_GPUS",
        "values": [
            {"value": "3", "groups": [{"key": "nodepool", "value": "a"}]},
            {"value": "4", "groups": [{"key": "NodepoolName", "value": "x", "name": "b"}]},
            {"value": "n/a", "groups": [{"key": "Nodepool", "value": "c"}]},
            {"value": "9", "groups": [{"key": "ClusterId", "value": "a"}]},
        ],
    }
    telemetry = Telemetry.model_validate(body)
    assert [telemetry.for_pool(p) for p in ("a", "b", "c", "d")] == [3.0, 4.0, None, None]


@pytest.mark.parametrize(
    ("value", "number"),
    [(4, 4.0), ("2", 2.0), ("500m", 0.5), ("4Gi", None), (True, None), (None, None)],
)
def test_quantities(value, number):
    assert quantity_number(value) == number


def test_fit_histograms_and_codes():
    assert read_text("OverLimit", "You have reached the limit") == (Saying.OVER_LIMIT, {})
    assert read_text("Unschedulable", "nothing the scheduler says") is None
    assert read_text(None, None) is None
    assert fit_parts("no histogram here") == set()
    assert len(fit_parts(b.MIXED)) == 2


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (45, "45s"),
        (60, "1m"),
        (39 * 60, "39m"),
        (2 * 3600 + 300, "2h05m"),
        (3 * 86400 + 4 * 3600, "3d4h"),
        (86400, "1d"),
        (-5, "0s"),
    ],
)
def test_waits_as_people_say_them(seconds, shown):
    assert waited(timedelta(seconds=seconds)) == shown


def test_one_statement_from_an_event_and_a_condition_keeps_the_pool_either_named():
    event = b.fit(b.SHORTAGE, minutes_ago=5)  # Run:ai's event says no pool
    group = b.podgroup("PodSchedulingErrors", b.SHORTAGE, minutes_ago=5)  # the condition does
    no_defaults = b.project().model_copy(update={"effective": None})
    wl = b.waiting(requestedNodePools=[])
    ev = b.pending_evidence(wl, quota=no_defaults, events=[event], podgroup=group, tier2=True)
    [said] = ev.said
    assert said.node_pool == "default"
    assert ev.pools() == ["default"]
