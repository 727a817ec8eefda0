"""The conversation engine, with the subscription commands taken before anything else.

A message that is exactly `watch …`, `unwatch …` or `watches` (a slash command, a mention,
the console) is a subscription command; everything else, clicks included, is the engine's.
`MakeEngine` is how a front end gets its engine: it names its `identify` (and how it
mentions an asker, and where it posts); the process supplies everything else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from bot.conversation import Access, ConversationEngine, Identify, Incoming, Responder
from bot.ops.audit import AuditSink, LogAuditSink
from bot.push import Target
from bot.watch.command import parse_watch
from bot.watch.commands import WatchCommands

__all__ = ["MakeEngine", "Place", "WatchingEngine"]


#: What a front end adds to the channel a subscription posts to (Teams: its service URL).
Place = Callable[[Incoming], Mapping[str, str]]


class MakeEngine(Protocol):
    """Builds a front end's engine around its `identify`; the rest is the process's."""

    def __call__(
        self,
        identify: Identify,
        *,
        mention: Callable[[str], str] = ...,
        place: Place | None = ...,
    ) -> ConversationEngine:
        """The engine (with the subscription commands where the process has watches)."""
        ...


class WatchingEngine(ConversationEngine):
    """A `ConversationEngine` that also answers the subscription commands."""

    def __init__(
        self,
        *,
        watch: WatchCommands,
        access: Access,
        audit: AuditSink | None = None,
        place: Place | None = None,
        **engine: Any,
    ) -> None:
        super().__init__(access=access, audit=audit, **engine)
        self._watch = watch
        self._watch_access = access
        self._watch_audit = audit or LogAuditSink()
        self._place = place

    async def handle(self, incoming: Incoming, responder: Responder) -> None:
        """A subscription command, or whatever the engine makes of the message."""
        command = (
            parse_watch(incoming.text) if incoming.choice is None and incoming.directed else None
        )
        if command is None:
            await super().handle(incoming, responder)
            return
        key = incoming.key
        where = {"platform": key.platform, "team": key.team, "channel": key.channel}
        target = Target.model_validate(where | dict(self._place(incoming) if self._place else {}))
        gate = await self._watch_access.gate(incoming, self._watch_audit)
        await self._watch.run(command, target, gate, self._watch_access, responder)
