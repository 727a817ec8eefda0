"""What people actually type and paste in an incident channel, row by row, on every platform.

Each row is a message as someone writes it mid-incident (markup, links, alert pastes, CLI
lines, compact forms, corrections, chatter, time words), with the slots the bot must read
from it, and the question it must then ask (`asks`: the slot still missing, or a near miss
with its suggestions). Every row runs through the Slack, Teams and console normalisers
(`platforms.render`), so a name in bold, a labelled link or an `<at>` tag reads the same.
Known: the clusters the control plane lists and the projects the asker can read.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

import pytest

from bot.conversation import Markup
from bot.conversation.parse import Expecting, FollowUp
from bot.conversation.understand.pipeline import Known, Understood, understand
from bot.conversation.understand.vocabulary import near_misses
from diagnosis import Symptom
from tests.bot.conversation.understand.platforms import BOT_ID, PLATFORMS, render

W = "3f1c2a9e-5b7d-4c1e-9a2f-8d6b0e4c7a11"  # a workload's UUID
C = "71f69d83-ba66-4822-adf5-55ce55efd210"  # a cluster's UUID
UID = "5d0c2b8e-1f4a-4c7e-9b21-6e3a8d4f0a77"  # a pod's UID (kube-state-metrics `uid`)
UI = "https://acme.run.ai"
TODAY = date(2026, 12, 4)  # a Friday
#: The headers the Run:ai CLIs print (v1 `runai list jobs`, v2 `runai training list`).
V1 = (
    "NAME  STATUS  AGE  NODE  IMAGE  TYPE  PROJECT  USER  GPUs Allocated (Requested)  "
    "PODs Running (Pending)  SERVICE URL(S)"
)
V2 = (
    "Workload  Type  Status  Project  Preemptible  Running/Requested Pods  GPU Allocation\n"
    + "\u2500" * 40
)
KNOWN = Known(
    clusters=("prod-a", "prod-b", "prod-c", "staging-west", C),
    projects=("nlp", "vision", "ml-team", "speech-asr"),
)
CLUSTER, PROJECT, WORKLOAD = Expecting.CLUSTER, Expecting.PROJECT, Expecting.WORKLOAD
PENDING, CRASH, PULL, INIT = Symptom.PENDING, Symptom.CRASHLOOP, Symptom.IMAGE_PULL, Symptom.INIT


@dataclass(frozen=True)
class Row:
    said: str
    want: dict[str, Any]
    asks: str | None = None
    expecting: Expecting | None = None
    directed: bool = True


def r(
    said: str,
    asks: str | None = None,
    *,
    expecting: Expecting | None = None,
    directed: bool = True,
    **want: Any,
) -> Row:
    return Row(said, want, asks, expecting, directed)


_NONE: dict[str, Any] = {
    "cluster": None,
    "project": None,
    "workload": None,
    "id": None,
    "pods": (),
    "others": (),
    "lookback": None,
    "symptom": None,
    "correction": False,
    "fragment": None,
    "unread": None,
    "chatter": False,
    "near_projects": (),
    "near_clusters": (),
    "namespace": None,
    "help": False,
    "pick": None,
    "follow_up": None,
    "cluster_options": (),
    "project_options": (),
    "too_far": (),
}


def _near(typed: str | None, known: tuple[str, ...] | None) -> tuple[str, ...]:
    """What the engine offers for a value that is not known: `near_misses`, as it calls it."""
    if typed is None or known is None or typed.casefold() in {k.casefold() for k in known}:
        return ()
    return tuple(near_misses(typed, known))


def summary(understood: Understood) -> dict[str, Any]:
    q = understood.query
    return {
        "cluster": q.cluster.lower() if q.cluster else None,
        "project": q.project,
        "workload": q.workload_name,
        "id": q.workload_id,
        "pods": understood.pods,
        "others": understood.others,
        "lookback": q.lookback,
        "symptom": q.symptom,
        "correction": understood.correction,
        "fragment": understood.fragment,
        "unread": understood.unread_lookback,
        "chatter": q.chatter,
        "near_projects": _near(q.project, KNOWN.projects),
        "near_clusters": _near(q.cluster, KNOWN.clusters),
        "namespace": understood.namespace,
        "help": q.help,
        "pick": q.pick,
        "follow_up": q.follow_up,
        "cluster_options": q.cluster_options,
        "project_options": q.project_options,
        # the dates said (privately) to be further back than any lookback
        "too_far": tuple(p.split(" is ")[0] for p in q.problems if " days ago, " in p),
    }


def next_question(s: dict[str, Any]) -> str | None:
    """What the engine asks next for these slots (the order of `Turns.run`)."""
    if s["chatter"] or s["help"] or s["pick"] or s["follow_up"]:
        return None
    if s["cluster_options"]:
        return "cluster? " + " ".join(s["cluster_options"])
    if s["near_clusters"]:
        return "cluster? " + " ".join(s["near_clusters"])
    if s["near_projects"]:
        return "project? " + " ".join(s["near_projects"])
    if not s["cluster"]:
        return "cluster"
    if not (s["id"] or s["workload"] or s["pods"] or s["fragment"]):
        return "workload"
    if (s["workload"] or s["pods"]) and s["project_options"]:
        return "project? " + " ".join(s["project_options"])
    if (s["workload"] or s["pods"]) and not s["project"]:
        return "project"
    return None


ROWS: list[Row] = [
    # --- the bot's own phrasing still works ---------------------------------------------
    r(
        "@bot why did train-bert in nlp fail on prod-a?",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "@bot cluster=prod-a workload=train-bert project=nlp lookback=7d",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        lookback="7d",
    ),
    r(f"@bot cluster={C} id={W}", cluster=C, id=W),
    r("@bot why did train-bert fail", "cluster", workload="train-bert"),
    r("@bot why did it fail?", "cluster"),
    r("@bot train-bert on prod-a", "project", cluster="prod-a", workload="train-bert"),
    r("@bot help", help=True),
    r(
        "@bot is eval-7 in vision crashlooping on prod-b",
        cluster="prod-b",
        project="vision",
        workload="eval-7",
        symptom=CRASH,
    ),
    r(
        "@bot why did llama-sft-2 in ml-team die on the prod-c cluster",
        cluster="prod-c",
        project="ml-team",
        workload="llama-sft-2",
    ),
    r(f"@bot {W}", "cluster", id=W),
    # --- bold, code, labelled links, channels, mail, mentions --------------------------
    r(
        "@bot why did *train-bert* fail in *nlp* on *prod-a*",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "@bot why did `train-bert` fail in `nlp` on `prod-a`",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "@bot `train-bert` (`nlp`) on #prod-a",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    # a project in brackets after the cluster is the project, and the cluster stays one
    r("@bot train-bert on prod-a (nlp)", cluster="prod-a", project="nlp", workload="train-bert"),
    r(
        "@bot train-bert keeps getting OOMKilled at prod-a (ml-team)",
        cluster="prod-a",
        project="ml-team",
        workload="train-bert",
    ),
    r(
        "@bot why did `train-bert` fail on *prod-a* (`nlp`)?",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r("@bot prod-a (vision) eval-7", cluster="prod-a", project="vision", workload="eval-7"),
    r(
        "@bot #prod-b `bert-ft-3` in vision",
        cluster="prod-b",
        project="vision",
        workload="bert-ft-3",
    ),
    r(
        "@bot can you look at *resnet-50-ddp* in vision on prod-a pls :pray:",
        cluster="prod-a",
        project="vision",
        workload="resnet-50-ddp",
    ),
    r(
        "@bot _train-bert_ in ~nlp~ on prod-a",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "@bot [train-bert](https://wiki.example.com/runbooks/train-bert) in nlp on prod-a",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "@bot train-bert in nlp on prod-a, owner is alice@example.com",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "@bot @alice says train-bert in nlp died on prod-a",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "@bot `train-bert` in nlp on prod-a &amp; it keeps crashing",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        symptom=CRASH,
    ),
    r(
        "@bot prod-a / nlp / `train-bert` :fire:",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "@bot *cluster:* prod-a *project:* nlp *job:* train-bert",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "@bot > train-bert in nlp on prod-a failed again",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    # what owns something is a whole word: `train-bert's pods` names train-bert
    r(
        "@bot train-bert's pods on prod-a keep restarting",
        "project",
        cluster="prod-a",
        workload="train-bert",
        symptom=CRASH,
    ),
    r(
        "@bot why did train-bert\u2019s pods die on prod-a in nlp",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    # a quoted earlier message comes after what the asker writes now
    r(
        "@bot why did train-bert fail\n> it was fine on prod-b\nit's on prod-a now",
        "project",
        cluster="prod-a",
        workload="train-bert",
    ),
    r(
        "@bot > eval-7 in vision died on prod-b\nsame for train-bert in nlp on prod-a?",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "@bot > @alice: train-bert died again on prod-a\ncan you check? nlp",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "@bot ```train-bert in nlp on prod-a```",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "@bot why did train-bert fail? #staging-west",
        "project",
        cluster="staging-west",
        workload="train-bert",
    ),
    r(
        "@bot see https://grafana.example.com/d/abc?var-pod=x for train-bert in nlp on prod-a",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r("@bot *prod-a* *nlp* *train-bert*", cluster="prod-a", project="nlp", workload="train-bert"),
    r("@bot `train-bert` `nlp` `prod-a`", cluster="prod-a", project="nlp", workload="train-bert"),
    r(
        "@bot the cluster is *prod-c*, project `speech-asr`, job `whisper-ft-1`",
        cluster="prod-c",
        project="speech-asr",
        workload="whisper-ft-1",
    ),
    r(
        "@bot @oncall FYI train-bert in nlp on prod-a is down",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    # --- emoji, versions and machines are not names -------------------------------------
    r(
        "@bot :this-is-fine: train-bert in nlp on prod-a died again",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "@bot :fire::fire: train-bert in nlp on prod-a :sob:",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "@bot why did train-bert fail in nlp on prod-a after I bumped torch-2.3 to cuda-12.4",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r("@bot job llama-3.1 in nlp on prod-a", cluster="prod-a", project="nlp", workload="llama-3.1"),
    # a dotted name is the workload where the sentence says it failed; a version never is
    r("@bot why did qwen-2.5 fail in nlp?", "cluster", project="nlp", workload="qwen-2.5"),
    r(
        "@bot qwen-2.5 failed in nlp on prod-a",
        cluster="prod-a",
        project="nlp",
        workload="qwen-2.5",
    ),
    r(
        "@bot is qwen-2.5 in vision crashlooping on prod-b?",
        cluster="prod-b",
        project="vision",
        workload="qwen-2.5",
        symptom=CRASH,
    ),
    r(
        "@bot why is llama-3.1 still pending in nlp on prod-a",
        cluster="prod-a",
        project="nlp",
        workload="llama-3.1",
        symptom=PENDING,
    ),
    r(
        "@bot why did the llama-3.1 job fail on prod-a in nlp",
        cluster="prod-a",
        project="nlp",
        workload="llama-3.1",
    ),
    r(
        "@bot hey, qwen-2.5 keeps crashing in nlp on prod-a",
        cluster="prod-a",
        project="nlp",
        workload="qwen-2.5",
        symptom=CRASH,
    ),
    r("@bot the torch-2.3 upgrade failed on prod-a", "workload", cluster="prod-a"),
    r("@bot why did train-bert fail after the cuda-12.4 bump?", "cluster", workload="train-bert"),
    r("@bot python 3.11 in nlp on prod-a failed", "workload", cluster="prod-a", project="nlp"),
    r("@bot why did it fail with torch-2.3 failing to import?", "cluster"),
    # a version is never the workload beside a real one, nor what `fail to load`,
    # `crashed <something>` or `restart loop` is said of
    r(
        "@bot python-3.11 crashed training-job-42 in ml-team on prod-a",
        cluster="prod-a",
        project="ml-team",
        workload="training-job-42",
    ),
    r(
        "@bot is torch-2.3 killed by OOM? training-job-42 in ml-team on prod-a",
        cluster="prod-a",
        project="ml-team",
        workload="training-job-42",
    ),
    r(
        "@bot why did cuda-12.4 fail to load for training-job-42? ml-team on prod-a",
        cluster="prod-a",
        project="ml-team",
        workload="training-job-42",
    ),
    r(
        "@bot why did cuda-12.4 fail to load on train-x, prod-a",
        "project",
        cluster="prod-a",
        workload="train-x",
    ),
    r("@bot train-x: torch-2.3 failed to import", "cluster", workload="train-x"),
    r("@bot ok so torch-2.3 crashed my job train-x", "cluster", workload="train-x"),
    r(
        "@bot train-x on prod-a. torch-2.3 restart loop?",
        "project",
        cluster="prod-a",
        workload="train-x",
        symptom=CRASH,
    ),
    r("@bot qwen-2.5 failed, prod-a", "project", cluster="prod-a", workload="qwen-2.5"),
    # a library, with its version or not, is never the workload, not even as what failed;
    # where it fails (`on X`, `in X`) is the workload unless a cluster or project is called X
    r("@bot why does nccl-2.18 hang", "cluster"),
    r("@bot why does nccl-2.18 hang on train-bert", "cluster", workload="train-bert"),
    r(
        "@bot why does cuda-12.4 fail on train-bert in nlp",
        "cluster",
        project="nlp",
        workload="train-bert",
    ),
    r("@bot is nccl-2.18 stuck on prod-a?", "workload", cluster="prod-a", symptom=PENDING),
    r("@bot why is python3.11 crashing", "cluster"),
    r("@bot torch 2.3 OOM on train-bert", "cluster", workload="train-bert"),
    r("@bot OOM on a100 for train-bert, needs 80GB", "cluster", workload="train-bert"),
    r("@bot nccl timeout on train-bert-2", "cluster", workload="train-bert-2"),
    r(
        "@bot NCCL watchdog timeout in train-bert-2, prod-a",
        "project",
        cluster="prod-a",
        workload="train-bert-2",
    ),
    r("@bot errors on `eval-7` since 3am :fire:", "cluster", workload="eval-7"),
    r(
        "@bot why did it fail on prod-aa",  # a near miss is a cluster, asked about
        "cluster? prod-a prod-b prod-c",
        cluster="prod-aa",
        near_clusters=("prod-a", "prod-b", "prod-c"),
    ),
    r("@bot why does nccl-2.18 hang on prod-b", "workload", cluster="prod-b"),
    r("@bot why is nccl-2.18 slow in vision?", "cluster", project="vision"),
    r(
        "@bot eval-7 (v2) in vision on prod-a",
        cluster="prod-a",
        project="vision",
        workload="eval-7",
    ),
    # a month is never a project, a quarter or a bare version number never a workload
    r(
        "@bot training-job-42 on prod-a has been failing in November",
        "project",
        cluster="prod-a",
        workload="training-job-42",
    ),
    r("@bot train-bert failed in march", "cluster", workload="train-bert"),
    r(
        "@bot our Q4 run training-job-42 failed in ml-team on prod-a",
        cluster="prod-a",
        project="ml-team",
        workload="training-job-42",
    ),
    r("@bot train-bert v1.2.3 failed", "cluster", workload="train-bert"),
    # ... but a bare `v3` is part of a name where nothing else names the workload
    r(
        "@bot why did the v3 one fail in vision on prod-a",
        cluster="prod-a",
        project="vision",
        workload="v3",
    ),
    r("v3", "cluster", expecting=WORKLOAD, directed=False, workload="v3"),
    r("@bot train-bert v2 failed", "cluster", workload="train-bert"),
    # a library, a GPU or an amount never answers a question, nor the word beside an amount
    r("it was fine on torch 2.2", "cluster", expecting=WORKLOAD, directed=False),
    r("OOM on a100 again", "cluster", expecting=WORKLOAD, directed=False),
    r("crashing on torch 2.3 too", "cluster", expecting=WORKLOAD, directed=False),
    r("still OOMing with 64Gi", "cluster", expecting=PROJECT, directed=False),
    r("still OOMing with 80GB", "cluster", expecting=CLUSTER, directed=False),
    r("still OOMing with 96Gi", "cluster", expecting=WORKLOAD, directed=False),
    r(
        "bumped to 128Gi and now pending",
        "cluster",
        expecting=PROJECT,
        directed=False,
        symptom=PENDING,
    ),
    r(
        "@bot why did train-bert fail in nlp on prod-a? it was running on dgx-a100-07",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "@bot is the gpu-7 node broken? train-bert in nlp on prod-b",
        cluster="prod-b",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "@bot eval-7 in vision died, it was scheduled on dgx-h100-3",
        "cluster",
        project="vision",
        workload="eval-7",
    ),
    r(
        "@bot eval-7 in vision died, it was running on prod-c",
        cluster="prod-c",
        project="vision",
        workload="eval-7",
    ),  # a known cluster's exact name is still that cluster
    # a machine word inside a name, or after the one workload named, is no machine
    r("@bot why did node-exporter-test fail?", "cluster", workload="node-exporter-test"),
    r(
        "@bot why did host-agent-2 fail on prod-a in nlp?",
        cluster="prod-a",
        project="nlp",
        workload="host-agent-2",
    ),
    r(
        "@bot why did nodes-healthcheck fail on prod-a in nlp?",
        cluster="prod-a",
        project="nlp",
        workload="nodes-healthcheck",
    ),
    r(
        "@bot resnet-ddp nodes went NotReady in vision on prod-a",
        cluster="prod-a",
        project="vision",
        workload="resnet-ddp",
    ),
    r(
        "@bot train-bert in nlp on prod-a died, the dgx-07 node had xid 79",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r("@bot why did it die? the gpu-7 node had xid 79", "cluster"),
    # --- Run:ai links, the bot's own "Open in Run:ai" included ---------------------------
    r(f"@bot {UI}/workloads?clusterId={C}&workloadId={W}", cluster=C, id=W),
    r(f"@bot [train-bert]({UI}/workloads?clusterId={C}&workloadId={W})", cluster=C, id=W),
    r(f"@bot why did this fail {UI}/workloads?workloadId={W}", "cluster", id=W),
    r(f"@bot {UI}/api/v1/workloads/{W} on prod-a", cluster="prod-a", id=W),
    r(f"@bot {UI}/api/v1/workloads/{W}/pods prod-b", cluster="prod-b", id=W),
    r(
        f"@bot [the failed run]({UI}/workloads?clusterId={C}&workloadId={W}) since yesterday",
        cluster=C,
        id=W,
        lookback="2d",
    ),
    r(f"@bot {UI}/trainings/{W}", "cluster", id=W),
    r(f"@bot {UI}/workloads?clusterId={C}", "workload", cluster=C),
    r(f"@bot {UI}/workloads?clusterId={C}&workloadId={W}&tab=events", cluster=C, id=W),
    r(f"@bot why? [link]({UI}/workloads?workloadId={W}&clusterId={C})", cluster=C, id=W),
    r(
        f"@bot https://nam02.safelinks.protection.outlook.com/?url=https%3A%2F%2Facme.run.ai%2Fworkloads%3FclusterId%3D{C}%26workloadId%3D{W}&data=x",
        cluster=C,
        id=W,
    ),
    r(
        f"@bot {UI}/workloads train-bert in nlp on prod-a",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r(
        f"@bot is [train-bert]({UI}/workloads?clusterId={C}&workloadId={W}) stuck?",
        cluster=C,
        id=W,
        symptom=PENDING,
    ),
    r(f"@bot {UI}/workloads?workloadId=not-a-uuid on prod-a", "workload", cluster="prod-a"),
    r(f"@bot look: {UI}/workloads?clusterId={C}&workloadId={W} :fire:", cluster=C, id=W),
    # --- alert pastes: Alertmanager, Grafana, PagerDuty --------------------------------
    r(
        "@bot # Alerts Firing:\nLabels:\n - alertname = KubePodNotReady\n - namespace = "
        "runai-vision\n - pod = eval-7-0-0\nAnnotations:\n - description = Pod "
        "runai-vision/eval-7-0-0 has been in a non-ready state for longer than 15 minutes "
        "on cluster .",
        "cluster",
        project="vision",
        pods=("eval-7-0-0",),
    ),  # Alertmanager's Teams body: `non-ready` is no workload, `15 minutes` no lookback
    r(
        "@bot *Alert:* KubeJobFailed\n*Description:* Job runai-nlp/train-bert-x7 failed to "
        "complete.\n*Details:*\n  \u2022 *alertname:* `KubeJobFailed`\n  \u2022 *job_name:* "
        "`train-bert-x7`\n  \u2022 *namespace:* `runai-nlp`\non prod-a",
        cluster="prod-a",
        project="nlp",
        workload="train-bert-x7",
    ),  # `job_name` names the workload, though `<namespace>/<name>` reads as a pod
    r(
        "@bot :fire: *[FIRING:1] KubePodCrashLooping* (runai-ml-team/training-job-42-0-1)\n"
        "Pod runai-ml-team/training-job-42-0-1 (trainer) is in waiting state (reason: "
        '"CrashLoopBackOff").\ncluster: prod-a',
        cluster="prod-a",
        project="ml-team",
        pods=("training-job-42-0-1",),
        symptom=CRASH,
    ),  # a title's `namespace/pod` is both, never a project with a `/` in it
    r(
        f"@bot alertname=KubePodCrashLooping cluster=prod-a namespace=runai-nlp pod=bert-ft-0-0 container=pytorch uid={UID}",
        cluster="prod-a",
        project="nlp",
        pods=("bert-ft-0-0",),
    ),
    r(
        f"@bot [FIRING:1] KubePodCrashLooping runai-nlp (pytorch http 10.42.3.19:8080 kube-state-metrics bert-ft-0-0 monitoring/kube-prometheus-stack-prometheus CrashLoopBackOff warning {UID})",
        "cluster",
        project="nlp",
        pods=("bert-ft-0-0",),
    ),
    r(
        "@bot Labels:\n - alertname = KubePodCrashLooping\n - namespace = runai-nlp\n - pod = bert-ft-0-0\nSource: https://grafana.example.com/alerting/grafana/d3f/view",
        "cluster",
        project="nlp",
        pods=("bert-ft-0-0",),
    ),
    r(
        '@bot Pod runai-vision/resnet-ddp-master-0 (pytorch) is in waiting state (reason: "CrashLoopBackOff") on prod-b',
        cluster="prod-b",
        project="vision",
        pods=("resnet-ddp-master-0",),
        symptom=CRASH,
    ),
    r(
        '@bot cluster="prod-a", namespace="runai-nlp", pod="bert-ft-0-0"',
        cluster="prod-a",
        project="nlp",
        pods=("bert-ft-0-0",),
    ),
    r(
        '@bot {cluster="prod-c", exported_namespace="runai-speech-asr", exported_pod="whisper-0-0"}',
        cluster="prod-c",
        project="speech-asr",
        pods=("whisper-0-0",),
    ),
    r(
        "@bot alertname=RunaiWorkloadFailed workload=training-job-42 project=ml-team cluster=prod-a severity=critical",
        cluster="prod-a",
        project="ml-team",
        workload="training-job-42",
    ),
    r(
        f"@bot label_workload_name=train-bert label_run_ai_top_owner_uid={W} namespace=runai-nlp cluster=prod-a",
        cluster="prod-a",
        project="nlp",
        id=W,
    ),
    r(
        "@bot KubeContainerWaiting namespace=runai-nlp pod=bert-ft-0-0 reason=ImagePullBackOff cluster=prod-a",
        cluster="prod-a",
        project="nlp",
        pods=("bert-ft-0-0",),
    ),
    r(
        "@bot alert: namespace=team-nlp pod=bert-ft-0-0 cluster=prod-a",
        "project",
        cluster="prod-a",
        pods=("bert-ft-0-0",),
        namespace="team-nlp",
    ),
    r(
        "@bot [RESOLVED] KubePodNotReady runai-vision (yolo-train-v3-0-0 prod)",
        "cluster",
        project="vision",
        pods=("yolo-train-v3-0-0",),
    ),
    r(
        "@bot #4211 [FIRING:2] KubePodCrashLooping runai-nlp (bert-ft-0-0 t5-distill-0-0) prod-a",
        cluster="prod-a",
        project="nlp",
        pods=("bert-ft-0-0", "t5-distill-0-0"),
    ),
    r(
        "@bot job=kube-state-metrics instance=10.0.0.1:8080 namespace=runai-nlp pod=t5-distill-0-0 cluster=prod-b",
        cluster="prod-b",
        project="nlp",
        pods=("t5-distill-0-0",),
    ),
    r(
        f"@bot PagerDuty: [FIRING:1] KubePodCrashLooping runai-ml-team (eval-harness-0-0 {UID}) https://acme.pagerduty.com/incidents/Q1W2E3",
        "cluster",
        project="ml-team",
        pods=("eval-harness-0-0",),
    ),
    r(
        "@bot severity=warning namespace=runai-vision pod=sdxl-finetune-0-0 clusterName=staging-west",
        cluster="staging-west",
        project="vision",
        pods=("sdxl-finetune-0-0",),
    ),
    r(
        "@bot namespace: runai-nlp\npod: bert-ft-0-0\ncluster: prod-a",
        cluster="prod-a",
        project="nlp",
        pods=("bert-ft-0-0",),
    ),
    r(
        "@bot Summary: Pod is crash looping. Labels: namespace=runai-nlp, pod=bert-ft-0-0, cluster=prod-a",
        cluster="prod-a",
        project="nlp",
        pods=("bert-ft-0-0",),
        symptom=CRASH,
    ),
    r(
        f'@bot {{uid="{UID}", namespace="runai-nlp", pod="bert-ft-0-0"}} on prod-a',
        cluster="prod-a",
        project="nlp",
        pods=("bert-ft-0-0",),
    ),
    r(
        "@bot workload=train-bert namespace=runai-nlp pod=train-bert-0-0 cluster=prod-a",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "@bot alertname=KubeJobFailed cluster=prod-a condition=true job=kube-state-metrics "
        "job_name=train-bert namespace=runai-nlp pod=kube-state-metrics-7d9f6c5b8-x2x9q "
        "severity=warning",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),  # `pod` is kube-state-metrics' own; `job_name` is the Job
    r(
        "@bot alertname=KubeJobNotCompleted namespace=runai-vision job_name=eval-7 cluster=prod-b",
        cluster="prod-b",
        project="vision",
        workload="eval-7",
    ),
    r(
        "@bot alertname=KubePodNotReady container=kube-state-metrics namespace=runai-nlp "
        "pod=kube-state-metrics-6c9d8-2x4qz cluster=prod-a",
        "workload",
        cluster="prod-a",
        project="nlp",
    ),
    r(
        "@bot alertname=GPUXidError cluster=prod-a exported_namespace=runai-vision "
        "exported_pod=resnet-ddp-master-0 namespace=gpu-operator pod=nvidia-dcgm-exporter-x7k2p "
        "gpu=3 Hostname=dgx-a100-07",
        cluster="prod-a",
        project="vision",
        pods=("resnet-ddp-master-0",),
    ),  # `pod` and `namespace` are the DCGM exporter's
    r(
        "@bot DCGM_FI_DEV_XID_ERRORS exported_pod=whisper-0-0 namespace=gpu-operator prod-c",
        "project",
        cluster="prod-c",
        pods=("whisper-0-0",),
    ),
    # --- kubectl and runai command lines -------------------------------------------------
    r(
        "@bot kubectl -n runai-nlp describe pod/bert-ft-0-0 on prod-a",
        cluster="prod-a",
        project="nlp",
        pods=("bert-ft-0-0",),
    ),
    r(
        "@bot kubectl describe pod bert-ft-0-0 -n runai-nlp --context prod-b",
        cluster="prod-b",
        project="nlp",
        pods=("bert-ft-0-0",),
    ),
    r(
        "@bot $ kubectl logs bert-ft-0-0 --namespace=runai-nlp --previous\nprod-a",
        cluster="prod-a",
        project="nlp",
        pods=("bert-ft-0-0",),
    ),
    r(
        "@bot kubectl get pods -n runai-vision\nwhy is resnet-ddp failing on prod-a",
        cluster="prod-a",
        project="vision",
        workload="resnet-ddp",
    ),
    r(
        "@bot kubectl --context gke-prod-a -n runai-nlp get pod/t5-distill-0-0",
        "cluster",
        project="nlp",
        pods=("t5-distill-0-0",),
    ),
    r(
        "@bot runai describe job train-bert -p nlp on prod-a",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "@bot runai training describe bert-ft -p nlp\ncluster prod-a",
        cluster="prod-a",
        project="nlp",
        workload="bert-ft",
    ),
    r(
        "@bot runai workload describe llama-sft-2 --project ml-team (prod-c)",
        cluster="prod-c",
        project="ml-team",
        workload="llama-sft-2",
    ),
    r(
        "@bot runai training logs train-bert --project=nlp",
        "cluster",
        project="nlp",
        workload="train-bert",
    ),
    r(f"@bot runai training standard describe --uuid={W} on prod-a", cluster="prod-a", id=W),
    r(
        "@bot $ runai training pytorch describe ddp-4node -p vision -o json",
        "cluster",
        project="vision",
        workload="ddp-4node",
    ),
    r(
        "@bot (base) alice@gpu-box:~$ runai describe job eval-7 -p vision\nprod-b",
        cluster="prod-b",
        project="vision",
        workload="eval-7",
    ),
    r(
        "@bot runai logs pytorch-06027b585626 -p nlp on prod-a",
        cluster="prod-a",
        project="nlp",
        workload="pytorch-06027b585626",
    ),
    r(
        "@bot \u276f kubectl -n runai-ml-team describe po eval-harness-0-0 # prod-a",
        cluster="prod-a",
        project="ml-team",
        pods=("eval-harness-0-0",),
    ),
    r(
        "@bot runai says train-bert failed in nlp on prod-a",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "@bot kubectl -n runai-nlp get events --field-selector involvedObject.name=bert-ft-0-0 prod-a",
        "workload",
        cluster="prod-a",
        project="nlp",
    ),
    r(
        "@bot kubectl describe pod/whisper-0-0 -n default on prod-c",
        "project",
        cluster="prod-c",
        pods=("whisper-0-0",),
        namespace="default",
    ),
    r("@bot runai list jobs -p nlp on prod-a", "workload", cluster="prod-a", project="nlp"),
    r(
        "@bot kubectl -n runai-nlp logs pod/bert-ft-0-0 -c pytorch prod-a",
        cluster="prod-a",
        project="nlp",
        pods=("bert-ft-0-0",),
    ),
    r(
        "@bot `runai training describe train-bert -p nlp` says Failed, prod-a",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    # --- compact forms; one reply filling two slots ----------------------------------------
    r("@bot nlp/train-bert on prod-a", cluster="prod-a", project="nlp", workload="train-bert"),
    r("@bot train-bert (nlp) prod-a", cluster="prod-a", project="nlp", workload="train-bert"),
    r(
        "@bot vision/resnet-ddp failed overnight on prod-b",
        cluster="prod-b",
        project="vision",
        workload="resnet-ddp",
        lookback="2d",
    ),
    r(
        "train-bert in nlp on prod-a",
        expecting=CLUSTER,
        directed=False,
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "nlp/train-bert",
        expecting=WORKLOAD,
        directed=False,
        project="nlp",
        workload="train-bert",
        asks="cluster",
    ),
    r("prod-a", expecting=CLUSTER, directed=False, cluster="prod-a"),
    r("it's on prod-b", expecting=CLUSTER, directed=False, cluster="prod-b"),
    r("nlp", expecting=PROJECT, directed=False, project="nlp"),
    r("vision please", expecting=PROJECT, directed=False, project="vision"),
    r(
        "train-bert in nlp",
        expecting=WORKLOAD,
        directed=False,
        project="nlp",
        workload="train-bert",
        asks="cluster",
    ),
    r("@bot train-bert prod-a nlp", cluster="prod-a", project="nlp", workload="train-bert"),
    r("@bot nlp train-bert prod-a", cluster="prod-a", project="nlp", workload="train-bert"),
    r("@bot ml-team/eval-harness", "cluster", project="ml-team", workload="eval-harness"),
    r(
        "@bot speech-asr/whisper-ft-1 staging-west",
        cluster="staging-west",
        project="speech-asr",
        workload="whisper-ft-1",
    ),
    r("the prod-c one", expecting=CLUSTER, directed=False, cluster="prod-c"),
    # --- several workloads in one message ------------------------------------------------
    r(
        "@bot why did train-bert and eval-7 fail in nlp on prod-a",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        others=("eval-7",),
    ),
    r(
        "@bot train-bert, eval-7, bert-ft-3 in nlp on prod-a all died",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        others=("eval-7", "bert-ft-3"),
    ),
    r(
        "@bot nlp/train-bert and vision/resnet-ddp on prod-a",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        others=("resnet-ddp",),
    ),
    r(
        "@bot pod=bert-ft-0-0 pod=bert-ft-0-1 namespace=runai-nlp cluster=prod-a",
        cluster="prod-a",
        project="nlp",
        pods=("bert-ft-0-0", "bert-ft-0-1"),
    ),
    r(
        "@bot job-1 job-2 job-3 job-4 in nlp on prod-a",
        cluster="prod-a",
        project="nlp",
        workload="job-1",
        others=("job-2", "job-3", "job-4"),
    ),
    r(
        "@bot workload=train-bert workload=eval-7 project=nlp cluster=prod-a",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        others=("eval-7",),
    ),
    r(
        "@bot train-bert-v1 vs train-bert-v2 in nlp, prod-a",
        cluster="prod-a",
        project="nlp",
        workload="train-bert-v1",
        others=("train-bert-v2",),
    ),
    r(
        "@bot both eval-7 and eval-8 are stuck in vision on prod-b",
        cluster="prod-b",
        project="vision",
        workload="eval-7",
        others=("eval-8",),
        symptom=PENDING,
    ),
    # --- corrections ----------------------------------------------------------------------
    r("actually it's on prod-c", directed=False, cluster="prod-c", correction=True),
    r("sorry, wrong cluster: prod-b", directed=False, cluster="prod-b", correction=True),
    r("no, project is vision", directed=False, project="vision", correction=True),
    r("wrong job, I mean the v2 one", directed=False, correction=True, fragment="v2"),
    r("oops I meant eval-8", directed=False, workload="eval-8", correction=True),
    r("@bot actually it's train-bert-v2", workload="train-bert-v2", correction=True),
    r("my bad, it should be staging-west", directed=False, cluster="staging-west", correction=True),
    r("wait, it's in speech-asr not nlp", directed=False, project="speech-asr", correction=True),
    r("actually no idea", directed=False),
    r(
        "wrong cluster, it's prod-aa",
        "cluster? prod-a prod-b prod-c",
        directed=False,
        cluster="prod-aa",
        correction=True,
        near_clusters=("prod-a", "prod-b", "prod-c"),
    ),
    r("wrong cluster: prod-b", directed=False, cluster="prod-b", correction=True),
    r(
        "wrong project, it's nlpp",
        "project? nlp",
        directed=False,
        project="nlpp",
        correction=True,
        near_projects=("nlp",),
    ),
    r("wrong job, it's evalharness", directed=False, workload="evalharness", correction=True),
    r("wrong cluster, it's prod-b not prod-a", directed=False, cluster="prod-b", correction=True),
    r("sorry, the large one", directed=False, correction=True, fragment="large"),
    # --- "X or Y" is asked about, "not X" is never X -----------------------------------------
    r(
        "@bot why did train-bert fail in nlp on prod-a or prod-b? not sure which one",
        "cluster? prod-a prod-b",
        project="nlp",
        workload="train-bert",
        cluster_options=("prod-a", "prod-b"),
    ),
    r(
        "@bot train-bert in nlp failed, either prod-b or prod-c",
        "cluster? prod-b prod-c",
        project="nlp",
        workload="train-bert",
        cluster_options=("prod-b", "prod-c"),
    ),
    r(
        "@bot why did resnet-ddp fail in nlp or vision on prod-a?",
        "project? nlp vision",
        cluster="prod-a",
        workload="resnet-ddp",
        project_options=("nlp", "vision"),
    ),
    r(
        "I think it's ml-team or nlp",
        expecting=PROJECT,
        directed=False,
        project_options=("ml-team", "nlp"),
    ),
    r("prod-b or prod-c?", expecting=CLUSTER, directed=False, cluster_options=("prod-b", "prod-c")),
    r("not nlp", expecting=PROJECT, directed=False),
    r("not on prod-a", expecting=CLUSTER, directed=False),
    r("@bot not train-bert, eval-7", workload="eval-7", correction=True),
    r("I meant eval-7, not train-bert", directed=False, workload="eval-7", correction=True),
    r("it's on prod-c, not prod-a", directed=False, cluster="prod-c", correction=True),
    r(
        "oops, it's vision not ml-team",
        expecting=WORKLOAD,
        directed=False,
        project="vision",
        correction=True,
    ),
    r("@bot also eval-harness is not finishing, why?", "cluster", workload="eval-harness"),
    # an or-phrase of things that are not names never replaces a value named on its own
    r(
        "@bot resnet-ddp in vision on prod-a crashed, either in the dataloader or the model, why?",
        cluster="prod-a",
        project="vision",
        workload="resnet-ddp",
    ),
    r(
        "@bot resnet-ddp in vision crashes in forward or backward pass on prod-a",
        cluster="prod-a",
        project="vision",
        workload="resnet-ddp",
    ),
    r(
        "@bot training-job-42 in ml-team on prod-a died at epoch-3 or epoch-4",
        cluster="prod-a",
        project="ml-team",
        workload="training-job-42",
    ),
    # one of `X or Y` known: that one (the engine notes the other is not known)
    r(
        "@bot why did train-bert fail in nlp on prod-a or prod-z?",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r("prod-a or prod-z?", expecting=CLUSTER, directed=False, cluster="prod-a"),
    r(
        "@bot why did train-bert fail in nlp or dataloader on prod-a?",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    # two clusters or projects: the one after on/in is the workload's
    r(
        "@bot training-job-42 on prod-a failed, the same job on prod-b is fine",
        "project",
        cluster="prod-a",
        workload="training-job-42",
    ),
    r(
        "@bot why did training-job-42 fail on prod-a? worked on prod-b yesterday",
        "project",
        cluster="prod-a",
        workload="training-job-42",
        lookback="2d",
    ),
    r(
        "@bot I copied the config from nlp, training-job-42 in ml-team now fails",
        "cluster",
        project="ml-team",
        workload="training-job-42",
    ),
    # a known cluster after `in` is the cluster, a known project after `on` the project
    r("@bot why did eval-7 fail in prod-a", "project", cluster="prod-a", workload="eval-7"),
    r("@bot eval-7 on nlp in prod-b", cluster="prod-b", project="nlp", workload="eval-7"),
    r("@bot eval-7 on vision", "cluster", project="vision", workload="eval-7"),
    # --- chatter: never a slot ------------------------------------------------------------
    r("brb", directed=False, chatter=True),
    r("checking now", directed=False, chatter=True),
    r("no idea tbh", directed=False, chatter=True),
    r(":eyes:", directed=False, chatter=True),
    r("same as yesterday", directed=False, chatter=True),
    r("@alice did you restart it?", directed=False, chatter=True),
    r("@bob can you check prod-a?", directed=False, chatter=True),
    r("thanks!", directed=False, chatter=True),
    r("@bot thanks", chatter=True),
    r("ok cool", directed=False, chatter=True),
    r("on it", directed=False, chatter=True),
    r("lemme check", directed=False, chatter=True),
    r("will look later", directed=False, chatter=True),
    r("any update?", directed=False, chatter=True),
    r("checking", expecting=CLUSTER, directed=False, chatter=True),
    r("meeting in office", expecting=PROJECT, directed=False),
    r("no idea", expecting=CLUSTER, directed=False, chatter=True),
    r("lol same here", directed=False, chatter=True),
    r("hmm", expecting=CLUSTER, directed=False, chatter=True),
    r("call me later", expecting=CLUSTER, directed=False),
    # --- time words -----------------------------------------------------------------------
    r(
        "@bot train-bert in nlp on prod-a since Saturday",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        lookback="7d",
    ),
    r(
        "@bot train-bert in nlp on prod-a since monday morning",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        lookback="5d",
    ),
    r(
        "@bot train-bert in nlp on prod-a over the weekend",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        lookback="7d",
    ),
    r(
        "@bot train-bert in nlp on prod-a past two days",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        lookback="2d",
    ),
    r(
        "@bot train-bert in nlp on prod-a this week",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        lookback="7d",
    ),
    r(
        "@bot train-bert in nlp on prod-a since yesterday's deploy",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        lookback="2d",
    ),
    r(
        "@bot train-bert in nlp on prod-a since the deploy",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        unread="since the deploy",
    ),
    r(
        "@bot train-bert in nlp on prod-a since last week",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        lookback="14d",
    ),
    r(
        "@bot train-bert in nlp on prod-a since Thursday",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        lookback="2d",
    ),
    r(
        "@bot train-bert in nlp on prod-a since the upgrade",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        unread="since the upgrade",
    ),
    r("what about since tuesday?", directed=False, lookback="4d"),
    # a date is a day (TODAY is 2026-12-04), never a cluster, project or workload
    r(
        "@bot why did train-bert fail on 2026-11-30?",
        "cluster",
        workload="train-bert",
        lookback="5d",
    ),
    r(
        "@bot why did train-bert fail in nlp on prod-a on 2026-11-30T10:32:00Z?",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        lookback="5d",
    ),
    r(
        "@bot why did train-bert fail in nlp on 11/04/2026?",
        "cluster",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "@bot why did train-bert fail on Nov 30 in nlp",
        "cluster",
        project="nlp",
        workload="train-bert",
        lookback="5d",
    ),
    r(
        "@bot train-bert in nlp on prod-a failed on 30 Nov 2026",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        lookback="5d",
    ),
    r(
        "@bot why did train-bert fail on 2026/11/30 in nlp",
        "cluster",
        project="nlp",
        workload="train-bert",
        lookback="5d",
    ),
    r(
        "@bot why did train-bert fail on 2025-11-04?",
        "cluster",
        workload="train-bert",
        too_far=("2025-11-04",),
    ),
    r(
        "@bot why did train-bert fail on Nov 4th, 2025 on prod-b",
        "project",
        cluster="prod-b",
        workload="train-bert",
        too_far=("Nov 4th, 2025",),
    ),
    # a day without its year is the latest so far: this May's, too far back, said so
    r(
        "@bot why did train-bert fail on prod-a since May 2",
        "project",
        cluster="prod-a",
        workload="train-bert",
        too_far=("May 2",),
    ),
    r(
        "@bot why did train-bert fail on prod-a since Apr 10",
        "project",
        cluster="prod-a",
        workload="train-bert",
        too_far=("Apr 10",),
    ),
    # of several dates, the one the failure is said of; in a reply, the one asked for
    r(
        "@bot train-bert was submitted 2026-10-01 and failed on 2026-11-30, nlp on prod-a",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        lookback="5d",
    ),
    r("it ran fine on Nov 4, what about since Nov 30?", directed=False, lookback="5d"),
    r("since 2026-11-30 please", directed=False, lookback="5d"),
    r("sorry, I meant Nov 30", directed=False, lookback="5d"),
    r("actually it failed on Nov 30", directed=False, lookback="5d"),
    r("nope, it failed yesterday", directed=False, lookback="2d"),  # a correction's time
    r("no, last week it was fine", directed=False),  # ... unless the run was fine then
    # ... and only a time the failure is said of: one in passing is never a lookback
    r("wait 5 min, I'm redeploying", directed=False),
    r("no rush, whenever you have a minute", directed=False),
    r("wait a minute, that's not right", directed=False),
    r("sorry, I was in a meeting for 2 hours", directed=False),
    r("oops, posted 2 min too early", directed=False),
    r("actually the node was drained 2h ago", directed=False),
    r("sorry, I was out since Monday", directed=False),
    r("actually we lost 3 days of training", directed=False),
    r("no, it ran 10 hours before the OOM", directed=False),
    r("I mean it ran for 2 days fine and then died", directed=False),
    r("I was in a meeting for 2 hours", directed=False),
    r("no, it's been stuck for 45 min", directed=False, symptom=PENDING),  # a wait: Pending
    r("no that's wrong, it has been pending for 3h", directed=False, symptom=PENDING),
    r("stuck for 45 min", directed=False, symptom=PENDING),
    r("I meant since Nov 30", directed=False, lookback="5d"),
    r("actually it ran fine on Nov 30", directed=False),
    # a date in an image's tag is no day; one after `job`, or as what failed, a name
    r(
        "@bot why did train-bert fail? ImagePullBackOff for acme/train:2026-10-01 on prod-a",
        "project",
        cluster="prod-a",
        workload="train-bert",
    ),
    r(
        "@bot why did train-bert fail? image acme/train:2026-11-30 on prod-a",
        "project",
        cluster="prod-a",
        workload="train-bert",
    ),
    r(
        "@bot why did job 12-11-2025 fail on prod-a",
        "project",
        cluster="prod-a",
        workload="12-11-2025",
    ),
    r("@bot why did train 2025-11-04 fail", "cluster", workload="2025-11-04"),
    r(
        "@bot why did eval-2026-11-30 fail in nlp?",
        "cluster",
        project="nlp",
        workload="eval-2026-11-30",
    ),
    r("what about Nov 30?", directed=False, lookback="5d"),
    r("it ran fine on Nov 30", directed=False),
    r(
        "@bot why did train-bert fail in nlp on prod-a?\n```2026-12-03T10:00:00Z NCCL timeout```",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),  # a pasted log line's date is no lookback
    r(
        "@bot train-bert in nlp on prod-a last 3 days",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        lookback="3d",
    ),
    r(
        "@bot train-bert in nlp on prod-a since the incident started",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        unread="since the incident",
    ),
    r(
        "@bot train-bert in nlp on prod-a in the past hour",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        lookback="1h",
    ),
    r(
        "@bot train-bert in nlp on prod-a since fri",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        lookback="8d",
    ),
    r(
        "@bot why did train-bert fail in nlp on prod-a?\n```RuntimeError: NCCL timeout after 30m\n"
        "epoch 3 of the last 2 days```",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),  # a pasted log's times are no lookback
    r("what about the last 3 days?", directed=False, lookback="3d"),
    r("check the last week", directed=False, lookback="7d"),
    r("last 7d", directed=False, lookback="7d"),
    r(
        "prod-a, over the last 7 days",
        expecting=CLUSTER,
        directed=False,
        cluster="prod-a",
        lookback="7d",
    ),
    r("it ran fine last week though", directed=False),
    r("ugh, 3 days of training lost", directed=False),
    r("it was fine over the weekend", directed=False),
    r("I'll check the last 3 days myself", directed=False),
    r("it died after 5m", directed=False),
    # how long a run ran is no lookback, in a request either
    r(
        "@bot train-bert in nlp on prod-a died after 30 min",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "@bot train-bert on prod-a crashed 2h in",
        "project",
        cluster="prod-a",
        workload="train-bert",
    ),
    r(
        "@bot train-bert in nlp on prod-a: NCCL timeout after about an hour",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "@bot train-bert OOMs after 2 hours on prod-a in nlp, last 7 days",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        lookback="7d",
    ),
    # --- "stuck" questions are about the current run ---------------------------------------
    r(
        "@bot train-bert in nlp on prod-a hasn't started in 20 min",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        symptom=PENDING,
    ),
    r(
        "@bot why is it queued? train-bert in nlp on prod-a",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        symptom=PENDING,
    ),
    r(
        "@bot train-bert in nlp on prod-a pods never get ready",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        symptom=PENDING,
    ),
    r(
        "@bot train-bert in nlp on prod-a still waiting after 2 hours",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        symptom=PENDING,
    ),
    r(
        "@bot train-bert is stuck in nlp on prod-a",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        symptom=PENDING,
    ),
    r(
        "@bot train-bert in nlp on prod-a has not started yet",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        symptom=PENDING,
    ),
    r(
        "@bot train-bert in nlp on prod-a didn't come up for an hour",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        symptom=PENDING,
    ),
    r(
        "@bot train-bert in nlp on prod-a is in an image pull loop",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        symptom=PULL,
    ),
    # ... and a running job stuck at a step of its training is no Pending question
    r("@bot why is train-bert stuck on step 0", "cluster", workload="train-bert"),
    r(
        "@bot train-bert stuck at barrier on prod-a",
        "project",
        cluster="prod-a",
        workload="train-bert",
    ),
    r("@bot why is train-bert stuck at 99%?", "cluster", workload="train-bert"),
    r(
        "@bot train-bert stuck in the dataloader, nlp on prod-b",
        cluster="prod-b",
        project="nlp",
        workload="train-bert",
    ),
    r("@bot eval-7 hangs at checkpoint, prod-a", "project", cluster="prod-a", workload="eval-7"),
    # a pod's status after `at`, `in` or `on` is the symptom, never a cluster or a project
    r("@bot stuck at ContainerCreating", "cluster", symptom=PENDING),
    r(
        "@bot train-bert stuck at ContainerCreating",
        "cluster",
        workload="train-bert",
        symptom=PENDING,
    ),
    r(
        "@bot train-bert is stuck in ContainerCreating on prod-a, nlp",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        symptom=PENDING,
    ),
    r("@bot stuck in Pending", "cluster", symptom=PENDING),
    r("@bot stuck on Init:0/1", "cluster", symptom=INIT),
    r("@bot stuck in ImagePullBackOff", "cluster", symptom=PULL),
    r(
        "@bot pods stuck at PodInitializing for train-bert",
        "cluster",
        workload="train-bert",
        symptom=PENDING,
    ),
    r(
        "@bot train-bert stuck at CreateContainerConfigError on prod-b",
        "project",
        cluster="prod-b",
        workload="train-bert",
        symptom=PENDING,
    ),
    r("why is it stuck at ContainerCreating?", directed=False, symptom=PENDING),
    r("hmm no, it's still stuck in ContainerCreating", directed=False, symptom=PENDING),
    # --- a pasted `kubectl describe`: who reported an event, its count, what it names ---------
    r(
        "@bot why is this stuck?\n```$ kubectl describe pod train-bert-0-0 -n runai-nlp\n"
        "Name:         train-bert-0-0\nNamespace:    runai-nlp\nStatus:       Pending\nEvents:\n"
        "  Type     Reason            Age   From             Message\n"
        "  Warning  FailedScheduling  2m    runai-scheduler  0/8 nodes are available: "
        "8 Insufficient nvidia.com/gpu.```\non prod-a",
        cluster="prod-a",
        project="nlp",
        pods=("train-bert-0-0",),
        symptom=PENDING,
    ),
    r(
        "@bot help pls :pray:\n```Events:\n  Type     Reason       Age                From     "
        "Message\n  Warning  FailedMount  3m (x12 over 25m)  kubelet  MountVolume.SetUp failed "
        'for volume "data" : persistentvolumeclaim "nlp-data" not found```\n'
        "it's train-bert in nlp, prod-b",
        cluster="prod-b",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "@bot ```Warning  BackOff  2m (x40 over 12m)  kubelet  Back-off restarting failed "
        "container trainer in pod eval-7-0-0_runai-vision(5d0c2b8e)```\nthat's eval-7 on prod-c, "
        "vision",
        cluster="prod-c",
        project="vision",
        workload="eval-7",
    ),
    # --- a pasted `kubectl get` table: rows are pods; READY and AGE are nothing ----------------
    r(
        "@bot why did `bert-ft-squad` fail? see [UI](https://acme.run.ai/workloads) and:\n"
        "```NAME          READY   STATUS      RESTARTS   AGE\n"
        "bert-ft-squad-0-0   0/1     OOMKilled   0          4m```",
        "cluster",
        workload="bert-ft-squad",
    ),
    r(
        "@bot why did this die on prod-a?\n```$ kubectl get pods -n runai-ml-team\n"
        "NAME                  READY   STATUS      RESTARTS   AGE\n"
        "training-job-42-0-0   0/1     OOMKilled   0          5m```",
        cluster="prod-a",
        project="ml-team",
        pods=("training-job-42-0-0",),
    ),
    r(
        "@bot kubectl get pods -A\nNAMESPACE   NAME   READY   STATUS   RESTARTS   AGE\n"
        "runai-nlp   bert-ft-0-0   0/1   CrashLoopBackOff   5 (42s ago)   2d\nthat's prod-b",
        cluster="prod-b",
        project="nlp",
        pods=("bert-ft-0-0",),
    ),
    # --- a pasted `runai` list: NAME is the workload, PROJECT its project, the rest nothing -----
    r(
        "@bot why did this fail on prod-a?\n```$ runai list jobs\n" + V1 + "\n"
        "train-bert  Failed  2h  dgx-a100-07  nvcr.io/nvidia/pytorch:24.01-py3  Train  nlp  "
        "alice  - (1)  0 (0)```",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "@bot why is this stuck? prod-b\n```" + V1 + "\n"
        "eval-7  Pending  5m  gcr.io/acme/eval:2  Train  vision  bob  0 (1)  0 (1)```",
        cluster="prod-b",
        project="vision",
        workload="eval-7",
        symptom=PENDING,
    ),  # an empty NODE: PROJECT is read where the IMAGE shows it stands
    r(
        "@bot why did this fail on prod-a?\n```" + V1 + "\n"
        "train-bert  Failed  2h  dgx-07  ubuntu  Train  nlp  alice  - (1)  0 (0)```",
        "project",
        cluster="prod-a",
        workload="train-bert",
    ),  # `ubuntu`: no telling a NODE from an IMAGE, so the project is asked
    r(
        "@bot these died on prod-a\n```Showing jobs for project nlp\n" + V1 + "\n"
        "bert-ft-3  Failed  1h  dgx-01  nvcr.io/x/y:1  Train  nlp  alice  - (1)  0 (0)\n"
        "t5-distill  Failed  1h  dgx-02  nvcr.io/x/y:1  Train  nlp  alice  - (1)  0 (0)```",
        cluster="prod-a",
        project="nlp",
        workload="bert-ft-3",
        others=("t5-distill",),
    ),
    r(
        "@bot on prod-a\n```" + V1 + "\n"
        "bert-ft-3  Failed  1h  dgx-01  nvcr.io/x/y:1  Train  nlp  alice  - (1)  0 (0)\n"
        "eval-7  Failed  1h  dgx-02  nvcr.io/x/y:1  Train  vision  bob  - (1)  0 (0)```",
        "project",
        cluster="prod-a",
        workload="bert-ft-3",
        others=("eval-7",),
    ),  # `-A`: two projects, so which one is asked
    r(
        "@bot why did eval-7 fail? prod-a\n```" + V1 + "\n"
        "bert-ft-3  Running  1h  dgx-01  nvcr.io/x/y:1  Train  nlp  alice  1 (1)  1 (0)\n"
        "eval-7  Failed  1h  dgx-02  nvcr.io/x/y:1  Train  vision  bob  - (1)  0 (0)```",
        cluster="prod-a",
        project="vision",
        workload="eval-7",
    ),  # the workload named is asked about; its row gives its project
    r(
        "@bot prod-b\n```$ runai training list\n" + V2 + "\n"
        "resnet-ddp  Training  Failed  vision  Yes  0/2  0.00```",
        cluster="prod-b",
        project="vision",
        workload="resnet-ddp",
    ),
    # a header is the CLI's own, every word in its order: a sentence with `status` and
    # `project` in it (Run:ai's status notifications read so) is read as a sentence
    r(
        "@bot Workload training-job-42 status changed to Failed in project ml-team on cluster "
        "prod-a",
        cluster="prod-a",
        project="ml-team",
        workload="training-job-42",
    ),
    r(
        "@bot workload training-job-42 status failed project ml-team cluster prod-a",
        cluster="prod-a",
        project="ml-team",
        workload="training-job-42",
    ),
    r(
        "@bot Workload status is pending for train-bert, project nlp, cluster prod-a",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        symptom=PENDING,
    ),
    r(
        "@bot name of the workload is train-bert, status failed, project nlp on prod-a",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    # pasted without a code block, the table ends where its rows do: the prose is read
    r(
        "@bot\n" + V1 + "\n"
        "train-bert  Failed  2h  dgx-a100-07  nvcr.io/nvidia/pytorch:24.01-py3  Train  nlp  "
        "alice  - (1)  0 (0)\nprod-a - why did this one fail since yesterday? it was fine before",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        lookback="2d",
    ),
    r(
        "@bot\n" + V2 + "\ntraining-job-42  Training  Failed  ml-team  Yes  0/1  0.00\n"
        "prod-a cluster, it keeps crashing since yesterday",
        cluster="prod-a",
        project="ml-team",
        workload="training-job-42",
        lookback="2d",
        symptom=CRASH,
    ),
    r(
        "@bot\n" + V2 + "\ntraining-job-42  Training  Failed  ml-team  Yes  0/1  0.00\n\n"
        "prod-a cluster, it keeps crashing since yesterday",
        cluster="prod-a",
        project="ml-team",
        workload="training-job-42",
        lookback="2d",
        symptom=CRASH,
    ),
    r(
        "@bot\n" + V1 + "\n"
        "train-bert  Failed  2h  dgx-a100-07  nvcr.io/nvidia/pytorch:24.01-py3  Train  nlp  "
        "alice  - (1)  0 (0)\nprod-a cluster, it keeps crashing since yesterday",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        lookback="2d",
        symptom=CRASH,
    ),
    r(
        "@bot why did this fail on prod-a?\n```" + V1 + "\n"
        "train-bert  Failed  2h  dgx-a100-07  nvcr.io/nvidia/pytorch:24.01-py3  Train  nlp\n"
        "alice  - (1)  0 (0)```",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),  # a row a narrow terminal wrapped: its IMAGE shows it is one
    # a `kubectl get pods` table and a `runai` list in one block: the list says the workload
    r(
        "@bot prod-a\n```NAME  READY  STATUS  RESTARTS  AGE\nbert-ft-0-0  0/1  CrashLoopBackOff  5  "
        "4m\n" + V1 + "\ntrain-bert  Failed  2h  dgx-a100-07  nvcr.io/nvidia/pytorch:24.01-py3  "
        "Train  nlp  alice  - (1)  0 (0)```",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    # a v1 header a narrow terminal wrapped: its second line is header too, never a row
    r(
        "@bot why did this fail on prod-a?\n```"
        + V1.replace("PODs Running", "PODs\nRunning")
        + "\n"
        "train-bert  Failed  2h  dgx-a100-07  nvcr.io/nvidia/pytorch:24.01-py3  Train  nlp  "
        "alice  - (1)  0 (0)```",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    # rows a narrow terminal wrapped, each one's GPU figures on a line of their own: every
    # row is read, and the figures never end the table
    r(
        "@bot prod-a\n```"
        + V1.replace("PODs Running", "\nPODs Running")
        + "\ntrain-bert  Failed  2h  dgx-a100-07  nvcr.io/nvidia/pytorch:24.10-py3  Train  nlp  "
        "alice  0 (1)\n0 (0)\neval-7  Running  5d  dgx-a100-02  acme/eval:v3  Train  nlp  bob  "
        "1 (1)\n1 (0)```",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
        others=("eval-7",),
    ),
    r(
        "@bot why did train-bert fail? prod-a\n```"
        + V1.replace("PODs Running", "\nPODs Running")
        + "\ntrain-bert  Failed  2h  dgx-a100-07  nvcr.io/nvidia/pytorch:24.10-py3  Train  nlp  "
        "alice  0 (1)\n0 (0)\neval-7  Running  5d  dgx-a100-02  acme/eval:v3  Train  nlp  bob  "
        "1 (1)\n1 (0)```",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    # --- near misses and typos: asked about, never used ------------------------------------
    r(
        "@bot train-bert in nlpp on prod-a",
        "project? nlp",
        cluster="prod-a",
        project="nlpp",
        workload="train-bert",
        near_projects=("nlp",),
    ),
    r(
        "@bot train-bert in visoin on prod-a",
        "project? vision",
        cluster="prod-a",
        project="visoin",
        workload="train-bert",
        near_projects=("vision",),
    ),
    r(
        "@bot train-bert in nlp on prod-aa",
        "cluster? prod-a prod-b prod-c",
        cluster="prod-aa",
        project="nlp",
        workload="train-bert",
        near_clusters=("prod-a", "prod-b", "prod-c"),
    ),
    r(
        "nlpp",
        expecting=PROJECT,
        directed=False,
        project="nlpp",
        near_projects=("nlp",),
        asks="project? nlp",
    ),
    r(
        "prodd-b",
        expecting=CLUSTER,
        directed=False,
        cluster="prodd-b",
        near_clusters=("prod-b", "prod-a", "prod-c"),
        asks="cluster? prod-b prod-a prod-c",
    ),
    r(
        "@bot train-bert in ml-tem on prod-a",
        "project? ml-team",
        cluster="prod-a",
        workload="train-bert",
        project="ml-tem",
        near_projects=("ml-team",),
    ),
    r(
        "@bot train-bert in finance on prod-a",
        cluster="prod-a",
        project="finance",
        workload="train-bert",
    ),
    r(
        "@bot eval-7 on staging",
        "cluster? staging-west",
        cluster="staging",
        workload="eval-7",
        near_clusters=("staging-west",),
    ),
    # --- picks and follow-ups ---------------------------------------------------------------
    r("2", expecting=WORKLOAD, directed=False, pick=2),
    r("the second one", expecting=CLUSTER, directed=False, pick=2),
    r("show logs", directed=False, follow_up=FollowUp.EVIDENCE),
    r("check again", directed=False, follow_up=FollowUp.RERUN),
    r("re-run?", directed=False, follow_up=FollowUp.RERUN),
    r("try again please", directed=False, follow_up=FollowUp.RERUN),
    r("will you check again?", directed=False, follow_up=FollowUp.RERUN),
    r("ok, I'll rerun it with more memory", directed=False),
    r("will try again after lunch", directed=False),
    r("gonna retry with a bigger batch", directed=False),
    r("it failed again", directed=False),
    r("I bumped the memory limit so check again pls", directed=False, follow_up=FollowUp.RERUN),
    r("pushed a new image - can you check again?", directed=False, follow_up=FollowUp.RERUN),
    r("fixed the pvc \u2014 check again?", directed=False, follow_up=FollowUp.RERUN),
    r("@bot I redeployed it so please check again", follow_up=FollowUp.RERUN),
    r("I restarted it again", directed=False),
    # a symptom in a plain reply after an answer: asked of the bot, or talk
    r("why is it crashlooping?", directed=False, symptom=CRASH),
    r("is it stuck in init", directed=False, symptom=INIT),
    r("could it be the image pull?", directed=False, symptom=PULL),
    r("check the init containers", directed=False, symptom=INIT),
    r("crash loop", directed=False, symptom=CRASH),
    r("still crashlooping here", directed=False),
    r("same, it keeps crashing", directed=False),
    r("mine is pending as well", directed=False),
    r("it's still waiting for me too", directed=False),
    r("image pull issue on my side too", directed=False),
    r("yeah it OOMed on me too last week", directed=False),
    r("I'll look at the mount", directed=False),
    r("@bot still crashlooping here", symptom=CRASH),  # directed: a request
    r("still crashlooping", expecting=WORKLOAD, directed=False, symptom=CRASH),  # an answer
    # a reply that is only the symptom asks, whatever padding, state or emoji is around it
    r("CrashLoopBackOff", directed=False, symptom=CRASH),
    r("ImagePullBackOff", directed=False, symptom=PULL),
    r("crashlooping", directed=False, symptom=CRASH),
    r("Init:0/1", directed=False, symptom=INIT),
    r("stuck in init", directed=False, symptom=INIT),
    r("image pull error", directed=False, symptom=PULL),
    r("pending!", directed=False, symptom=PENDING),
    r("stuck :(", directed=False, symptom=PENDING),
    r("it's stuck.", directed=False, symptom=PENDING),
    r("CrashLoopBackOff!", directed=False, symptom=CRASH),
    r("it's still pending", directed=False, symptom=PENDING),
    r("it's still queued", directed=False, symptom=PENDING),
    r("it hasn't started in 20 min", directed=False, symptom=PENDING),
    r("it still hasn't started", directed=False, symptom=PENDING),
    r("Still crashlooping", directed=False, symptom=CRASH),
    r("the pod is crashlooping", directed=False, symptom=CRASH),
    r("pods are stuck in Init:0/1", directed=False, symptom=INIT),
    r("yep, CrashLoopBackOff", directed=False, symptom=CRASH),
    r("looks like a crash loop", directed=False, symptom=CRASH),
    r("seems stuck in init", directed=False, symptom=INIT),
    r("I think it's a mount issue", directed=False, symptom=Symptom.MOUNT),
    r("it's now failing with ImagePullBackOff", directed=False, symptom=PULL),
    r("pods never get ready", directed=False, symptom=PENDING),
    r("I restarted it and now it's stuck pending. thoughts?", directed=False, symptom=PENDING),
    r("still crashlooping. any ideas?", directed=False, symptom=CRASH),
    r("still pending \u00af\\_(\u30c4)_/\u00af", directed=False, symptom=PENDING),
    r("still pending \U0001f615", directed=False, symptom=PENDING),
    r("hmm still pending", directed=False, symptom=PENDING),
    r("nope, still pending", directed=False, symptom=PENDING),
    # a reply that names what it is about, or corrects the last request, is a request
    r(
        "what about prep-coco? it's pending too",
        directed=False,
        workload="prep-coco",
        symptom=PENDING,
    ),
    r(
        "actually it's yolo-train-v3 in vision, it's stuck pending",
        directed=False,
        workload="yolo-train-v3",
        project="vision",
        symptom=PENDING,
        correction=True,
    ),
    r("eval-7: CrashLoopBackOff", directed=False, workload="eval-7", symptom=CRASH),
    r("also eval-8 ImagePullBackOff", directed=False, workload="eval-8", symptom=PULL),
    r("eval-7 is stuck pending now", directed=False, workload="eval-7", symptom=PENDING),
    r(
        "and vit-pretrain-xl is pending as well",
        directed=False,
        workload="vit-pretrain-xl",
        symptom=PENDING,
    ),
    r(
        "no, it's on prod-b and it's crashlooping there",
        directed=False,
        cluster="prod-b",
        symptom=CRASH,
        correction=True,
    ),
    r(
        "not train-bert, eval-7 - that one is crashlooping",
        directed=False,
        workload="eval-7",
        symptom=CRASH,
        correction=True,
    ),
    r(
        "wrong job, it's eval-7 that's stuck",
        directed=False,
        workload="eval-7",
        symptom=PENDING,
        correction=True,
    ),
    # ... and who it happens to, or a comparison, is talk
    r("mine is still pending as well", directed=False),
    r("same here, still crashlooping", directed=False),
    r("it crashed on me too", directed=False),
    r("same, it hasn't started for me either", directed=False),
    # ... even after `no`, `sorry` or `wait`: someone agreeing corrects nothing
    r("no, same here, still crashlooping", directed=False),
    r("nope, same for me, still pending", directed=False),
    r("sorry, same issue here - stuck in init", directed=False),
    r("no, me too, image pull errors", directed=False),
    r("wait, mine is stuck pending too", directed=False),
    r("no, still crashlooping here", directed=False),
    r("actually same, crashlooping on my side as well", directed=False),
    # ... while a correction of the symptom, or of a slot, still is one
    r("no, it's crashlooping, not pending", directed=False, symptom=CRASH),
    r("no, it takes too long, still pending", directed=False, symptom=PENDING),
    r(
        "no, same here on prod-b, still crashlooping",
        directed=False,
        cluster="prod-b",
        symptom=CRASH,
        correction=True,
    ),
    r("@bot no, same here, still crashlooping", symptom=CRASH),  # addressed to the bot
]


def test_the_table_is_big_enough():
    assert len(ROWS) >= 150
    assert len({row.said for row in ROWS}) == len(ROWS)


@pytest.mark.parametrize("markup", PLATFORMS, ids=[m.value for m in PLATFORMS])
@pytest.mark.parametrize("row", ROWS, ids=[row.said[:60] for row in ROWS])
def test_each_message_reads_the_same_on_every_platform(row: Row, markup: Markup):
    text = render(row.said, markup)
    understood = understand(
        text,
        markup=markup,
        expecting=row.expecting,
        known=KNOWN,
        bot_user_id=BOT_ID,
        today=TODAY,
        directed=row.directed,
    )
    got = summary(understood)
    assert got == {**_NONE, **row.want}, text
    if row.asks is not None:
        assert next_question(got) == row.asks


#: Read before the cluster, and so the asker's projects, is known (the engine's first read):
#: a pair of names (`nlp/train-bert`) is then only a guess from its shape.
BEFORE_PROJECTS = Known(clusters=KNOWN.clusters)
GUESSES: list[Row] = [
    r(
        "@bot training-job-42 in ml-team: only 1/4 workers came up before it died",
        "cluster",
        project="ml-team",
        workload="training-job-42",
    ),
    r(
        "@bot why did training-job-42 in ml-team fail on 11/04?",
        "cluster",
        project="ml-team",
        workload="training-job-42",
    ),
    r(
        "@bot eval-7 (v2) in vision on prod-b",
        cluster="prod-b",
        project="vision",
        workload="eval-7",
    ),
    r(
        "@bot why did bert-ft-3 in vision fail on prod-b? same as nlp/train-bert",
        cluster="prod-b",
        project="vision",
        workload="train-bert",
        others=("bert-ft-3",),
    ),
    r("@bot nlp/train-bert on prod-a", cluster="prod-a", project="nlp", workload="train-bert"),
    r("@bot train-bert on prod-a (nlp)", cluster="prod-a", project="nlp", workload="train-bert"),
    r(
        "@bot why did train-bert fail at prod-b (vision)?",
        cluster="prod-b",
        project="vision",
        workload="train-bert",
    ),
]


@pytest.mark.parametrize("markup", PLATFORMS, ids=[m.value for m in PLATFORMS])
@pytest.mark.parametrize("row", GUESSES, ids=[row.said[:60] for row in GUESSES])
def test_a_pair_guessed_from_its_shape_never_beats_what_was_typed(row: Row, markup: Markup):
    understood = understand(
        render(row.said, markup),
        markup=markup,
        expecting=row.expecting,
        known=BEFORE_PROJECTS,
        bot_user_id=BOT_ID,
        today=TODAY,
        directed=row.directed,
    )
    got = summary(understood)
    assert got == {**_NONE, **row.want}
    if row.asks is not None:
        assert next_question(got) == row.asks


#: Slack channel links, as Slack delivers them: a channel is at most a known cluster.
CHANNELS: list[Row] = [
    r(
        "<@U0RUNAIWHY> why did train-bert fail in nlp on prod-a? cross-posting from "
        "<#C05INC0001|ml-team-alerts>",
        cluster="prod-a",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "<@U0RUNAIWHY> train-bert in nlp, see <#C05PRODB|prod-b>",
        cluster="prod-b",
        project="nlp",
        workload="train-bert",
    ),
    r(
        "<@U0RUNAIWHY> train-bert on prod-a, from <#C05|vision>",
        "project",
        cluster="prod-a",
        workload="train-bert",
    ),
    r("one sec, asking in <#C05|ml-infra>", expecting=PROJECT, directed=False),
    r("in <#C05|nlp>", expecting=PROJECT, directed=False, chatter=True),
]


@pytest.mark.parametrize("row", CHANNELS, ids=[row.said[:60] for row in CHANNELS])
def test_a_slack_channel_names_at_most_a_known_cluster(row: Row):
    understood = understand(
        row.said,
        markup=Markup.SLACK,
        expecting=row.expecting,
        known=KNOWN,
        bot_user_id=BOT_ID,
        today=TODAY,
        directed=row.directed,
    )
    got = summary(understood)
    assert got == {**_NONE, **row.want}
    if row.asks is not None:
        assert next_question(got) == row.asks


#: Plain replies in a thread already about a workload: a version said to fail is what the
#: workload runs, never a new one; a re-run request re-runs the thread's workload.
IN_A_THREAD: list[Row] = [
    r("torch-2.3 keeps crashing, re-run?", directed=False, follow_up=FollowUp.RERUN),
    r(
        "upgraded, torch-2.3 still crashes, can you check again?",
        directed=False,
        follow_up=FollowUp.RERUN,
    ),
    r("torch-2.3 crashed again, can you recheck?", directed=False, follow_up=FollowUp.RERUN),
    r("tried again: cuda-12.4 failed again", directed=False),
    r("ok, torch-2.3 is killed by OOM too. why?", directed=False),
    r(
        "what about prep-coco? it's pending too",
        directed=False,
        workload="prep-coco",
        symptom=PENDING,
    ),
    r("bumped the limit to 64Gi, still OOMKilled. why?", directed=False),  # an amount
    r("why does nccl-2.18 hang on eval-7?", workload="eval-7"),  # where a library hangs
    r("it's also failing on eval-7", directed=False, workload="eval-7"),
    # a machine the thread's workload ran on is neither the cluster nor the next workload
    r("did anything change on dgx-a100-07?", directed=False),
    r("is it on node-12 again?", directed=False, follow_up=FollowUp.RERUN),
    r("anything odd on ip-10-0-1-7.ec2.internal?", directed=False),
    r("it was fine on torch 2.2", expecting=WORKLOAD, directed=False),
    r("it's on prod-b", directed=False, cluster="prod-b"),  # a cluster still is one
]


@pytest.mark.parametrize("markup", PLATFORMS, ids=[m.value for m in PLATFORMS])
@pytest.mark.parametrize("row", IN_A_THREAD, ids=[row.said[:60] for row in IN_A_THREAD])
def test_a_version_in_a_thread_about_a_workload_is_no_new_workload(row: Row, markup: Markup):
    understood = understand(
        render(row.said, markup),
        markup=markup,
        known=KNOWN,
        bot_user_id=BOT_ID,
        today=TODAY,
        directed=row.directed,
        expecting=row.expecting,
        has_workload=True,
    )
    assert summary(understood) == {**_NONE, **row.want}


def test_a_name_left_over_is_listed_once():
    understood = understand("what about in ml-team", directed=False, has_workload=True)
    assert understood.unplaced == ("ml-team",)
