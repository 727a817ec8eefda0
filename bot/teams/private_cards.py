"""Where a private card came from, so that a click on it in the 1:1 chat continues its thread.

Teams has no ephemeral messages: what only the asker may see ("post it to the thread?", a
denial, a hint) goes to their 1:1 chat with the bot. A click on such a card arrives from
that chat, which names neither the channel nor the thread the question was about. The
responder records, for each card it sends there, the thread it speaks for (`remember`);
the worker looks the click's card up (`origin_of`) and answers in that thread
(`continued`). The record is keyed by the 1:1 chat and the card's activity ID, which only
the bot writes, and it holds the person it was shown to: a click from anyone else, or on a
card the bot did not send, is not continued (the engine then says the context was lost).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import replace
from typing import Protocol

import redis.asyncio as redis
from pydantic import BaseModel, ConfigDict, ValidationError

from bot.teams.activity import Inbound

__all__ = [
    "MemoryPrivateCards",
    "Origin",
    "PrivateCards",
    "RedisPrivateCards",
    "continued",
]

_PREFIX = "runai-why:teams:private-card:"
#: Without Redis: at most this many cards are remembered (the oldest go first).
MEMORY_MAX_CARDS = 10_000


class Origin(BaseModel):
    """The channel thread a private card speaks for, and the person it was shown to."""

    model_config = ConfigDict(frozen=True)

    service_url: str
    conversation_id: str
    """The thread's conversation (`<channel>;messageid=<root>`)."""
    channel: str
    thread: str
    conversation_type: str
    user_id: str


class PrivateCards(Protocol):
    """Remembers the origin of the cards sent privately, for as long as threads are kept."""

    async def remember(self, chat: str, card_id: str, origin: Origin) -> None:
        """Record that `card_id`, sent in the 1:1 chat `chat`, speaks for `origin`."""

    async def origin_of(self, chat: str, card_id: str) -> Origin | None:
        """The origin recorded for `card_id` in `chat`; None when unknown or expired."""


class RedisPrivateCards:
    """Origins in Redis, each for `ttl_s` (`STATE_TTL_S`: the thread's own lifetime)."""

    def __init__(self, client: redis.Redis, *, ttl_s: int) -> None:
        self._redis = client
        self._ttl_s = ttl_s

    async def remember(self, chat: str, card_id: str, origin: Origin) -> None:
        """See `PrivateCards.remember`."""
        await self._redis.set(_key(chat, card_id), origin.model_dump_json(), ex=self._ttl_s)

    async def origin_of(self, chat: str, card_id: str) -> Origin | None:
        """See `PrivateCards.origin_of`; a record that does not parse is no record."""
        raw = await self._redis.get(_key(chat, card_id))
        if raw is None:
            return None
        try:
            return Origin.model_validate_json(raw)
        except ValidationError:
            return None


class MemoryPrivateCards:
    """One process's origins (without REDIS_URL), capped; the oldest go first."""

    def __init__(
        self,
        *,
        ttl_s: int,
        max_cards: int = MEMORY_MAX_CARDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._ttl_s = ttl_s
        self._max_cards = max_cards
        self._clock = clock
        self._cards: OrderedDict[tuple[str, str], tuple[float, Origin]] = OrderedDict()

    async def remember(self, chat: str, card_id: str, origin: Origin) -> None:
        """See `PrivateCards.remember`."""
        self._cards.pop((chat, card_id), None)
        self._cards[chat, card_id] = (self._clock() + self._ttl_s, origin)
        while len(self._cards) > self._max_cards:
            self._cards.popitem(last=False)

    async def origin_of(self, chat: str, card_id: str) -> Origin | None:
        """See `PrivateCards.origin_of`."""
        kept = self._cards.get((chat, card_id))
        if kept is None or kept[0] <= self._clock():
            return None
        return kept[1]


def continued(inbound: Inbound, origin: Origin | None) -> Inbound:
    """`inbound` as a click in the thread `origin` speaks for, when it is that person's.

    Anything else (not a click on a card in a 1:1 chat, no origin, another person's card)
    is returned as it came.
    """
    if origin is None or not inbound.personal or inbound.card_id is None:
        return inbound
    if origin.user_id != inbound.user_id:
        return inbound
    return replace(
        inbound,
        service_url=origin.service_url,
        conversation_id=origin.conversation_id,
        channel=origin.channel,
        thread=origin.thread,
        conversation_type=origin.conversation_type,
        card_id=None,  # the card is in the 1:1 chat, not in the thread: nothing to update there
    )


def _key(chat: str, card_id: str) -> str:
    return f"{_PREFIX}{chat}:{card_id}"
