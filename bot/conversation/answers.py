"""A thread's answers, each found again by its buttons' target, so that a button acts on its own.

A thread may show several answers (a message naming two workloads, a storm's answers, a
re-run of an earlier one), and each answer's buttons carry its target: the workload and
cluster IDs and the answer's digest (`bot.render.actions.ActionTarget`, `answer_id`). The
state keeps the last answer as before (`last_report` and the fields beside it) and the
earlier ones in `earlier`, one per workload (two while a pushed one waits beside the last,
see `pushed`), at most `MAX_EARLIER`; each is kept for the thread state's TTL from when it
was answered (`fresh`), however often the thread is used since. `clicked` finds the answer
a click is on and gives the thread's state with that answer as its last one, so that what a
button does, the access checks first, is the same code for every answer. The target is
only an address: it names which of the thread's answers, never what may be shown, and a
target naming none of them finds nothing.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.conversation.model import Answer, ConversationState, Slots
from bot.render.actions import VALUE_MAX, ActionTarget, answer_id
from diagnosis import Report

__all__ = ["MAX_EARLIER", "archived", "clicked", "current", "fresh", "pushed"]

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
        answered_at=state.answered_at,
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
            "answered_at": answer.answered_at,
            "earlier": archived(state, answer.report),
        }
    )


def _target(value: str) -> ActionTarget | None:
    """The target a button's value names; None for a value no button of ours sends."""
    if len(value) > VALUE_MAX:
        return None
    try:
        return ActionTarget.from_value(value)
    except ValueError:
        return None


def clicked(state: ConversationState, target: str | None) -> ConversationState | None:
    """The thread's state as seen by a click on the answer `target` names.

    The state itself when `target` is None (a button posted before targets: it acts on the
    last answer, as it always did) or names the last answer; with the earlier answer it
    names made the last one otherwise (saved only if the click changes the thread: a
    re-run, a post to the thread). The answer is the one whose digest the target carries;
    a target without one (a button posted before digests), or whose answer was since
    replaced by a newer one about its workload (a re-run), names the newest about its
    workload. None when it names none of the thread's answers (a forged value, or an answer
    too old to be kept).
    """
    if target is None:
        return state
    wanted = _target(target)
    if wanted is None:
        return None
    workload = (wanted.cluster_id, wanted.workload_id)
    last = state.last_report
    newest_first = tuple(reversed(state.earlier))
    if wanted.answer is not None:
        if last is not None and _about(last) == workload and answer_id(last) == wanted.answer:
            return state
        for answer in newest_first:
            if _about(answer.report) == workload and answer_id(answer.report) == wanted.answer:
                return _made_last(state, answer)
    if _about(last) == workload:
        return state
    for answer in newest_first:
        if _about(answer.report) == workload:
            return _made_last(state, answer)
    return None


def pushed(state: ConversationState | None, answer: Answer) -> ConversationState:
    """A thread's state once a pushed `answer` is posted in it (answered now, unless said).

    A new thread gets a state of its own; in one whose question still waits for its asker
    (a DM's conversation, say), the answer is only kept for its buttons, so the question
    and its slots stay as they were (beside the last answer, even one about its workload:
    the buttons' digest tells them apart); otherwise it is the thread's last answer.
    """
    if answer.answered_at is None:
        answer = answer.model_copy(update={"answered_at": datetime.now(UTC)})
    if state is None:
        return _made_last(ConversationState(), answer)
    if state.expecting is not None or state.question is not None:
        kept = [a for a in state.earlier if _about(a.report) != _about(answer.report)]
        return state.model_copy(update={"earlier": (*kept, answer)[-MAX_EARLIER:]})
    fresh_state = state.model_copy(update={"notes": (), "candidates": ()})
    return _made_last(fresh_state, answer)


def _expired(answered_at: datetime | None, oldest: datetime) -> bool:
    """Whether an answer answered at `answered_at` is past keeping.

    One kept before its time was (None) is kept: what it shows is cut to each reader's
    current access anyway (`bot.conversation.shown_again`).
    """
    return answered_at is not None and answered_at < oldest


def fresh(state: ConversationState, ttl_s: int, now: datetime | None = None) -> ConversationState:
    """`state` without the answers answered more than `ttl_s` ago.

    The state's own TTL is refreshed by every turn (a DM's top level, a Teams chat live
    for months), so its answers are dropped by their own age: the same lifetime.
    """
    oldest = (now or datetime.now(UTC)) - timedelta(seconds=ttl_s)
    earlier = tuple(a for a in state.earlier if not _expired(a.answered_at, oldest))
    changes: dict[str, object] = {}
    if len(earlier) < len(state.earlier):
        changes["earlier"] = earlier
    if state.last_report is not None and _expired(state.answered_at, oldest):
        changes |= {
            "last_report": None,
            "last_lookback": None,
            "report_for": "",
            "answer_private": False,
            "answer_slots": None,
            "answered_at": None,
        }
    return state.model_copy(update=changes) if changes else state
