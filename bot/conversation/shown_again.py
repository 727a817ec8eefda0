"""A thread's answer shown again: all its evidence, diagnosed again, or posted to the thread.

The answer is the thread's last (`state.last_report`), or, for a button, the one the button
is on, made the state's last first (`bot.conversation.answers.clicked`), so every check
below is the same for both.
Anyone in the thread may ask for the evidence or a re-run (another lookback or symptom is a
re-run too), and its reader may post a privately shown answer to the thread; each is shown
only to someone who may see that answer today. `ShownAgain.refusal` checks the same full target
the answer was diagnosed with (cluster, project and kind), and a refusal names nothing of
the answer. A refused re-run leaves the thread's answer as it was. The answer was computed
with one person's access (`ConversationState.report_for`), who is not always the thread's
asker (a teammate's mention makes them the asker even when it is denied), and access
changes: whoever it is shown to again, the person it was computed for included, gets what
they may read today (`diagnosis.for_viewer`, with their current access; the authorizer
caches; its asker gets it whole while nothing it names is refused), and only the person it
was computed for may post it to the thread, cut to theirs.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.conversation.access import Gate
from bot.conversation.messages import ALREADY_ANSWERED, NOTHING_TO_SHOW, only_asker
from bot.conversation.model import ConversationState, EvidenceReply, Incoming, Notice, ReportReply
from bot.conversation.replying import Responder
from bot.conversation.turns import Turns
from diagnosis import DepartmentAccess, Report, WorkloadAccess, for_viewer

__all__ = ["ShownAgain"]


class ShownAgain:
    """The actions on a thread's answer, for the engine (`mention` names the asker)."""

    def __init__(self, turns: Turns, mention: Callable[[str], str]) -> None:
        self._turns = turns
        self._mention = mention

    @staticmethod
    async def refusal(gate: Gate, state: ConversationState) -> Notice | None:
        """The private denial when the thread's earlier answer may not be shown to this asker.

        Asked before the answer is shown again in any form (all its evidence, re-run, a new
        lookback, posted to the thread), with the full target it was diagnosed with: its
        cluster, project and kind. An answer about no workload was about the project asked
        for by name, if any. The denial names nothing of the answer.
        """
        report, slots = state.last_report, state.slots
        if report is None:
            return None
        if report.workload is not None:
            workload = report.workload
            same = slots.cluster_id in {None, workload.cluster_id}
            label = (slots.cluster_label if same else None) or workload.cluster_id
            decision = await gate.may_see(workload, label)
        elif slots.cluster_id and slots.project and slots.workload_id is None:
            label = slots.cluster_label or slots.cluster_id
            decision = await gate.may_list(slots.cluster_id, label, slots.project)
        else:
            return None  # by ID, and nothing was found: it showed only the ID asked for
        if decision.allowed:
            return None
        return await gate.deny(decision, thread=True)

    async def _allowed(
        self, incoming: Incoming, state: ConversationState, responder: Responder
    ) -> Gate | None:
        """The turn's checks if the answer may be shown to this person.

        None: refused, and they were told so, privately.
        """
        gate = await self._turns.gate(incoming)
        refusal = await self.refusal(gate, state)
        if refusal is None:
            return gate
        await responder.post(refusal)
        return None

    @staticmethod
    async def _cut(
        gate: Gate, incoming: Incoming, state: ConversationState, report: Report
    ) -> Report:
        """`report` as this turn's person may read it today, whoever it was computed for.

        What it names beyond the workload (a department's figures, a preemptor, the run
        compared with) was checked with its asker's access when it was computed, perhaps
        long ago: it is checked again with this person's now (`for_viewer`). The person it
        was computed for gets it as it was while every check still passes; once one fails,
        the cut, as anyone else would.
        """
        if report.workload is None:
            return report
        label = state.slots.cluster_label or report.workload.cluster_id
        authorize = gate.authorize(report.workload.cluster_id, label)
        refused = False

        async def checked(access: WorkloadAccess | DepartmentAccess) -> bool:
            nonlocal refused
            allowed = await authorize(access)
            refused = refused or not allowed
            return allowed

        cut = await for_viewer(report, checked)
        return report if incoming.user == state.report_for and not refused else cut

    async def evidence(
        self, incoming: Incoming, state: ConversationState, responder: Responder
    ) -> None:
        """All the evidence of the thread's answer (privately if the answer was)."""
        if state.last_report is None:
            await responder.post(Notice(NOTHING_TO_SHOW, private=True))
            return
        gate = await self._allowed(incoming, state, responder)
        if gate is None:
            return
        report = await self._cut(gate, incoming, state, state.last_report)
        lookback = state.last_lookback or "24h"
        private = state.answer_private
        await responder.post(EvidenceReply(report, lookback, private=private))

    async def rerun(
        self,
        incoming: Incoming,
        state: ConversationState,
        again: ConversationState,
        responder: Responder,
    ) -> ConversationState | None:
        """The answer diagnosed again with `again`'s slots; None: refused, nothing changed."""
        gate = await self._allowed(incoming, state, responder)
        if gate is None:
            return None
        return await self._turns.run(incoming, again, responder, gate=gate)

    async def publish(
        self, incoming: Incoming, state: ConversationState, responder: Responder
    ) -> ConversationState | None:
        """The person a private answer (channel policy) was for posts it to the thread.

        Only they saw it, and it was computed with their access: not whoever asks in the
        thread since. Their access is checked again first, and what is posted is cut to it:
        it may have changed since. The thread then keeps what it shows.
        """
        if state.last_report is None or not state.answer_private:
            await responder.post(Notice(ALREADY_ANSWERED, private=True))
            return None
        if incoming.user != state.report_for:
            owner = self._mention(state.report_for or state.asker)
            await responder.post(Notice(only_asker(owner), private=True))
            return None
        gate = await self._allowed(incoming, state, responder)
        if gate is None:
            return None
        report = await self._cut(gate, incoming, state, state.last_report)
        lookback = state.last_lookback or "24h"
        reply = ReportReply(report, lookback, state.notes, cluster_name=state.slots.cluster_label)
        await responder.post(reply)  # its buttons carry the digest of the report kept below
        return state.model_copy(update={"answer_private": False, "last_report": report})
