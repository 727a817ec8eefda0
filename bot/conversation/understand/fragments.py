"""A correction by part of a name ("I mean the v2 one"), found among the project's workloads.

Only after an answer, in the thread's own cluster and project: their workloads (of the kinds
the asker may read) whose names contain the part are listed, closest to the last answer's
name first. One is used; several are a question with buttons; none is a question.
"""

from __future__ import annotations

import difflib

from bot.conversation.access import Gate
from bot.conversation.messages import describe_upstream
from bot.conversation.model import Choice, Notice, Question, Slots
from bot.conversation.parse import Expecting
from bot.conversation.understand.pods import Asked
from diagnosis import RunaiReader, UpstreamError

__all__ = ["MAX_FRAGMENT_CHOICES", "by_fragment"]

#: How many workloads containing the part are offered as buttons.
MAX_FRAGMENT_CHOICES = 5


async def by_fragment(
    runai: RunaiReader, gate: Gate, slots: Slots, fragment: str, asker: str
) -> Slots | Asked | Notice:
    """The slots naming the one workload `fragment` means, a question, or a notice.

    `slots` are the thread's (its cluster, project and the workload it answered about).
    """
    which = f"Which workload did you mean by “{fragment}”? Reply with its name."
    cluster_id, project = slots.cluster_id, slots.project
    if not (cluster_id and project):
        return Asked(Question(which, asker=asker), Expecting.WORKLOAD)
    decision = await gate.may_list(cluster_id, slots.cluster_label or cluster_id, project)
    if not decision.allowed:
        return await gate.deny(decision, typed=fragment)
    try:
        listed = await runai.list_project_workloads(cluster_id=cluster_id, project=project)
    except UpstreamError as error:
        return Notice(describe_upstream(error, "list the project's workloads"), private=True)
    previous = (slots.workload_name or "").casefold()
    names = {
        w.name: None
        for w in listed
        if fragment in w.name.casefold()
        and w.name.casefold() != previous
        and decision.allows_kind(w.type)
    }

    def closeness(name: str) -> float:
        return -difflib.SequenceMatcher(None, previous[:64], name.casefold()[:64]).ratio()

    ranked = sorted(names, key=lambda n: (closeness(n), n))
    if len(ranked) == 1:
        return slots.model_copy(update={"workload_name": ranked[0], "workload_id": None})
    if not ranked:
        text = f"No workload in project {project} has “{fragment}” in its name. {which}"
        return Asked(Question(text, asker=asker), Expecting.WORKLOAD)
    choices = tuple(Choice(label=n, value=f"name:{n}") for n in ranked[:MAX_FRAGMENT_CHOICES])
    text = f"Several workloads in project {project} have “{fragment}” in their names. Which one?"
    return Asked(Question(text, choices, asker=asker), Expecting.WORKLOAD)
