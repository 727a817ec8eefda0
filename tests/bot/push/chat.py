"""A console chat with the subscription commands: who says what, and what the bot answers."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from bot.app.demo.console import ConsoleResponder
from bot.authz import Authorizer, Identity
from bot.conversation import Access, Incoming, MemoryStore, ThreadKey, console_identity
from bot.watch.commands import WatchCommands
from bot.watch.engine import WatchingEngine
from bot.watch.subscriptions import Subscriptions
from diagnosis import RunaiClient
from runai_sim.app import Simulator
from tests.bot.push.scenes import DEMO

__all__ = ["KEY", "Chat"]

KEY = ThreadKey("console", "local", "console", "1")


@dataclass
class Chat:
    runai: RunaiClient
    subscriptions: Subscriptions
    lines: list[str]
    sim: Simulator | None = None

    async def say(
        self,
        text: str,
        *,
        as_email: str = "bob@acme.ai",
        postable: Collection[str] = ("console",),
        channel_projects: dict[str, list[str]] | None = None,
        identity: Identity | None = None,
        allow_guests: bool = False,
    ) -> str:
        """What the bot answers `text`, said as `as_email` (or as `identity`)."""
        identify = console_identity(as_email)
        if identity is not None:

            async def identify(_: Incoming) -> Identity:
                return identity

        authorizer = Authorizer(self.runai, allow_guests=allow_guests)
        access = Access(authorizer, identify, channel_projects or {})
        engine = WatchingEngine(
            watch=WatchCommands(self.runai, self.subscriptions, postable=postable),
            access=access,
            runai=self.runai,
            store=MemoryStore(),
            clock=lambda: DEMO.now,
        )
        self.lines.clear()
        await engine.handle(Incoming(KEY, "you", text=text), ConsoleResponder(self.lines.append))
        return "".join(self.lines)
