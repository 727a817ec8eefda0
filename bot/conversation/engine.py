"""The conversation engine: turns one incoming message plus the thread's state into replies.

It knows nothing about Slack (or Teams, or the console): a front end hands it an `Incoming`
and a `Responder` that can post a reply and later update that same message in place. The
engine decides who it listens to (the asker's plain replies, anyone's mentions), what a
reply means for the thread (an answer, a follow-up, chatter), asks for whatever is missing,
never guesses, and runs the diagnosis.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AsyncExitStack
from dataclasses import replace
from datetime import UTC, datetime

import structlog

from bot.config import EMBEDDED_MAX_CONCURRENT_DIAGNOSES
from bot.conversation.access import Access
from bot.conversation.buttons import Buttons
from bot.conversation.locking import LockingResponder
from bot.conversation.messages import (
    LOST_CONTEXT,
    STATE_NOT_SAVED,
    help_text,
    not_read,
)
from bot.conversation.model import (
    ConversationState,
    Incoming,
    Notice,
    ThreadKey,
)
from bot.conversation.parse import Query
from bot.conversation.replying import Responder
from bot.conversation.routes import Routes
from bot.conversation.shown_again import ShownAgain
from bot.conversation.store import StateStore, StoreUnavailable
from bot.conversation.turns import Turns
from bot.conversation.understand.reading import Reader
from bot.durable.flight import Flights
from bot.ops.audit import AuditSink, LogAuditSink
from diagnosis import DEFAULT_DEADLINE_S, KubeConnector, RunaiReader

__all__ = ["ConversationEngine", "Responder"]


class ConversationEngine(Routes):
    """Slot filling, follow-ups and diagnosis for one platform-neutral conversation.

    `mention` turns a user id into how the platform names a person in a message (default:
    the id itself); it is used in "only <asker> can pick". `access` says who is asking and
    what they may see (`bot.conversation.access`); it is required, so no front end can
    forget it. `flights` shares diagnoses (and the cluster list) between concurrent askers,
    across replicas with Redis (`bot.durable.flight`); without it every request diagnoses afresh.
    """

    def __init__(
        self,
        *,
        runai: RunaiReader,
        store: StateStore,
        access: Access,
        kube: KubeConnector | None = None,
        channel_defaults: Mapping[str, str] | None = None,
        clock: Callable[[], datetime | None] = lambda: None,
        bot_user_id: str | None = None,
        max_concurrent: int = EMBEDDED_MAX_CONCURRENT_DIAGNOSES,
        deadline_s: float = DEFAULT_DEADLINE_S,
        audit: AuditSink | None = None,
        mention: Callable[[str], str] = str,
        flights: Flights | None = None,
    ) -> None:
        self._store = store
        self._bot_user_id = bot_user_id
        self._mention = mention
        self._log = structlog.get_logger(__name__)
        self._turns = Turns(
            runai=runai,
            kube=kube,
            channel_defaults=channel_defaults or {},
            clock=clock,
            max_concurrent=max_concurrent,
            deadline_s=deadline_s,
            audit=audit or LogAuditSink(),
            access=access,
            flights=flights,
        )
        self._again = ShownAgain(self._turns, mention)
        self._buttons = Buttons(self._turns, self._again, mention)
        self._reader = Reader(self._turns.directory, clock=clock, bot_user_id=bot_user_id)

    async def aclose(self) -> None:
        """Stop the reads started ahead (`bot.conversation.ahead`), before their clients close."""
        await self._turns.reading.aclose()

    @property
    def store(self) -> StateStore:
        """Where the engine keeps its threads (and its once-only claims)."""
        return self._store

    async def settled(self, key: ThreadKey) -> ConversationState | None:
        """The thread's state, waiting for a turn still running there to save it first.

        A question goes out before its turn saves the thread, so a quick reply or click can
        arrive in between: when the state is not there yet, this waits for the thread's lock
        (held by that turn until it has saved) and looks again. None: the thread is not known.

        Raises:
            StoreUnavailable: the store failed (`ThreadBusy`: a turn still holds the thread).
        """
        state = await self._store.load(key)
        if state is not None:
            return state
        async with self._store.lock(key):
            return await self._store.load(key)

    async def _root_saved(self, key: ThreadKey) -> ConversationState | None:
        """A click in a thread without state: its root may be being posted right now.

        A pushed answer is in the channel (its buttons too) before its poster knows the
        thread it started; the poster saves that thread's state before it lets go of the
        channel's `new_root` lock, so this waits for that lock and looks again.
        """
        async with self._store.lock(key.new_root()):
            return await self._store.load(key)

    async def asker(self, key: ThreadKey) -> str | None:
        """Who asked the question the bot is working on in this thread (None: no thread)."""
        state = await self.settled(key)
        return (state.asker or state.started_by or None) if state else None

    async def is_asker(self, key: ThreadKey, user: str) -> bool:
        """Whether `user` may answer this thread's question with a plain reply or a click.

        True when the thread has no asker (nothing to protect).
        """
        asker = await self.asker(key)
        return asker is None or asker == user

    async def handle(self, incoming: Incoming, responder: Responder) -> None:
        """Answer one incoming message or click, holding the thread's lock throughout.

        Raises `StoreUnavailable` only before anything was shown (the state could not be
        locked or loaded); a failure to save after replying is logged, never raised.
        """
        async with AsyncExitStack() as locks:
            await locks.enter_async_context(self._store.lock(incoming.key))
            state = await self._store.load(incoming.key)
            if state is None and incoming.choice is not None:
                state = await self._root_saved(incoming.key)
            if state is not None and not state.asker:
                state = state.model_copy(update={"asker": state.started_by})
            locking = LockingResponder(responder, incoming.key, self._store, locks)
            new = await self._dispatch(incoming, state, locking)
            if new is None:
                return
            now, thread = datetime.now(UTC), responder.thread()
            key = (
                incoming.key
                if thread in {None, incoming.key.thread}
                else replace(incoming.key, thread=thread)
            )
            try:
                await self._store.save(key, new.model_copy(update={"updated_at": now}))
            except StoreUnavailable as error:
                # The answer is already out: never "I did not process this". The asker is
                # told, privately, that this thread may not be remembered.
                self._log.warning("conversation_state_not_saved", error=str(error))
                await responder.post(Notice(STATE_NOT_SAVED, private=True))

    async def _dispatch(
        self, incoming: Incoming, state: ConversationState | None, responder: Responder
    ) -> ConversationState | None:
        """Route one message; None means "nothing changed, save nothing"."""
        if incoming.choice is not None:
            if state is None:
                await responder.post(Notice(LOST_CONTEXT, private=True))
                return None
            return await self._buttons.click(incoming, state, responder)
        if state and not incoming.directed and state.asker and state.asker != incoming.user:
            return None  # people talking in the thread; anyone can answer with a mention
        if state is None and not incoming.directed:  # nothing to continue: read, look up nothing
            if incoming.bot_thread and not self._reader.plainly(incoming).query.chatter:
                await responder.post(Notice(LOST_CONTEXT, private=True))
            return None
        understood = await self._reader.read(incoming, state, lambda: self._turns.gate(incoming))
        query = understood.query
        if state is None:
            await self._not_read(incoming, query, responder)
            state = ConversationState(started_by=incoming.user, asker=incoming.user)
            return await self._request(incoming, state, understood, responder)
        await self._not_read(incoming, query, responder)
        if query.help:
            await responder.post(Notice(help_text(incoming.key.platform), private=True))
            return None
        if state.expecting is not None:
            return await self._answer(incoming, state, understood, responder)
        return await self._follow_up(incoming, state, understood, responder)

    @staticmethod
    async def _not_read(incoming: Incoming, query: Query, responder: Responder) -> None:
        """Tell the asker privately that the end of a long message was not read.

        Not after a plain reply that reads as chatter, which gets no answer at all.
        """
        if query.ignored_chars and (incoming.directed or not query.chatter):
            await responder.post(Notice(not_read(query.ignored_chars), private=True))
