"""Buttons and picks: a report's actions, and an answer to the thread's pending question.

A report's buttons ("Show all evidence", "Check again", "Post it to the thread") are
anyone's, and each acts on the answer it is on (`bot.conversation.answers`); a choice
answering the question (a cluster, a workload) is the asker's alone. A pick replaces the
question's buttons with who picked what, then the turn continues.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.conversation.answers import clicked
from bot.conversation.filling import apply_choice, pending_choice
from bot.conversation.messages import ALREADY_ANSWERED, NOT_IN_THREAD, not_understood, only_asker
from bot.conversation.model import (
    PUBLISH,
    RERUN,
    SHOW_EVIDENCE,
    Choice,
    ConversationState,
    Incoming,
    Notice,
    Question,
    report_action,
)
from bot.conversation.replying import Responder
from bot.conversation.shown_again import ShownAgain
from bot.conversation.turns import Turns

__all__ = ["Buttons"]


class Buttons:
    """What a click or a numbered pick does in a thread."""

    def __init__(self, turns: Turns, again: ShownAgain, mention: Callable[[str], str]) -> None:
        self._turns = turns
        self._again = again
        self._mention = mention

    async def click(
        self, incoming: Incoming, state: ConversationState, responder: Responder
    ) -> ConversationState | None:
        """A button: a report action (anyone) or an answer to the question (the asker).

        A report action acts on the answer its button is on; a target naming none of the
        thread's answers is told so privately, and nothing is shown or run.
        """
        value = incoming.choice or ""
        action, target = report_action(value)
        if action in {SHOW_EVIDENCE, PUBLISH, RERUN}:
            shown = clicked(state, target)
            if shown is None:
                await responder.post(Notice(NOT_IN_THREAD, private=True))
                return None
            if action == SHOW_EVIDENCE:
                await self._again.evidence(incoming, shown, responder)
                return None
            if action == PUBLISH:
                return await self._again.publish(incoming, shown, responder)
            return await self._again.rerun(incoming, shown, shown, responder)
        choice = pending_choice(state, value)
        if choice is None:
            await responder.post(Notice(ALREADY_ANSWERED, private=True))
            return None
        if state.asker and incoming.user != state.asker:
            await responder.post(Notice(only_asker(self._mention(state.asker)), private=True))
            return None
        return await self.picked(incoming, state, choice, responder)

    async def picked(
        self, incoming: Incoming, state: ConversationState, choice: Choice, responder: Responder
    ) -> ConversationState:
        """Replace the question's buttons with the choice, then continue with it."""
        ref = incoming.message_ref or state.question_ref
        if ref:  # the question again, without buttons, saying who picked what
            picked = Question(state.question or "", asker=incoming.user, picked=choice)
            await responder.update(ref, picked)
        slots = apply_choice(state, choice.value)
        cleared = state.model_copy(
            update={"slots": slots, "choices": (), "question": None, "question_ref": None}
        )
        return await self._turns.run(incoming, cleared, responder)

    async def ask_again(self, state: ConversationState, responder: Responder) -> None:
        """The pending question again, with its buttons, privately; nothing is remembered."""
        text = not_understood(state.question or "What did you mean?", choices=len(state.choices))
        await responder.post(Question(text, state.choices, private=True, asker=state.asker))
