"""Where a pushed answer goes: a new message, the thread of the same failure, or the overflow.

Decided once per item and kept (`plan:<item id>`), so a second attempt after a crash posts
the same messages in the same places. A failure whose fingerprint was posted in this
channel within the grouping window goes into that thread with a running count; past the
channel's hourly budget of new messages, answers go into one overflow thread per hour.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from typing import Literal

from bot.push.item import Target
from bot.push.kv import Kv

__all__ = ["Group", "Plan", "Planner"]

_PLAN_TTL_S = 86_400
_LOCK_TTL_S = 60.0
_LOCK_WAIT_S = 30.0
_KEPT_ITEMS = 50
Mode = Literal["new", "group", "overflow", "storm"]


@dataclass
class Plan:
    """What one item posts: its mode, the thread (if it joins one) and the running count."""

    mode: Mode
    thread: str | None = None
    count: int = 1
    first_at: float = field(default_factory=time.time)
    overflow_root: bool = False
    """Overflow: this item posts the overflow thread's first message."""


@dataclass
class Group:
    """One failure fingerprint's thread in one channel."""

    thread: str
    first_at: float
    last_at: float
    count: int
    items: list[str]


class Planner:
    """Plans items and records the groups and overflow threads they make, in `Kv`."""

    def __init__(
        self,
        kv: Kv,
        *,
        window_s: float,
        max_posts_per_h: int,
        lock_wait_s: float = _LOCK_WAIT_S,
    ) -> None:
        self._kv = kv
        self.window_s = window_s
        self.max_posts_per_h = max_posts_per_h
        self.lock_wait_s = lock_wait_s
        """How long `locked` waits for a group before going on without it: whatever waits
        while holding one must wait for less (`PushWork`'s conversation wait)."""

    @asynccontextmanager
    async def locked(self, name: str) -> AsyncIterator[None]:
        """Hold `name` (one group of one channel) across replicas while planning and posting."""
        token, key = uuid.uuid4().hex, f"lock:{name}"
        deadline = time.monotonic() + self.lock_wait_s
        while not await self._kv.claim(key, token, _LOCK_TTL_S):
            if time.monotonic() > deadline:
                break  # a dead holder's lease outlived the wait: go on rather than never post
            await asyncio.sleep(0.05)
        try:
            yield
        finally:
            await self._kv.release(key, token)

    async def plan(
        self, item_id: str, target: Target, group: str | None, *, storm: bool = False
    ) -> Plan:
        """The item's plan: the one kept from an earlier attempt, else decided now."""
        kept = await self._kv.get(f"plan:{item_id}")
        if kept is not None:
            return Plan(**json.loads(kept))
        plan = await self._decide(target, group, item_id, storm=storm)
        await self._kv.set(f"plan:{item_id}", json.dumps(asdict(plan)), ttl_s=_PLAN_TTL_S)
        return plan

    async def forget(self, item_id: str) -> None:
        """Drop `item_id`'s kept plan: it posted nothing, so its next attempt plans afresh."""
        await self._kv.delete(f"plan:{item_id}")

    async def _decide(
        self, target: Target, group: str | None, item_id: str, *, storm: bool
    ) -> Plan:
        now = time.time()
        if group is not None and not storm:
            known = await self.group(target, group)
            if known is not None and now - known.last_at <= self.window_s:
                count = known.count + (item_id not in known.items)
                return Plan("group", known.thread, count, known.first_at)
        hour = int(now // 3600)
        posted = await self._kv.incr(f"rate:{target.ident()}:{hour}", 3600)
        if posted <= self.max_posts_per_h:
            return Plan("storm" if storm else "new", first_at=now)
        thread = await self._kv.get(f"overflow:{target.ident()}:{hour}")
        return Plan("overflow", thread, first_at=now, overflow_root=thread is None)

    async def group(self, target: Target, group: str) -> Group | None:
        """The thread of fingerprint `group` in `target`'s channel, if one was posted."""
        raw = await self._kv.get(f"group:{target.ident()}:{group}")
        return Group(**json.loads(raw)) if raw else None

    async def joined(
        self, target: Target, group: str, thread: str, item_id: str, plan: Plan
    ) -> None:
        """Record that `item_id` posted fingerprint `group` in `thread` (idempotent)."""
        known = await self.group(target, group)
        now = time.time()
        if known is None or known.thread != thread:
            known = Group(thread, plan.first_at, now, 0, [])
        if item_id not in known.items:
            known.count = max(known.count + 1, plan.count)
            known.items = [*known.items, item_id][-_KEPT_ITEMS:]
        known.last_at = now
        ttl = self.window_s + 3600
        await self._kv.set(f"group:{target.ident()}:{group}", json.dumps(asdict(known)), ttl_s=ttl)

    async def overflowed(self, target: Target, thread: str) -> None:
        """This hour's overflow thread in `target`'s channel is `thread`."""
        hour = int(time.time() // 3600)
        await self._kv.set(f"overflow:{target.ident()}:{hour}", thread, ttl_s=3600)
