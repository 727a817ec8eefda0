"""An item's journal on Redis: what its attempts posted, spent and finished, in one hash.

Shared by every attempt at the item, on any replica: a retry reads what an earlier attempt
posted and updates it instead of posting again (`bot.work.queue.Journal`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import redis.asyncio as redis

from bot.work.queue import JournalState, QueueUnavailable, ShownPost

__all__ = ["RedisJournal", "text", "translated"]


@asynccontextmanager
async def translated(what: str) -> AsyncIterator[None]:
    """Redis failing inside the block, as the queue's own error (`QueueUnavailable`)."""
    try:
        yield
    except (redis.RedisError, OSError) as error:
        raise QueueUnavailable(f"Redis is unavailable ({what}: {type(error).__name__})") from error


def text(value: Any) -> str:
    """A value Redis returned (bytes or not), as text."""
    return value.decode() if isinstance(value, bytes) else str(value)


def _state(raw: Any) -> JournalState:
    """A journal hash as read (`HGETALL`), as the state it records."""
    fields = {text(k): text(v) for k, v in raw.items()}
    posts: list[ShownPost] = []
    while (shown := fields.get(f"post:{len(posts)}")) is not None:
        kind, _, ref = shown.partition(":")
        posts.append(ShownPost(ref, progress=kind == "progress"))
    return JournalState(
        tuple(posts),
        thread=fields.get("thread") or None,
        answered="answered" in fields,
        attempts=int(fields.get("attempts") or 0),
        spent=int(fields.get("spent") or 0),
    )


def _shown(index: int, post: ShownPost) -> dict[str | bytes, str | bytes]:
    """The journal's field of the `index`-th post (no ref: sent where it cannot be updated)."""
    kind = "progress" if post.progress else "post"
    return {f"post:{index}": f"{kind}:{post.ref}"}


class RedisJournal:
    """An item's journal: the hash `{runai-why-work}:job:<id>`, expiring with the dedupe keys."""

    def __init__(self, client: redis.Redis, key: str, ttl_s: int) -> None:
        self._redis, self._key, self._ttl_s = client, key, ttl_s

    async def load(self) -> JournalState:
        """See `Journal.load`."""
        async with translated("journal"):
            return _state(await self._redis.hgetall(self._key))

    async def begin(self, entry_id: str) -> JournalState:
        """See `Journal.begin` (`entry` recorded, `attempts` counted, the hash read: one trip)."""
        async with translated("journal"), self._redis.pipeline(transaction=True) as pipe:
            pipe.hset(self._key, "entry", entry_id)
            pipe.hincrby(self._key, "attempts", 1)
            pipe.expire(self._key, self._ttl_s)
            pipe.hgetall(self._key)
            *_, raw = await pipe.execute()
        return _state(raw)

    async def record_post(self, index: int, post: ShownPost, thread: str | None) -> None:
        """See `Journal.record_post`."""
        mapping = _shown(index, post)
        if thread:
            mapping["thread"] = thread
        await self._write(mapping)

    async def record_spent(self, uses: int, post: tuple[int, ShownPost] | None = None) -> None:
        """See `Journal.record_spent` (`HINCRBY`: attempts' counts add up, never overwrite)."""
        await self._write(_shown(*post) if post else {}, spent=uses)

    async def _write(self, mapping: dict[str | bytes, str | bytes], *, spent: int = 0) -> None:
        async with translated("journal"), self._redis.pipeline(transaction=True) as pipe:
            if mapping:
                pipe.hset(self._key, mapping=mapping)  # type: ignore[arg-type]
            if spent:
                pipe.hincrby(self._key, "spent", spent)
            pipe.expire(self._key, self._ttl_s)
            await pipe.execute()

    async def mark_answered(self) -> None:
        """See `Journal.mark_answered`."""
        await self._write({"answered": "1"})
