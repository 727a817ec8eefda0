"""Which threads the bot took part in, asked of Slack when the state store has lost them."""

from __future__ import annotations

import time
from collections import OrderedDict

import structlog
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

__all__ = ["ThreadOwnership"]

_OWNERSHIP_TTL_S = 600.0
_OWNERSHIP_MAX = 4096
_REPLIES_LIMIT = 200


class ThreadOwnership:
    """Whether the bot took part in a thread, asked of Slack when the state store has lost it.

    Only consulted when a plain thread reply finds no stored conversation; answers are cached
    in the process for a few minutes, so a busy channel's threads cost one lookup each.
    """

    def __init__(self, *, ttl_s: float = _OWNERSHIP_TTL_S, size: int = _OWNERSHIP_MAX) -> None:
        self._ttl_s = ttl_s
        self._size = size
        self._cache: OrderedDict[tuple[str, str], tuple[float, bool]] = OrderedDict()

    async def bot_took_part(
        self, client: AsyncWebClient, *, channel: str, thread: str, bot_user_id: str | None
    ) -> bool:
        """True when one of the thread's messages is the bot's (`conversations.replies`)."""
        if not bot_user_id:
            return False
        now = time.monotonic()
        cached = self._cache.get((channel, thread))
        if cached is not None and cached[0] > now:
            return cached[1]
        try:
            response = await client.conversations_replies(
                channel=channel, ts=thread, limit=_REPLIES_LIMIT
            )
            messages = response.get("messages") or []
        except SlackApiError as error:
            structlog.get_logger(__name__).info(
                "slack_thread_lookup_failed", error=error.response.get("error")
            )
            return False
        took_part = any(isinstance(m, dict) and m.get("user") == bot_user_id for m in messages)
        self._cache[channel, thread] = (now + self._ttl_s, took_part)
        self._cache.move_to_end((channel, thread))
        while len(self._cache) > self._size:
            self._cache.popitem(last=False)
        return took_part
