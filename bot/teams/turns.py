"""One Teams activity as an engine turn: messages and card clicks, answered exactly once.

The activity was taken into the work queue once (`bot.teams.intake`: a retry, a duplicate
delivery or a double click is dropped there, atomically with taking it); a worker then
calls `TeamsTurns.run` (`bot.teams.work`): a mention (or anything in a 1:1 chat) may start a
conversation; a plain reply in a thread only continues one the bot already has; a click on a
question counts only from the person who asked (anyone else is told so privately), while the
answer's "Show all evidence" is anyone's. Any failure is logged and told to the asker
privately, as on Slack.
"""

from __future__ import annotations

from contextvars import ContextVar

import structlog

from bot.conversation import (
    RERUN,
    SHOW_EVIDENCE,
    ConversationEngine,
    Incoming,
    Markup,
    Responder,
    StoreUnavailable,
    ThreadKey,
)
from bot.conversation.messages import (
    BUSY,
    CRASHED,
    LOST_CONTEXT,
    STATE_NOT_SAVED,
    STORE_DOWN,
    only_asker,
)
from bot.conversation.store import ThreadBusy
from bot.teams.activity import Inbound
from bot.teams.responder import TeamsResponder

__all__ = ["ASKER_NAME", "REPORT_ACTIONS", "TeamsTurns", "current_inbound", "thread_key"]

#: How "only … can pick" names the asker (a Teams user ID means nothing to people).
ASKER_NAME = "the person who asked"

#: The answer card's buttons: they show everyone what the thread shows, so anyone may press.
REPORT_ACTIONS = frozenset({SHOW_EVIDENCE, RERUN})

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
        self._log = structlog.get_logger(__name__)

    async def run(
        self, inbound: Inbound, responder: TeamsResponder, *, shown: Responder | None = None
    ) -> None:
        """Answer the activity (taken once); failures go to the asker, privately.

        `shown` is what the engine answers through (the worker's journaled wrapper of
        `responder`); `responder` tells the asker about failures.
        """
        current_inbound.set(inbound)
        key = thread_key(inbound)
        try:
            incoming = await self._incoming(inbound, key, responder)
            if incoming is None:
                return
            await self._engine.handle(incoming, shown or responder)
        except StoreUnavailable as error:
            self._log.warning("teams_store_unavailable", error=str(error))
            busy = isinstance(error, ThreadBusy)
            await responder.tell(
                BUSY if busy else STATE_NOT_SAVED if responder.public else STORE_DOWN
            )
        except Exception:  # noqa: BLE001 - logged with its traceback, told to the asker
            self._log.exception("teams_turn_failed")
            if not responder.public:
                await responder.tell(CRASHED)

    async def _incoming(
        self, inbound: Inbound, key: ThreadKey, responder: TeamsResponder
    ) -> Incoming | None:
        """The engine's `Incoming`, or None when there is nothing for the engine to do."""
        if inbound.choice in REPORT_ACTIONS:  # anyone may; a retry was dropped at intake
            return Incoming(key, inbound.user_id, choice=inbound.choice)
        if inbound.choice is not None:
            asker = await self._engine.asker(key)
            if asker is None:
                await responder.tell(LOST_CONTEXT)
                return None
            if asker != inbound.user_id:
                await responder.tell(only_asker(ASKER_NAME))
                return None
            # A double click was dropped at intake (`bot.teams.intake.dedupe_key`), so a
            # reclaimed click is still answered.
            return Incoming(
                key, inbound.user_id, choice=inbound.choice, message_ref=inbound.card_id
            )
        if not inbound.directed:
            try:
                known = await self._engine.settled(key) is not None
            except ThreadBusy:
                known = True  # a turn still holds the thread: the engine answers "busy"
            if not known:
                return None  # people talking in a thread that is not the bot's
        return Incoming(
            key,
            inbound.user_id,
            text=inbound.text,
            directed=inbound.directed,
            markup=Markup.TEAMS,
        )
