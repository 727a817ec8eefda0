"""The worker's side of Slack: runs a queued Slack request, or tells its asker why not.

It rebuilds the responder from the item (`ResponderSpec`, plus the thread an earlier
attempt's first post created), wraps it in the item's journal, asks the engine whether it
takes the request (`bot.conversation.edges.admit`: a click counts only from the asker, a
plain thread reply only continues a known conversation) and runs the turn, or tells the
asker privately what the engine ruled instead.
"""

from __future__ import annotations

import structlog
from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation import Notice
from bot.conversation.edges import admit, converse
from bot.slack.deps import SlackDeps
from bot.slack.intake import ResponderSpec
from bot.slack.listeners.actions import mention
from bot.slack.orphans import adopt
from bot.slack.responder import SlackResponder
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
        """The item's responder, knowing what earlier attempts spent of its `response_url`.

        A public post they made there instead (the bot is not in the channel) is journaled
        with no ref, and carried the note on inviting the bot.
        """
        spec = ResponderSpec.model_validate(item.responder)
        responder = spec.responder(
            self._client,
            runai_url=self._deps.runai_url,
            thread=state.thread,
            queued=True,
            spent=state.spent,
            invite_shown=any(not post.ref for post in state.posts),
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

    async def run(self, item: WorkItem, journal: Journal, state: JournalState) -> bool:
        """See `Handler.run`."""
        state = await self._adopted(item, journal, state)
        responder = self._responder(item, state)
        # What an earlier attempt showed is in the channel already: a failure now is told as
        # "not saved", never as "nothing processed" (and the request is not taken again).
        responder.public = bool(state.posts)
        shown = JournaledResponder(responder, journal, state)
        responder.on_posted = shown.posted
        responder.on_spent = shown.spent
        engine = self._deps.engine
        ruling = await admit(
            engine,
            item.incoming,
            mention=mention,
            shown=responder.public,
            told_once_s=self._deps.dedupe_ttl_s,
        )
        if ruling.incoming is None:
            if ruling.notice is not None:
                await responder.tell(ruling.notice, ours=ruling.mentions)
            return ruling.done
        return await converse(engine, ruling.incoming, responder, shown=shown)

    async def give_up(self, item: WorkItem, state: JournalState, text: str) -> None:
        """See `Handler.give_up`."""
        try:
            state = await self._adopted(item, None, state)
            responder = self._responder(item, state)
            for post in state.posts:
                # Never leave "Diagnosing …" spinning; one sent through the response_url
                # (no ref) cannot be replaced, and the asker is told below.
                if post.progress and post.ref:
                    await responder.update(post.ref, Notice(text))
            await responder.tell(text)
        except Exception:  # noqa: BLE001 - the item is already gone; say so in the logs
            self._log.warning("slack_give_up_not_shown", exc_info=True)
