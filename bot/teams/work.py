"""The worker's side of Teams: runs a queued Teams activity, or tells its asker why not.

It rebuilds the responder from the item (`TeamsSpec`: the activity's facts and its
`ReplyTarget`), wraps it in the item's journal, and runs the turn (`TeamsTurns.run`). A
reclaimed item (its first worker died) finds the "Diagnosing…" activity its first attempt
posted in the journal, and replaces that one (PUT) instead of posting a second. A click on a
card the bot sent privately (to the 1:1 chat) is answered in the thread that card speaks for
(`bot.teams.private_cards`).
"""

from __future__ import annotations

import structlog
from pydantic import ValidationError

from bot.conversation import Notice
from bot.teams.connector import TeamsConnector
from bot.teams.intake import TeamsSpec
from bot.teams.private_cards import PrivateCards, continued
from bot.teams.responder import ChartUrl, ReplyTarget, TeamsResponder
from bot.teams.turns import TeamsTurns
from bot.work import Journal, JournaledResponder, JournalState, WorkItem

__all__ = ["TeamsWork"]


class TeamsWork:
    """The `Handler` for items whose platform is "teams"."""

    def __init__(
        self,
        connector: TeamsConnector,
        turns: TeamsTurns,
        *,
        runai_url: str | None,
        chart_url: ChartUrl | None = None,
        private_cards: PrivateCards | None = None,
    ) -> None:
        self._connector = connector
        self._turns = turns
        self._runai_url = runai_url
        self._chart_url = chart_url
        self._private_cards = private_cards
        self._log = structlog.get_logger(__name__)

    def _responder(self, spec: TeamsSpec) -> TeamsResponder:
        return TeamsResponder(
            self._connector,
            spec.target,
            runai_url=self._runai_url,
            chart_url=self._chart_url,
            private_cards=self._private_cards,
        )

    async def _spec(self, item: WorkItem) -> TeamsSpec:
        """The item's spec; a click on a private card speaks for that card's thread.

        Raises:
            ValidationError: the item does not hold a Teams spec.
            redis.RedisError: the card's origin could not be read (the item is tried again).
        """
        spec = TeamsSpec.model_validate(item.responder)
        inbound = spec.inbound
        if self._private_cards is None or not inbound.personal or inbound.card_id is None:
            return spec
        origin = await self._private_cards.origin_of(inbound.conversation_id, inbound.card_id)
        thread = continued(inbound, origin)
        if thread is inbound:
            return spec
        return TeamsSpec(inbound=thread, target=ReplyTarget.of(thread))

    async def run(self, item: WorkItem, journal: Journal, state: JournalState) -> bool:
        """See `Handler.run`."""
        spec = await self._spec(item)
        responder = self._responder(spec)
        shown = JournaledResponder(responder, journal, state)
        responder.on_posted = shown.posted
        # What an earlier attempt showed is in the conversation already: a failure now is
        # told as "not saved", never as "nothing processed".
        responder.public = bool(state.posts)
        return await self._turns.run(spec.inbound, responder, shown=shown)

    async def give_up(self, item: WorkItem, state: JournalState, text: str) -> None:
        """See `Handler.give_up`: the placeholder replaced by `text`, and the asker told."""
        try:
            spec = TeamsSpec.model_validate(item.responder)
        except ValidationError as error:  # nobody to tell; the item is already gone
            self._log.warning("teams_give_up_not_shown", errors=error.error_count())
            return
        try:  # where the attempts posted: the private card's thread, if it has one
            spec = await self._spec(item)
        except Exception:  # noqa: BLE001 - the asker is still told, privately, below
            self._log.warning("teams_private_card_origin_unread", exc_info=True)
        responder = self._responder(spec)
        for post in state.posts:
            if post.progress:  # never leave "Diagnosing…" standing
                try:
                    await responder.update(post.ref, Notice(text))
                except Exception:  # noqa: BLE001 - the asker is still told, below
                    self._log.warning("teams_placeholder_not_replaced", exc_info=True)
        await responder.tell(text)
