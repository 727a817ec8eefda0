"""A distributed job is one workload: one termination counts once, and the first cause wins.

Each case is a PyTorchJob-like workload of three pods (master-0 as rank 0, worker-0 as rank 1,
worker-1 as rank 2), extracted exactly as collection extracts Kubernetes evidence. The skill
counts distinct terminations of the workload and takes the strongest direct signal; across
pods, the rank that failed first is the cause and the others' exits are its consequences.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from diagnosis.evidence import Evidence, Signal
from diagnosis.kube.log_signals import line_facts, log_signal
from diagnosis.kube.models import Pod
from diagnosis.kube.node_signals import node_signals
from diagnosis.kube.signals import (
    container_signals,
    pod_rank,
    restarts_of,
)
from diagnosis.logs import failing_line
from diagnosis.recurrence import recurrence
from diagnosis.redact import Redactor
from diagnosis.report import Category
from diagnosis.rules import classify
from diagnosis.runs import current_run
from tests.factories import ago, evidence, iso, phase_update, unreachable_node, workload
from tests.factories import pod as runai_pod

NS = "runai-nlp"
DESCRIBE = f"kubectl describe pod, namespace {NS}"
LOGS = f"kubectl logs, namespace {NS}"
FIRST = ago(30)
WATCHDOG = (
    "[rank{r}]:[E1104 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=4821, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, "
    "Timeout(ms)=600000) ran for 600013 milliseconds before timing out."
)
PEER_CLOSED = (
    "llm-ddp-master-0:231:402 [0] misc/socket.cc:538 NCCL WARN Net : Connection closed by "
    "remote peer llm-ddp-worker-0.llm-ddp.runai-nlp.svc<54082>"
)
NODES = {"llm-ddp-master-0": "dgx-a100-01", "llm-ddp-worker-0": "dgx-a100-07",
         "llm-ddp-worker-1": "dgx-a100-02"}  # fmt: skip
RANKS = {"llm-ddp-master-0": 0, "llm-ddp-worker-0": 1, "llm-ddp-worker-1": 2}


def kube_pod(
    name: str,
    finished: datetime,
    *,
    exit_code: int = 1,
    reason: str = "Error",
    condition: tuple[str, str] | None = None,
) -> Pod:
    status: dict[str, Any] = {
        "phase": "Failed",
        "startTime": iso(ago(120)),
        "containerStatuses": [
            {
                "name": "pytorch",
                "restartCount": 0,
                "state": {
                    "terminated": {
                        "exitCode": exit_code,
                        "reason": reason,
                        "finishedAt": iso(finished),
                    }
                },
            }
        ],
        "conditions": [],
    }
    if condition is not None:
        status["conditions"].append(
            {
                "type": "DisruptionTarget",
                "status": "True",
                "reason": condition[0],
                "message": condition[1],
                "lastTransitionTime": iso(finished),
            }
        )
    env = [{"name": "RANK", "value": str(RANKS[name])}, {"name": "WORLD_SIZE", "value": "3"}]
    return Pod.model_validate(
        {
            "metadata": {
                "name": name,
                "namespace": NS,
                "labels": {"training.kubeflow.org/replica-type": name.split("-")[2]},
            },
            "spec": {"nodeName": NODES[name], "containers": [{"name": "pytorch", "env": env}]},
            "status": status,
        }
    )


def job(
    pods: list[Pod],
    logs: dict[str, str] | None = None,
    extra: tuple[Signal, ...] = (),
) -> Evidence:
    """The workload's evidence: Run:ai status, pods and history, then Tier 2 as collected."""
    logs = logs or {}
    last = max(
        s.state.terminated.finished_at
        for p in pods
        for s in p.status.container_statuses
        if s.state.terminated and s.state.terminated.finished_at
    )
    ev = evidence(
        workload(name="llm-ddp", phase="Failed", phaseUpdatedAt=iso(last + timedelta(seconds=1))),
        pods=[runai_pod("Failed", name=p.name, nodeName=p.spec.node_name) for p in pods],
        history=[
            phase_update("Running", 119),
            phase_update("Failed", (ago(0) - last).seconds / 60),
        ],
    )
    redactor = Redactor()
    signals: list[Signal] = []
    for p in pods:
        signals.extend(container_signals(p, DESCRIBE, redactor))
        if p.name in logs:
            line = failing_line(logs[p.name])
            assert line is not None
            quoted = log_signal(
                line,
                container="pytorch",
                cite=LOGS,
                redactor=redactor,
                pod=p.name,
                rank=RANKS[p.name],
            )
            signals.extend(
                [quoted, *line_facts(quoted, line.text, log=logs[p.name], redactor=redactor)]
            )
    ev = ev.model_copy(
        update={
            "signals": (*ev.signals, *signals, *extra),
            "tier2": True,
            "restarts": tuple(r for p in pods for r in restarts_of(p, DESCRIBE)),
        }
    )
    return ev.model_copy(update={"signals": current_run(ev)})


OOM_THEN_WATCHDOG = job(
    [
        kube_pod("llm-ddp-worker-0", FIRST, exit_code=137, reason="OOMKilled"),
        kube_pod("llm-ddp-master-0", FIRST + timedelta(minutes=10)),
        kube_pod("llm-ddp-worker-1", FIRST + timedelta(minutes=10, seconds=2)),
    ],
    logs={
        "llm-ddp-master-0": WATCHDOG.format(r=0),
        "llm-ddp-worker-1": WATCHDOG.format(r=2),
    },
)


ALL_EXIT = job(
    [
        kube_pod("llm-ddp-master-0", FIRST),
        kube_pod("llm-ddp-worker-0", FIRST + timedelta(seconds=3)),
        kube_pod("llm-ddp-worker-1", FIRST + timedelta(seconds=4)),
    ]
)


@pytest.mark.parametrize(
    ("ev", "category"),
    [
        pytest.param(ALL_EXIT, Category.CRASH_APP_ERROR, id="three-ranks-exit-1"),
        pytest.param(OOM_THEN_WATCHDOG, Category.OOM_KILLED, id="oom-then-watchdog"),
    ],
)
def test_one_termination_of_three_pods_is_one_occurrence(ev, category):
    """The skill: count distinct failure occurrences; the job failed once, not three times."""
    counted = recurrence(ev, category, "24h")
    assert (counted.count, counted.recurring) == (1, False)


def test_the_first_cause_wins_across_pods():
    """A worker OOM-killed ten minutes before the master's watchdog exit: OOM_KILLED, of it."""
    finding = classify(OOM_THEN_WATCHDOG)

    assert finding.category is Category.OOM_KILLED
    assert (finding.details.pod, finding.details.rank) == ("llm-ddp-worker-0", 1)
    assert "llm-ddp-worker-0" in finding.headline
    assert "rank 1" in finding.headline
    after = [e.text for e in (*finding.evidence, *finding.context) if "after it" in e.text]
    assert after, [e.text for e in finding.evidence]
    assert "2 other pods failed after it" in after[0]
    assert "10 min" in " ".join(after)
    assert any("llm-ddp-master-0" in t and "rank 0" in t for t in after)


def test_a_node_going_down_before_the_master_exits_is_the_first_cause():
    """Worker-0's node went NotReady; the master lost its peer a minute later; then eviction."""
    node = unreachable_node("dgx-a100-07", FIRST)
    down = list(node_signals(node, since=ago(60 * 24), redactor=Redactor()))
    ev = job(
        [
            kube_pod("llm-ddp-master-0", FIRST + timedelta(minutes=1)),
            kube_pod(
                "llm-ddp-worker-0",
                FIRST + timedelta(minutes=5),
                exit_code=137,
                condition=(
                    "DeletionByTaintManager",
                    "Taint manager: deleting due to NoExecute taint",
                ),
            ),
            kube_pod("llm-ddp-worker-1", FIRST + timedelta(minutes=1, seconds=5)),
        ],
        logs={"llm-ddp-master-0": PEER_CLOSED},
        extra=tuple(down),
    )
    finding = classify(ev)

    assert finding.category is Category.NODE_FAILURE
    assert finding.details.pod == "llm-ddp-worker-0"


def test_a_single_pod_is_not_a_distributed_case():
    ev = job([kube_pod("llm-ddp-master-0", FIRST)], logs={"llm-ddp-master-0": WATCHDOG.format(r=0)})
    finding = classify(ev)

    assert finding.category is Category.CRASH_APP_ERROR
    assert not [e for e in (*finding.evidence, *finding.context) if "after it" in e.text]


@pytest.mark.parametrize(
    ("log", "parts"),
    [
        (WATCHDOG.format(r=2), ["rank 2", "ALLREDUCE #4821", "timeout 600 s"]),
        (PEER_CLOSED, ["peer llm-ddp-worker-0.llm-ddp.runai-nlp.svc:54082"]),
    ],
)
def test_the_collective_fact_is_cited(log, parts):
    ev = job([kube_pod("llm-ddp-worker-1", FIRST)], logs={"llm-ddp-worker-1": log})
    finding = classify(ev)
    cited = " ".join(e.text for e in finding.evidence)
    for part in parts:
        assert part in cited


@pytest.mark.parametrize(
    ("env", "labels", "rank"),
    [
        ([{"name": "RANK", "value": "3"}], {}, 3),
        ([], {"batch.kubernetes.io/job-completion-index": "2"}, 2),
        ([], {"leaderworkerset.sigs.k8s.io/worker-index": "1"}, 1),
        ([{"name": "RANK", "value": "3"}], {"batch.kubernetes.io/job-completion-index": "2"}, 3),
        ([], {"training.kubeflow.org/replica-type": "worker"}, None),  # names a replica, not a rank
    ],
)
def test_the_rank_of_a_pod(env, labels, rank):
    pod = Pod.model_validate(
        {
            "metadata": {"name": "p-0", "labels": labels},
            "spec": {"containers": [{"name": "pytorch", "env": env}]},
            "status": {},
        }
    )
    assert pod_rank(pod) == rank
