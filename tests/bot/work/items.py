"""A work item to offer the queue or a worker: who asks, and how long it may wait."""

from __future__ import annotations

import time

from bot.conversation import Incoming, ThreadKey
from bot.work import WorkItem

__all__ = ["item"]


def item(user: str = "U1", *, deadline_s: float = 60.0, text: str = "why") -> WorkItem:
    """A fresh "turn" item from `user` (unique per call), due within `deadline_s`."""
    now = time.time()
    return WorkItem(
        id=f"item-{user}-{text}-{now}",
        platform="test",
        kind="turn",
        incoming=Incoming(ThreadKey("test", "T1", "C1", "1.1"), user, text=text),
        responder={"channel": "C1"},
        request_id="req-1",
        enqueued_at=now,
        deadline_at=now + deadline_s,
    )
