"""Standard Kubernetes termination signals: drains, cordons, taint-manager evictions, deadlines.

Each row is what `kubectl describe pod`, `kubectl get events` and `kubectl describe node`
would show, with the kubelet's and controllers' real message texts; the rules decide.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from diagnosis.evidence import Signal
from diagnosis.kube.event_models import KubeEvent, event_from_core
from diagnosis.kube.models import KubeNode, Pod
from diagnosis.kube.node_signals import node_event_signals, node_signals
from diagnosis.kube.signals import container_signals, event_signals
from diagnosis.lexicon import SignalKind
from diagnosis.redact import Redactor
from diagnosis.report import Category
from diagnosis.rules import classify
from diagnosis.signals import text_signals
from tests.factories import NOW, ago, evidence, iso

NS = "runai-vision"
NODE = "dgx-a100-09"
POD_CITE = f"kubectl describe pod, namespace {NS}"
EVENTS_CITE = f"kubectl get events, namespace {NS}"

EVICTION_API = ("EvictionByEvictionAPI", "Eviction API: evicting")
TAINT_MANAGER = ("DeletionByTaintManager", "Taint manager: deleting due to NoExecute taint")
KUBELET_PRESSURE = ("TerminationByKubelet", "The node was low on resource: memory.")
DEADLINE_TEXT = "Pod was active on the node longer than the specified deadline"


def container(exit_code: int, reason: str = "Error") -> dict[str, Any]:
    return {
        "name": "trainer",
        "state": {
            "terminated": {"exitCode": exit_code, "reason": reason, "finishedAt": iso(ago(10))}
        },
        "lastState": {},
        "restartCount": 0,
    }


def k8s_pod(
    exit_code: int = 137,
    *,
    disruption: tuple[str, str] | None = None,
    reason: tuple[str, str] | None = None,
    deadline_s: int | None = None,
) -> Pod:
    status: dict[str, Any] = {
        "phase": "Failed",
        "startTime": iso(ago(120)),
        "containerStatuses": [container(exit_code)],
        "conditions": [],
    }
    if disruption is not None:
        status["conditions"].append(
            {
                "type": "DisruptionTarget",
                "status": "True",
                "reason": disruption[0],
                "message": disruption[1],
                "lastTransitionTime": iso(ago(11)),
            }
        )
    if reason is not None:
        status["reason"], status["message"] = reason
    spec: dict[str, Any] = {"nodeName": NODE, "containers": [{"name": "trainer"}]}
    if deadline_s is not None:
        spec["activeDeadlineSeconds"] = deadline_s
    return Pod.model_validate(
        {"metadata": {"name": "vit-0-0", "namespace": NS}, "spec": spec, "status": status}
    )


def k8s_event(reason: str, message: str, kind: str = "Pod", name: str = "vit-0-0") -> KubeEvent:
    return event_from_core(
        {
            "metadata": {"name": f"{name}.1", "namespace": NS},
            "involvedObject": {"kind": kind, "name": name},
            "reason": reason,
            "message": message,
            "lastTimestamp": iso(ago(11)),
            "type": "Warning",
        }
    )


def k8s_node(
    *, unschedulable: bool = False, taints: list[dict[str, Any]] | None = None
) -> KubeNode:
    return KubeNode.model_validate(
        {
            "metadata": {"name": NODE},
            "spec": {"unschedulable": unschedulable, "taints": taints or []},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]},
        }
    )


KILLING = k8s_event("Killing", "Stopping container trainer")
NOT_SCHEDULABLE = k8s_event(
    "NodeNotSchedulable", f"Node {NODE} status is now: NodeNotSchedulable", "Node", NODE
)
CORDON_TAINT = [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]


def classified(
    pod: Pod,
    events: list[KubeEvent] = (),  # type: ignore[assignment]
    node: KubeNode | None = None,
    node_events: list[KubeEvent] = (),  # type: ignore[assignment]
) -> tuple[Category, str, list[str]]:
    redactor = Redactor()
    signals: list[Signal] = [
        *container_signals(pod, POD_CITE, redactor),
        *event_signals(events, EVENTS_CITE, redactor),
    ]
    if node is not None:
        signals.extend(node_signals(node, since=NOW - timedelta(days=1), redactor=redactor))
    signals.extend(
        node_event_signals(NODE, node_events, since=NOW - timedelta(days=1), redactor=redactor)
    )
    ev = evidence()
    ev = ev.model_copy(update={"signals": (*ev.signals, *signals), "tier2": True})
    finding = classify(ev)
    return finding.category, finding.headline, [e.text for e in finding.evidence]


TERMINATIONS = [
    # id, pod, pod events, node, node events, category, headline parts, cited texts
    (
        "drain-eviction-api-cordon-killing",
        k8s_pod(disruption=EVICTION_API),
        [KILLING],
        k8s_node(unschedulable=True, taints=CORDON_TAINT),
        [NOT_SCHEDULABLE],
        Category.NODE_FAILURE,
        ["drained", NODE, "exit code 137"],
        ["Eviction API: evicting", "Stopping container trainer", "is cordoned"],
    ),
    (
        "eviction-api-condition-alone",
        k8s_pod(disruption=EVICTION_API),
        [],
        None,
        [],
        Category.NODE_FAILURE,
        ["Eviction API", "exit code 137"],
        ["Eviction API: evicting"],
    ),
    (
        "cordon-by-taint-and-killing",
        k8s_pod(),
        [KILLING],
        k8s_node(taints=CORDON_TAINT),
        [],
        Category.NODE_FAILURE,
        ["drained", "exit code 137"],
        ["node.kubernetes.io/unschedulable", "Stopping container trainer"],
    ),
    (
        "cordon-by-spec-and-sigkill",
        k8s_pod(),
        [],
        k8s_node(unschedulable=True),
        [],
        Category.NODE_FAILURE,
        ["drained", "exit code 137"],
        ["spec.unschedulable=true"],
    ),
    (
        "cordon-by-node-event-and-sigterm",
        k8s_pod(143),
        [],
        None,
        [NOT_SCHEDULABLE],
        Category.NODE_FAILURE,
        ["drained", "exit code 143"],
        ["status is now: NodeNotSchedulable"],
    ),
    (
        "taint-manager-condition",
        k8s_pod(disruption=TAINT_MANAGER),
        [],
        None,
        [],
        Category.NODE_FAILURE,
        ["taint manager", "exit code 137"],
        ["Taint manager: deleting due to NoExecute taint"],
    ),
    (
        "taint-manager-event",
        k8s_pod(),
        [k8s_event("TaintManagerEviction", f"Marking for deletion Pod {NS}/vit-0-0")],
        None,
        [],
        Category.NODE_FAILURE,
        ["taint manager"],
        ["Marking for deletion Pod"],
    ),
    (
        "unreachable-taint-in-message",
        k8s_pod(),
        [
            k8s_event(
                "NodeNotReady", "Node is not ready: taint node.kubernetes.io/unreachable:NoExecute"
            )
        ],
        None,
        [],
        Category.NODE_FAILURE,
        ["NotReady"],
        ["node.kubernetes.io/unreachable"],
    ),
    (
        "kubelet-pressure-condition",
        k8s_pod(disruption=KUBELET_PRESSURE),
        [],
        None,
        [],
        Category.NODE_FAILURE,
        ["evicted the pod"],
        ["low on resource: memory"],
    ),
    (
        "deadline-status-with-spec",
        k8s_pod(reason=("DeadlineExceeded", DEADLINE_TEXT), deadline_s=3600),
        [],
        None,
        [],
        Category.SCHEDULING_POLICY_TERMINATED,
        ["longer than its deadline", "activeDeadlineSeconds 3600 = 1h"],
        [DEADLINE_TEXT],
    ),
    (
        "deadline-kubelet-event-no-spec",
        k8s_pod(),
        [k8s_event("DeadlineExceeded", DEADLINE_TEXT)],
        None,
        [],
        Category.SCHEDULING_POLICY_TERMINATED,
        ["longer than its deadline"],
        [DEADLINE_TEXT],
    ),
]


@pytest.mark.parametrize(
    ("pod", "events", "node", "node_events", "expected"),
    [pytest.param(*row[1:5], row[5:], id=row[0]) for row in TERMINATIONS],
)
def test_termination_signal_decides_the_category(pod, events, node, node_events, expected):
    category, headline, cited = expected
    got, text, lines = classified(pod, events, node, node_events)
    assert got is category, text
    for part in headline:
        assert part in text
    for part in cited:
        assert any(part in line for line in lines), (part, lines)
    assert "OOM not proven" not in text  # the kill is explained, not left unresolved


NOT_A_VERDICT = [
    # id, pod, pod events, node, category that must NOT be NODE_FAILURE
    ("killing-alone-is-any-stop", k8s_pod(), [KILLING], None, Category.UNKNOWN),
    (
        "cordon-alone-does-not-explain-a-crash",
        k8s_pod(1),
        [],
        k8s_node(unschedulable=True),
        Category.CRASH_APP_ERROR,
    ),
    (
        "drain-in-a-pod-name-is-not-a-drain",
        k8s_pod(),
        [k8s_event("Scheduled", f"Successfully assigned {NS}/vit-drain-0-0 to node {NODE}")],
        None,
        Category.UNKNOWN,
    ),
]


@pytest.mark.parametrize(
    ("pod", "events", "node", "category"), [pytest.param(*r[1:], id=r[0]) for r in NOT_A_VERDICT]
)
def test_corroborating_signal_alone_is_not_a_node_failure(pod, events, node, category):
    got, text, _ = classified(pod, events, node)
    assert got is category, text


LEXICON = [
    ("EvictionByEvictionAPI", "Eviction API: evicting", SignalKind.NODE_EVICTION),
    ("TerminationByKubelet", "The node was low on resource: memory.", SignalKind.NODE_EVICTION),
    ("DeletionByTaintManager", TAINT_MANAGER[1], SignalKind.NODE_NOT_READY),
    ("TaintManagerEviction", "Marking for deletion Pod ns/p", SignalKind.NODE_NOT_READY),
    ("NodeNotSchedulable", "Node n-1 status is now: NodeNotSchedulable", SignalKind.NODE_CORDONED),
    (None, "Node n-1 status is now: NodeNotSchedulable", SignalKind.NODE_CORDONED),
    ("Killing", "Stopping container trainer", SignalKind.KILLED),
    ("DeadlineExceeded", DEADLINE_TEXT, SignalKind.MAX_DURATION),
    (None, DEADLINE_TEXT, SignalKind.MAX_DURATION),
    ("DeadlineExceeded", "Job was active longer than specified deadline", SignalKind.MAX_DURATION),
    (
        "PreemptionByScheduler",
        "default-scheduler: preempting to accommodate a higher priority pod",
        SignalKind.PREEMPTED,
    ),
]


@pytest.mark.parametrize(("reason", "message", "kind"), LEXICON)
def test_termination_wording_is_in_the_lexicon(reason, message, kind):
    found = text_signals(
        reason, message, at=None, source="s", origin="o", key="k", redactor=Redactor()
    )
    assert kind in {s.kind for s in found}


@pytest.mark.parametrize(
    ("node", "text"),
    [
        (k8s_node(unschedulable=True), "spec.unschedulable=true"),
        (k8s_node(taints=CORDON_TAINT), "taint node.kubernetes.io/unschedulable:NoSchedule"),
    ],
)
def test_a_cordoned_node_is_a_signal(node, text):
    signals = list(node_signals(node, since=NOW - timedelta(days=1), redactor=Redactor()))
    assert [s.kind for s in signals] == [SignalKind.NODE_CORDONED]
    assert text in signals[0].text


def test_an_old_node_event_is_not_evidence():
    old = NOT_SCHEDULABLE.model_copy(update={"last_timestamp": NOW - timedelta(days=3)})
    since = NOW - timedelta(days=1)
    assert list(node_event_signals(NODE, [old], since=since, redactor=Redactor())) == []


@pytest.mark.parametrize(
    "message",
    [
        f"Successfully assigned {NS}/vit-preempted-0-0 to {NODE}",
        f"Created container trainer in pod {NS}/drain-test-0-0 on node {NODE}",
    ],
)
def test_a_signal_word_inside_a_name_is_not_a_signal(message):
    found = text_signals(
        "Scheduled", message, at=None, source="s", origin="o", key="k", redactor=Redactor()
    )
    kinds = {s.kind for s in found}
    assert not kinds & {SignalKind.PREEMPTED, SignalKind.NODE_EVICTION}, kinds
