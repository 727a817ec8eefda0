"""A pod named without its workload (`pod=bert-ft-0-0`): found through the workloads' pods.

A pod's name is not its workload's: `resnet-ddp-master-0` belongs to `resnet-ddp`, and a
workload may itself be called `bert-ft-0-0`. So the project's workloads are listed (after
the asker's access to the project is checked), narrowed to those whose name starts the
pod's and whose kind the asker may read, and each one's pods are read until one lists this
pod. Nothing found is a question, the same whether no workload or only one of a kind the
asker may not read lists it: what they may not see is never read for them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.conversation.access import Gate
from bot.conversation.messages import describe_upstream
from bot.conversation.model import Notice, Question, Slots
from bot.conversation.parse import Expecting
from diagnosis import RunaiReader, UpstreamError

__all__ = ["MAX_POD_OWNERS", "Asked", "Owned", "find_pod_owner", "pod_named"]

_POD_SHAPE = re.compile(r"-\d++-\d++$")

#: How many workloads whose name starts the pod's are asked for their pods (newest first).
MAX_POD_OWNERS = 5


@dataclass(frozen=True)
class Owned:
    """The pod's workload was found: the slots with it, and a note for the answer."""

    slots: Slots
    note: str


@dataclass(frozen=True)
class Asked:
    """What to ask instead, and which slot the reply fills."""

    question: Question
    expecting: Expecting


async def pod_named(runai: RunaiReader, gate: Gate, slots: Slots) -> Slots:
    """`bert-ft-0-0` given as a workload: a pod, when no workload of the project has that name.

    Only a name shaped like a pod's (`…-<n>-<n>`) is checked, and only where the asker may
    list the project; otherwise, or when the list fails, the slots are left as they are.
    """
    name, project, cluster_id = slots.workload_name or "", slots.project, slots.cluster_id
    if not (project and cluster_id and _POD_SHAPE.search(name)):
        return slots
    decision = await gate.may_list(cluster_id, slots.cluster_label or cluster_id, project)
    if not decision.allowed:
        return slots  # the diagnosis's own check refuses it, with the usual denial
    try:
        named = await runai.list_workloads(cluster_id=cluster_id, project=project, name=name)
    except UpstreamError:
        return slots
    if any(decision.allows_kind(w.type) for w in named):
        return slots
    return slots.model_copy(update={"pod": name, "workload_name": None})


async def find_pod_owner(
    runai: RunaiReader, gate: Gate, slots: Slots, asker: str
) -> Owned | Asked | Notice:
    """The pod's workload, a question to ask, or a notice (a denial, a failed read).

    The caller has resolved the cluster (`slots.cluster_id`).
    """
    pod, project, cluster_id = slots.pod or "", slots.project, slots.cluster_id or ""
    if not project:
        return Asked(Question(f"Which project is pod `{pod}` in?", asker=asker), Expecting.PROJECT)
    decision = await gate.may_list(cluster_id, slots.cluster_label or cluster_id, project)
    if not decision.allowed:
        return await gate.deny(decision, typed=pod)
    try:
        listed = await runai.list_project_workloads(cluster_id=cluster_id, project=project)
        starts = [
            w
            for w in listed
            if (pod == w.name or pod.startswith(f"{w.name}-")) and decision.allows_kind(w.type)
        ]
        for workload in starts[:MAX_POD_OWNERS]:
            pods = await runai.list_pods(workload.id)
            if any(p.name == pod for p in pods):
                update = {"workload_id": workload.id, "workload_name": workload.name, "pod": None}
                note = f"Pod {pod} belongs to workload {workload.name}."
                return Owned(slots.model_copy(update=update), note)
    except UpstreamError as error:
        return Notice(describe_upstream(error, f"find the workload of pod {pod}"), private=True)
    text = (
        f"None of the workloads in project {project} lists pod `{pod}` now, so I can't tell "
        "which workload it belongs to. Which workload is it? Reply with its name or ID."
    )
    return Asked(Question(text, asker=asker), Expecting.WORKLOAD)
