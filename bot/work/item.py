"""A unit of durable work: one person's request, serialisable and platform-neutral.

The front end that received the request builds it; any worker process (another replica,
after a crash) can run it from its JSON alone: the platform names the handler, `responder`
is that platform's description of where and to whom to answer (rebuilt by the handler),
`kind` says which of the platform's entry points took it. Pushed items (watches, alerts) and
people's requests are held to separate bounds, and each person to a bound of their own
(`asker`), so no one of them can fill the queue for the others.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from enum import StrEnum

import structlog
from pydantic import BaseModel, ConfigDict, Field, JsonValue

from bot.conversation.model import Incoming

__all__ = ["PUSHED_PLATFORM", "Delivery", "Enqueued", "Intake", "WorkItem", "new_item"]

#: The platform of what nobody asked for (`bot.push`: a watch's poll or an alert): such items
#: are bounded apart from people's requests, and have no asker.
PUSHED_PLATFORM = "push"


class WorkItem(BaseModel):
    """One request waiting for (or being given) its answer."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(min_length=1, max_length=64)
    """Stable across reclaims and hand-backs: the key of its journal."""
    platform: str
    kind: str
    incoming: Incoming
    responder: dict[str, JsonValue]
    request_id: str | None = None
    dedupe: str | None = None
    """A repeatable request's key (`admit`): forgotten when its asker is told to ask again."""
    enqueued_at: float
    """Epoch seconds when it was accepted."""
    deadline_at: float
    """Epoch seconds after which it is no longer started: the asker is told instead."""

    @property
    def pushed(self) -> bool:
        """Nobody asked: a watch's or an alert's item, bounded apart from people's requests."""
        return self.platform == PUSHED_PLATFORM

    @property
    def asker(self) -> str | None:
        """Who the queue counts it against (`platform:user`); None for a pushed item.

        The user ID is the one the platform signed (Slack's, the Bot Framework's): it is known
        before the person's Run:ai identity is, which the worker looks up later.
        """
        return None if self.pushed else f"{self.platform}:{self.incoming.user}"

    def expired(self, now: float | None = None) -> bool:
        """Whether it waited past its deadline."""
        return (time.time() if now is None else now) > self.deadline_at


def new_item(
    *,
    platform: str,
    kind: str,
    incoming: Incoming,
    responder: dict[str, JsonValue],
    deadline_s: float,
) -> WorkItem:
    """A fresh item, carrying the request ID bound in the log context, if any."""
    now = time.time()
    bound = structlog.contextvars.get_contextvars().get("request_id")
    return WorkItem(
        id=uuid.uuid4().hex,
        platform=platform,
        kind=kind,
        incoming=incoming,
        responder=responder,
        request_id=str(bound) if bound is not None else None,
        enqueued_at=now,
        deadline_at=now + deadline_s,
    )


class Intake(StrEnum):
    """What the queue did with an offered item."""

    ACCEPTED = "accepted"
    DUPLICATE = "duplicate"
    FULL = "full"
    """Its lane (people's requests, or pushed items) holds as many as it may."""
    CAPPED = "capped"
    """Its asker already has as many requests waiting or being answered as one person may."""


@dataclass(frozen=True)
class Enqueued:
    """The queue's answer to `enqueue`: what happened, and how many wait ahead of it."""

    intake: Intake
    ahead: int = 0
    """Accepted: items already waiting (not yet started) in front of this one."""
    depth: int = 0
    """Items in the queue (waiting or in flight) when it was offered."""
    held: int = 0
    """Capped: the asker's own requests waiting or being answered."""


@dataclass(frozen=True)
class Delivery:
    """An item handed to one consumer: the stream entry, its item, and its delivery count."""

    entry_id: str
    item: WorkItem | None
    """None when the entry could not be read as an item (it is dead-lettered)."""
    times: int
    """How many times it has been delivered, this one included."""
    reclaimed: bool = False
    raw: str = ""
    earlier: int = 0
    """Deliveries of the item before it was handed back (SIGTERM), begun or not. They do not
    count towards `times`, which a hand-back restarts: the journal counts the attempts that
    began (`JournalState.attempts`)."""
    asker: str | None = None
    """Whom the entry is counted against, as the queue recorded it at enqueue (None: nobody)."""
    pushed: bool = False
    """The entry is counted in the pushed items' lane (as recorded at enqueue)."""
