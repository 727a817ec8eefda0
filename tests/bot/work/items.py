"""A work item to offer the queue or a worker: who asks, and how long it may wait."""

from __future__ import annotations

import time

from bot.conversation import Incoming, ThreadKey
from bot.work import PUSHED_PLATFORM, WorkItem

__all__ = ["item", "pushed"]


def item(
    user: str = "U1", *, deadline_s: float = 60.0, text: str = "why", platform: str = "test"
) -> WorkItem:
    """A fresh "turn" item from `user` (unique per call), due within `deadline_s`."""
    now = time.time()
    return WorkItem(
        id=f"item-{user}-{text}-{now}",
        platform=platform,
        kind="turn",
        incoming=Incoming(ThreadKey("test", "T1", "C1", "1.1"), user, text=text),
        responder={"channel": "C1"},
        request_id="req-1",
        enqueued_at=now,
        deadline_at=now + deadline_s,
    )


def pushed(text: str = "failed") -> WorkItem:
    """A fresh pushed item (a watch's failure, an alert): nobody asked it."""
    return item("runai-why", text=text, platform=PUSHED_PLATFORM)
