"""The worker's side of Slack: runs a queued Slack request, or tells its asker why not.

It rebuilds the responder from the item (`ResponderSpec`, plus the thread an earlier
attempt's first post created), wraps it in the item's journal, and does what the listener
used to do after taking the request: a click counts only from the asker; a plain thread
reply continues the conversation, or tells the replier the context is lost.
"""

from __future__ import annotations

from dataclasses import replace

import structlog
from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation import Incoming, Notice, StoreUnavailable, messages
from bot.conversation.store import ThreadBusy
from bot.slack.deps import SlackDeps
from bot.slack.intake import ResponderSpec
from bot.slack.listeners.actions import only_asker
from bot.slack.orphans import adopt
from bot.slack.responder import SlackResponder
from bot.slack.turns import converse, tell_store_error
from bot.work import Journal, JournaledResponder, JournalState, WorkItem

__all__ = ["KINDS", "SlackWork"]

#: What a Slack item is: a new turn, a click on a question, a plain reply in a thread.
KINDS = ("turn", "click", "reply")


class SlackWork:
    """The `Handler` for items whose platform is "slack"."""

    def __init__(self, deps: SlackDeps, client: AsyncWebClient) -> None:
        self._deps = deps
        self._client = client
        self._log = structlog.get_logger(__name__)

    def _responder(self, item: WorkItem, state: JournalState) -> SlackResponder:
        spec = ResponderSpec.model_validate(item.responder)
        responder = spec.responder(
            self._client, runai_url=self._deps.runai_url, thread=state.thread
        )
        responder.item_id = item.id
        return responder

    async def _adopted(
        self, item: WorkItem, journal: Journal | None, state: JournalState
    ) -> JournalState:
        """After a cut-short attempt: `state` with the posts it made but never recorded."""
        if not state.retried:
            return state
        spec = ResponderSpec.model_validate(item.responder)
        return await adopt(self._client, item, spec, journal, state)

    async def run(self, item: WorkItem, journal: Journal, state: JournalState) -> None:
        """See `Handler.run`."""
        state = await self._adopted(item, journal, state)
        responder = self._responder(item, state)
        shown = JournaledResponder(responder, journal, state)
        responder.on_posted = shown.posted
        incoming = item.incoming
        if item.kind == "click" and not await self._asker_clicked(incoming, responder):
            return
        if item.kind == "reply":
            if not await self._continues(incoming, responder):
                return
            incoming = replace(incoming, bot_thread=False)
        await converse(self._deps, incoming, responder, shown=shown)

    async def give_up(self, item: WorkItem, state: JournalState, text: str) -> None:
        """See `Handler.give_up`."""
        try:
            state = await self._adopted(item, None, state)
            responder = self._responder(item, state)
            for post in state.posts:
                if post.progress:  # never leave "Diagnosing …" spinning
                    await responder.update(post.ref, Notice(text))
            await responder.tell(text)
        except Exception:  # noqa: BLE001 - the item is already gone; say so in the logs
            self._log.warning("slack_give_up_not_shown", exc_info=True)

    async def _asker_clicked(self, incoming: Incoming, responder: SlackResponder) -> bool:
        """Only the person who asked can pick; anyone else is told so, privately."""
        try:
            asker = await self._deps.engine.asker(incoming.key)
        except StoreUnavailable as error:
            await tell_store_error(responder, error)
            return False
        if asker is None:
            await responder.tell(messages.LOST_CONTEXT)
            return False
        if asker != incoming.user:
            await responder.tell(only_asker(asker), ours=True)
            return False
        return True

    async def _continues(self, incoming: Incoming, responder: SlackResponder) -> bool:
        """A plain reply continues a known conversation; in a lost one the replier is told."""
        deps, key = self._deps, incoming.key
        try:
            known = await deps.store.load(key) is not None
            if not known and incoming.bot_thread:
                try:  # a turn still running there may not have saved the thread yet
                    known = await deps.engine.settled(key) is not None
                except ThreadBusy:
                    known = True  # a turn still holds the thread: the engine answers "busy"
            if known:
                return True
            if incoming.bot_thread:
                claim = f"lost:{key.redis_key('conv')}:{incoming.user}"
                if await deps.store.claim(claim, deps.dedupe_ttl_s):
                    self._log.info("slack_thread_context_lost", thread=key.thread)
                    await responder.tell(messages.LOST_CONTEXT)
        except StoreUnavailable as error:
            await tell_store_error(responder, error)
        return False
