"""A project the asker cannot read: say so without revealing it, and suggest their own.

"You don't have read access to project nlpp" told a person with a typo that `nlpp` exists.
Instead: no project of that name is readable by them on that cluster, and the near matches
among the projects they *can* read are offered as buttons (never anyone else's).
"""

from __future__ import annotations

from bot.authz import Decision, Reason
from bot.conversation.access import Gate
from bot.conversation.model import Choice, Notice, Question
from bot.conversation.understand.vocabulary import near_misses

__all__ = ["PROJECT_CHOICE", "unreadable_project"]

#: The value prefix of a suggested project's button (`project:nlp`).
PROJECT_CHOICE = "project"


async def unreadable_project(
    gate: Gate, decision: Decision, cluster_name: str, asker: str
) -> Question | Notice | None:
    """What to tell an asker about a project that is none of the ones they can read.

    Near matches among their projects: a private question with those as buttons. None: a
    private notice that no project of that name is readable by them (which says nothing of
    whether it exists). None is returned when the refusal is about something else (a
    guest, access that could not be checked) or the project is one of theirs (a kind they
    may not see): the plain denial stands then.
    """
    if decision.reason is not Reason.NO_READ_ACCESS:
        return None
    typed = decision.target.project
    readable = await gate.readable_projects(decision.target.cluster_id)
    if typed in readable:
        return None
    text = f"No project called {typed} on {cluster_name} is readable by you."
    near = near_misses(typed, readable)
    if not near:
        advice = " If it is the right name, ask your Run:ai administrator for read access."
        return Notice(text + advice, private=True)
    choices = tuple(Choice(label=name, value=f"{PROJECT_CHOICE}:{name}") for name in near)
    text += f" Did you mean {' or '.join(near)}?"
    return Question(text, choices, private=True, asker=asker)
