"""How the engine shows what it found, and the thread's state after it.

`Responder` is what each front end implements to show replies; `asking` and `answered`
are the thread's state while a question waits and once it is answered; `reply_with_report`
shows a finished diagnosis in place of "Diagnosing …" (or privately) and decides what the
thread expects next.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Protocol

from bot.conversation.answers import archived
from bot.conversation.messages import PICK_BELOW, PUBLISH_QUESTION, publish_choice, unchanged
from bot.conversation.model import (
    Choice,
    ConversationState,
    Incoming,
    Notice,
    Question,
    Reply,
    ReportReply,
)
from bot.conversation.parse import Expecting
from bot.conversation.which_cluster import MAX_CLUSTER_BUTTONS
from bot.render.wording import candidate_labels
from diagnosis import DiagnosisRequest, Outcome, Report

__all__ = ["Responder", "answered", "asking", "reply_with_report", "show_in_place"]


class Responder(Protocol):
    """How a front end shows replies: post a message, later replace it in place.

    A reply with `private=True` goes only to the person whose message is being answered
    (Slack: ephemeral); the engine never updates a private reply.
    """

    async def post(self, reply: Reply) -> str:
        """Show `reply` in the conversation; returns a reference for `update`."""
        ...

    async def update(self, ref: str, reply: Reply) -> None:
        """Replace the message `ref` with `reply`."""
        ...

    def thread(self) -> str | None:
        """The thread the conversation continues in, when posting created a new one.

        A slash command has no thread until its first reply is posted; that reply's id
        becomes the thread, and the engine stores the state under it so that replies in
        the thread find it. None means "the incoming message's own thread".
        """
        ...


def asking(
    state: ConversationState, question: Question, ref: str, expecting: Expecting | None
) -> ConversationState:
    """The state while `question` (posted as `ref`) waits for the asker's answer."""
    return state.model_copy(
        update={
            "expecting": expecting,
            "question": question.text,
            "choices": question.choices,
            "question_ref": ref or None,
            "question_private": question.private,
        }
    )


def answered(state: ConversationState, **changes: object) -> ConversationState:
    """The state once the thread's question is answered, with `changes`."""
    cleared = {
        "expecting": None,
        "question": None,
        "choices": (),
        "question_ref": None,
        "question_private": False,
    }
    return state.model_copy(update=cleared | changes)


async def reply_with_report(
    ref: str | None,
    incoming: Incoming,
    state: ConversationState,
    *,
    request: DiagnosisRequest,
    report: Report,
    responder: Responder,
    public_in: Callable[[str, str | None], bool],
) -> ConversationState:
    """Show a finished diagnosis: in place of "Diagnosing …", or privately; the new state.

    A question back (which workload?) keeps the thread waiting for the answer; the same
    report as last time says only that nothing changed (to someone who saw it); a private
    answer offers to post it to the thread. The thread remembers whose access the report
    was computed with (`report_for`): the person behind `incoming`, whoever the asker is.
    `public_in(channel, project)` is the channel policy.
    """
    lookback = request.lookback_label()
    project = report.workload.project if report.workload else request.project
    public = ref is not None or (
        request.workload_id is not None
        and report.workload is None
        and public_in(incoming.key.channel, project)
    )
    private = not public

    async def show(reply: Notice | Question | ReportReply) -> None:
        if ref is not None:
            await responder.update(ref, reply)
        else:
            await responder.post(replace(reply, private=private))

    if report.outcome is Outcome.NEEDS_INPUT and report.candidates:
        listed = report.candidates[:MAX_CLUSTER_BUTTONS]
        choices = tuple(
            Choice(label=label, value=f"workload:{c.id}")
            for c, label in zip(listed, candidate_labels(listed), strict=True)
        )
        text = f"{report.question or 'Which workload?'} {PICK_BELOW}"
        question = Question(text, choices, asker=state.asker)
        await show(question)
        asked = state.model_copy(update={"candidates": report.candidates})
        shown = replace(question, private=private)
        return asking(asked, shown, ref or "", Expecting.WORKLOAD)
    # "Nothing changed" only to someone who saw the answer: a private one was its reader's.
    seen = incoming.user == state.report_for or not state.answer_private
    if report == state.last_report and lookback == state.last_lookback and seen:
        label = report.category.value if report.category else report.outcome.value
        await show(Notice(unchanged(label, lookback)))
        now = datetime.now(UTC)  # computed again just now, with their access: theirs as well
        return answered(state, candidates=(), report_for=incoming.user, answered_at=now)
    await show(ReportReply(report, lookback, state.notes, cluster_name=state.slots.cluster_label))
    done = answered(
        state,
        candidates=(),
        last_report=report,
        last_lookback=lookback,
        answer_private=private,
        report_for=incoming.user,
        answer_slots=state.slots,
        answered_at=datetime.now(UTC),
        earlier=archived(state, report),
    )
    if private and report.workload is not None:
        choice = publish_choice(report, lookback)
        question = Question(PUBLISH_QUESTION, (choice,), private=True, asker=incoming.user)
        await responder.post(question)
    if report.question:  # "Did you mean a past run?": the asker's reply answers it
        pending = {"expecting": Expecting.WORKLOAD, "question": report.question}
        return done.model_copy(update=pending | {"question_private": private})
    return done


async def show_in_place(responder: Responder, ref: str | None, reply: Notice) -> None:
    """Replace the progress notice with `reply`, or, when none was posted, tell the asker."""
    if ref is None:
        await responder.post(replace(reply, private=True))
    else:
        await responder.update(ref, reply)
