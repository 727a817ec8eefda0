"""What a read message does to a thread: a new request, an answer, a follow-up, a correction."""

from __future__ import annotations

from bot.conversation.buttons import Buttons
from bot.conversation.filling import carried_over, merge
from bot.conversation.messages import PRIVATE_QUESTION, carried_note, follow_up_hint, help_text
from bot.conversation.model import ConversationState, Incoming, Notice
from bot.conversation.parse import FollowUp, Query
from bot.conversation.replying import Responder, asking
from bot.conversation.shown_again import ShownAgain
from bot.conversation.turns import Turns
from bot.conversation.understand.fragments import by_fragment
from bot.conversation.understand.pipeline import Understood
from bot.conversation.understand.pods import Asked
from bot.conversation.understand.reading import absorbed, changes, queued_slots

__all__ = ["Routes"]

#: The console's platform: one person, who cannot mention the bot in a reply.
CONSOLE = "console"


class Routes:
    """The base of `ConversationEngine`: each way a read message goes, once it is read.

    The engine's `__init__` sets the collaborators declared here (no runtime attribute).
    """

    _turns: Turns
    _again: ShownAgain
    _buttons: Buttons

    async def _request(
        self,
        incoming: Incoming,
        state: ConversationState,
        understood: Understood,
        responder: Responder,
    ) -> ConversationState | None:
        """A new question (a command, or a mention naming a workload)."""
        query = understood.query
        if query.help:
            await responder.post(Notice(help_text(incoming.key.platform), private=True))
            return None
        if query.chatter:
            return None
        await self._problems(query, responder)
        new = await self._turns.run(incoming, absorbed(state, understood), responder)
        return await self._queued(incoming, new, responder)

    async def _queued(
        self, incoming: Incoming, state: ConversationState, responder: Responder
    ) -> ConversationState:
        """The other workloads the message named, each answered in its own reply.

        Only once the first is answered (its cluster and project are then the thread's);
        one that needs a question stops there, and the rest wait in its state.
        """
        while state.queued and state.expecting is None and state.slots.cluster_id:
            name, rest = state.queued[0], state.queued[1:]
            slots = queued_slots(state.slots, name)
            update = {"slots": slots, "queued": rest, "notes": (), "candidates": ()}
            state = await self._turns.run(incoming, state.model_copy(update=update), responder)
        return state

    async def _answer(
        self,
        incoming: Incoming,
        state: ConversationState,
        understood: Understood,
        responder: Responder,
    ) -> ConversationState | None:
        """A reply while a question is pending: fill its slot, or ask it again."""
        query = understood.query
        with_answer = state.last_report is not None and state.question == state.last_report.question
        if with_answer and (
            query.chatter
            or (not query.names_something and (query.follow_up or query.lookback or query.symptom))
        ):
            return await self._follow_up(incoming, state, understood, responder)  # still answered
        if state.question_private and incoming.user != state.asker and not query.names_something:
            if not (understood.thanks or understood.talk) and (
                incoming.directed or not query.chatter
            ):  # they never saw it: neither it nor its choices are theirs
                await responder.post(Notice(PRIVATE_QUESTION, private=True))
            return None
        if query.pick is not None:
            if not 1 <= query.pick <= len(state.choices):
                await self._buttons.ask_again(state, responder)
                return None
            return await self._buttons.picked(
                incoming, state, state.choices[query.pick - 1], responder
            )
        teammate = bool(state.asker) and incoming.user != state.asker
        if query.chatter and (
            teammate or understood.talk or (understood.thanks and incoming.directed)
        ):
            return None  # "@runai-why thanks", "brb", a question to a teammate: not an answer
        if (query.is_empty and not understood.names_something) or (
            query.follow_up and not understood.names_something
        ):
            await self._buttons.ask_again(state, responder)
            return None
        if query.problems and not (query.names_something or query.lookback or query.symptom):
            await self._problems(query, responder)  # nothing else to use: the question stands
            return None
        await self._problems(query, responder)  # a teammate's mention answers for the asker
        new = await self._turns.run(incoming, absorbed(state, understood), responder)
        return await self._queued(incoming, new, responder)

    async def _follow_up(
        self,
        incoming: Incoming,
        state: ConversationState,
        understood: Understood,
        responder: Responder,
    ) -> ConversationState | None:
        """After an answer: a correction, a lookback, the evidence, a new request, or talk."""
        query = understood.query
        if query.chatter:
            return None
        if understood.correction and incoming.user in {state.asker, state.started_by}:
            return await self._corrected(incoming, state, understood, responder)
        if understood.names_something:
            console = incoming.key.platform == CONSOLE
            if not incoming.directed and not console:
                await responder.post(Notice(follow_up_hint(incoming.key.platform), private=True))
                return None
            carried = carried_over(state.slots, query)
            fresh = state.model_copy(
                update={
                    "asker": incoming.user,
                    "notes": (carried_note(carried),) if carried else (),
                    "candidates": (),
                }
            )
            return await self._request(incoming, fresh, understood, responder)
        if query.follow_up is FollowUp.EVIDENCE:
            await self._again.evidence(incoming, state, responder)
            return None
        if query.lookback or query.symptom or query.follow_up is FollowUp.RERUN:
            await self._problems(query, responder)
            again = state.model_copy(update={"slots": merge(state.slots, query)})
            return await self._again.rerun(incoming, state, again, responder)
        if query.problems:
            await self._problems(query, responder)
        else:
            await responder.post(Notice(follow_up_hint(incoming.key.platform), private=True))
        return None

    async def _corrected(
        self,
        incoming: Incoming,
        state: ConversationState,
        understood: Understood,
        responder: Responder,
    ) -> ConversationState | None:
        """A correction ("actually it's on prod-c"): the last request again, corrected."""
        fresh = absorbed(state.model_copy(update={"notes": (), "candidates": ()}), understood)
        if understood.fragment:
            gate = await self._turns.gate(incoming)
            found = await by_fragment(
                self._turns.runai, gate, fresh.slots, understood.fragment, incoming.user
            )
            if isinstance(found, Notice):
                await responder.post(found)
                return None
            if isinstance(found, Asked):
                ref = await responder.post(found.question)
                return asking(fresh, found.question, ref, found.expecting)
            fresh = fresh.model_copy(update={"slots": found})
        said = changes(state.slots, fresh.slots)
        note = f"Corrected: {', '.join(said)}." if said else "Checked again as corrected."
        fresh = fresh.model_copy(update={"notes": (note, *fresh.notes), "asker": incoming.user})
        return await self._turns.run(incoming, fresh, responder)

    @staticmethod
    async def _problems(query: Query, responder: Responder) -> None:
        if query.problems:
            text = "I could not use part of that: " + "; ".join(query.problems)
            await responder.post(Notice(text, private=True))
