"""A thread's answers, each found again by its workload, so that a button acts on its own.

A thread may show several answers (a message naming two workloads, a storm's answers, a
re-run of an earlier one), and each answer's buttons carry its target: the workload and
cluster IDs (`bot.render.actions.ActionTarget`). The state keeps the last answer as before
(`last_report` and the fields beside it) and the earlier ones in `earlier`, one per
workload, at most `MAX_EARLIER`; they expire with the thread's state. `clicked` finds the
answer a click is on and gives the thread's state with that answer as its last one, so
that what a button does, the access checks first, is the same code for every answer. The
target is only an address: it names which of the thread's answers, never what may be
shown, and a target naming none of them finds nothing.
"""

from __future__ import annotations

from bot.conversation.model import Answer, ConversationState, Slots
from bot.render.actions import VALUE_MAX, ActionTarget
from diagnosis import Report

__all__ = ["MAX_EARLIER", "archived", "clicked", "current", "pushed"]

#: The earlier answers a thread keeps (the oldest go first): a storm's thread holds one per
#: workload it posted, and every one is loaded with the thread, so they are bounded.
MAX_EARLIER = 20

Workload = tuple[str, str]
"""An answer's address: its cluster ID and workload ID."""


def _about(report: Report | None) -> Workload | None:
    """The workload a report is about; None for one about none (it has no buttons)."""
    w = report.workload if report is not None else None
    if w is None or not w.id or not w.cluster_id:
        return None
    return (w.cluster_id, w.id)


def current(state: ConversationState) -> Answer | None:
    """The thread's last answer as an `Answer`; None when it has none about a workload.

    A state saved before the answer's slots were kept gives the slots its report names
    (the same cluster, workload ID and lookback), not the thread's, which may have moved
    on to another workload since.
    """
    report = state.last_report
    about = _about(report)
    if report is None or about is None or report.workload is None:
        return None
    slots = state.answer_slots
    if slots is None:
        same = state.slots.cluster_id == about[0]
        slots = Slots(
            cluster_id=about[0],
            cluster_label=state.slots.cluster_label if same else None,
            workload_id=about[1],
            project=report.workload.project,
            lookback=state.last_lookback,
        )
    return Answer(
        report=report,
        slots=slots,
        lookback=state.last_lookback,
        report_for=state.report_for,
        private=state.answer_private,
    )


def archived(state: ConversationState, report: Report) -> tuple[Answer, ...]:
    """`state`'s earlier answers once `report` is its last: the one it replaces joins them.

    One per workload: `report` replaces any earlier answer about its workload, and the
    oldest go beyond `MAX_EARLIER`.
    """
    replaced, new = current(state), _about(report)
    kept = [a for a in state.earlier if _about(a.report) != new]
    if replaced is not None and _about(replaced.report) != new:
        kept = [a for a in kept if _about(a.report) != _about(replaced.report)]
        kept.append(replaced)
    return tuple(kept[-MAX_EARLIER:])


def _made_last(state: ConversationState, answer: Answer) -> ConversationState:
    """`state` with `answer` as its last answer (and its slots as the thread's)."""
    return state.model_copy(
        update={
            "slots": answer.slots,
            "last_report": answer.report,
            "last_lookback": answer.lookback,
            "report_for": answer.report_for,
            "answer_private": answer.private,
            "answer_slots": answer.slots,
            "earlier": archived(state, answer.report),
        }
    )


def _target(value: str) -> Workload | None:
    """The workload a button's target names; None for a value no button of ours sends."""
    if len(value) > VALUE_MAX:
        return None
    try:
        target = ActionTarget.from_value(value)
    except ValueError:
        return None
    return (target.cluster_id, target.workload_id)


def clicked(state: ConversationState, target: str | None) -> ConversationState | None:
    """The thread's state as seen by a click on the answer `target` names.

    The state itself when `target` is None (a button posted before targets: it acts on the
    last answer, as it always did) or names the last answer; with the earlier answer it
    names made the last one otherwise (saved only if the click changes the thread: a
    re-run, a post to the thread). None when it names none of the thread's answers (a
    forged value, or an answer too old to be kept).
    """
    if target is None:
        return state
    wanted = _target(target)
    if wanted is None:
        return None
    if _about(state.last_report) == wanted:
        return state
    for answer in state.earlier:
        if _about(answer.report) == wanted:
            return _made_last(state, answer)
    return None


def pushed(state: ConversationState | None, answer: Answer) -> ConversationState:
    """A thread's state once a pushed `answer` is posted in it.

    A new thread gets a state of its own; in one whose question still waits for its asker
    (a DM's conversation, say), the answer is only kept for its buttons, so the question
    and its slots stay as they were; otherwise it is the thread's last answer.
    """
    if state is None:
        return _made_last(ConversationState(), answer)
    if state.expecting is not None or state.question is not None:
        kept = [a for a in state.earlier if _about(a.report) != _about(answer.report)]
        return state.model_copy(update={"earlier": (*kept, answer)[-MAX_EARLIER:]})
    fresh = state.model_copy(update={"notes": (), "candidates": ()})
    return _made_last(fresh, answer)
