"""Where pushed answers appear: one `Poster` per platform, each making that platform's responder.

The responder is the same one an asked answer goes through (Slack's `bot.slack.poster`,
Teams' `bot.teams.push`, the console's `ConsolePoster`), so a pushed report looks like an
asked one, buttons included. A poster makes one per message thread: a new root
(`thread=None`) or a reply in `thread`, and says which conversation a click on that post
continues (`click_thread`), where the pushed answer is kept for its buttons.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Protocol

from bot.conversation import Responder
from bot.push.item import Target

__all__ = ["ConsolePoster", "OnPosted", "Poster", "Posters"]

OnPosted = Callable[[str], Awaitable[None]]


class Poster(Protocol):
    """Makes the responder that posts in one channel, in one thread (None: a new root)."""

    def responder(self, target: Target, thread: str | None, on_posted: OnPosted) -> Responder:
        """The responder; it calls `on_posted` with a post's ref as soon as it exists."""
        ...

    def click_thread(self, target: Target, thread: str | None) -> str | None:
        """The thread a click on a post in `thread` (None: a new root) is keyed by.

        None: the new root's own ID, known only once it is posted (a new thread). A DM's top
        level or a chat without threads is one conversation, known before the post.
        """
        ...


class ConsolePoster:
    """Posts into the console's "channel" (the demo): each message numbered, threads named."""

    def __init__(self, make: Callable[[str | None], Responder]) -> None:
        self._make = make

    def responder(self, target: Target, thread: str | None, on_posted: OnPosted) -> Responder:
        """See `Poster.responder`."""
        del target, on_posted  # one console; its posts are recorded by the journal itself
        return self._make(thread)

    def click_thread(self, target: Target, thread: str | None) -> str | None:
        """See `Poster.click_thread`: the console's threads are as posted."""
        del target
        return thread


Posters = Mapping[str, Poster]
"""The poster of each platform this process can post to."""
