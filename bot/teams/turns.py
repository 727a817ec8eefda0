"""One Teams activity as an engine turn: messages and card clicks, answered exactly once.

The activity was taken into the work queue once (`bot.teams.intake`: a retry, a duplicate
delivery or a double click is dropped there, atomically with taking it); a worker then
calls `TeamsTurns.run` (`bot.teams.work`), which translates the activity into the engine's
`Incoming` and asks the engine whether it takes it (`bot.conversation.edges.admit`: a click
on a question counts only from the person who asked, a plain reply in a thread only continues
a conversation the bot already has), then runs the turn (`converse`: any failure is logged
and told to the asker privately, as on Slack).
"""

from __future__ import annotations

from contextvars import ContextVar

from bot.config import DEDUPE_TTL_S
from bot.conversation import ConversationEngine, Incoming, Markup, Responder, ThreadKey
from bot.conversation.edges import admit, anyones, converse
from bot.teams.activity import Inbound
from bot.teams.responder import TeamsResponder

__all__ = ["ASKER_NAME", "TeamsTurns", "current_inbound", "thread_key"]

#: How "only … can pick" names the asker (a Teams user ID means nothing to people).
ASKER_NAME = "the person who asked"

current_inbound: ContextVar[Inbound | None] = ContextVar("teams_inbound", default=None)
"""The activity the running turn answers, for `TeamsIdentify` (one task per turn)."""


def thread_key(inbound: Inbound) -> ThreadKey:
    """The conversation key: tenant, channel (or chat) and thread root."""
    return ThreadKey("teams", inbound.tenant_id, inbound.channel, inbound.thread)


def inbound_of(incoming: Incoming) -> Inbound | None:
    """The running turn's activity, when it is the one `incoming` came from."""
    inbound = current_inbound.get()
    return inbound if inbound is not None and inbound.user_id == incoming.user else None


class TeamsTurns:
    """Runs the turns of Teams activities taken from the work queue."""

    def __init__(self, engine: ConversationEngine) -> None:
        self._engine = engine

    async def run(
        self, inbound: Inbound, responder: TeamsResponder, *, shown: Responder | None = None
    ) -> bool:
        """Answer the activity (taken once); failures go to the asker, privately.

        `shown` is what the engine answers through (the worker's journaled wrapper of
        `responder`); `responder` tells the asker about failures. False: nothing was done,
        and the asker was told to ask again.
        """
        current_inbound.set(inbound)
        ruling = await admit(
            self._engine,
            incoming_of(inbound),
            mention=lambda _: ASKER_NAME,
            shown=responder.public,
            told_once_s=DEDUPE_TTL_S,
        )
        if ruling.incoming is None:
            if ruling.notice is not None:
                await responder.tell(ruling.notice)
            return ruling.done
        return await converse(self._engine, ruling.incoming, responder, shown=shown)


def incoming_of(inbound: Inbound) -> Incoming:
    """What the activity asks of the engine: a report action, a pick, or a message.

    A retry, a duplicate delivery and a double click were dropped at intake
    (`bot.teams.intake.dedupe_key`), so a reclaimed click is still answered.
    """
    key = thread_key(inbound)
    if anyones(inbound.choice):
        return Incoming(key, inbound.user_id, choice=inbound.choice)
    if inbound.choice is not None:
        return Incoming(key, inbound.user_id, choice=inbound.choice, message_ref=inbound.card_id)
    return Incoming(
        key,
        inbound.user_id,
        text=inbound.text,
        directed=inbound.directed,
        markup=Markup.TEAMS,
    )
