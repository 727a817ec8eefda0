"""Calls of one Redis script made at the same moment, sent together as one pipeline.

A burst of acknowledgements makes one queue script call each, and in redis-py most of a
call's CPU is not the script but the client around it: taking a connection from the pool
(and opening new ones while the burst grows it), the retry wrapper, one write and one read
per call. `Coalesced` gathers the calls made while the event loop is busy with one round of
ready work and sends them as a single non-transactional pipeline: one connection, one
write, the replies read in order. Each script still runs on its own and atomically in
Redis; each caller gets its own reply, or its own error (a script's error is that caller's;
a connection failure is every caller's in that pipeline, as it would have been for each).

On Redis Cluster the keys of different calls can live on different nodes, so there calls
are sent one by one, as before.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import redis.asyncio as redis
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript

from bot.durable.tasks import stopped

__all__ = ["Coalesced"]

#: At most this many calls in one pipeline; the rest go in the next.
MAX_BATCH = 128


@dataclass
class _Call:
    keys: Sequence[str]
    args: Sequence[str | int]
    reply: asyncio.Future[Any]


class Coalesced:
    """One Redis script whose concurrent calls share a pipeline (not on Cluster)."""

    def __init__(self, client: redis.Redis, script: AsyncScript) -> None:
        self._client = client
        self._script = script
        self._alone = isinstance(client, RedisCluster)
        self._waiting: list[_Call] = []
        self._sending: set[asyncio.Task[None]] = set()

    async def __call__(self, *, keys: Sequence[str], args: Sequence[str | int]) -> Any:
        """The script's reply to this call; raises what Redis or the connection raised."""
        if self._alone:
            return await self._script(keys=list(keys), args=list(args))
        loop = asyncio.get_running_loop()
        call = _Call(keys, args, loop.create_future())
        if not self._waiting:  # the first of this round: send the round once it is over
            loop.call_soon(self._send_round)
        self._waiting.append(call)
        return await call.reply

    def _send_round(self) -> None:
        waiting, self._waiting = self._waiting, []
        for start in range(0, len(waiting), MAX_BATCH):
            task = asyncio.create_task(self._send(waiting[start : start + MAX_BATCH]))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    async def _send(self, calls: list[_Call]) -> None:
        calls = [c for c in calls if not c.reply.done()]  # a caller cancelled before sending
        if not calls:
            return
        try:
            async with self._client.pipeline(transaction=False) as pipe:
                for call in calls:
                    await self._script(keys=list(call.keys), args=list(call.args), client=pipe)
                replies = await pipe.execute(raise_on_error=False)
        except asyncio.CancelledError:  # stopped at shutdown: so are its callers
            for call in calls:
                call.reply.cancel()
            raise
        except Exception as error:  # noqa: BLE001 - every caller learns what happened to its call
            for call in calls:
                if not call.reply.done():
                    call.reply.set_exception(error)
            return
        for call, reply in zip(calls, replies, strict=True):
            if call.reply.done():
                continue
            if isinstance(reply, Exception):
                call.reply.set_exception(reply)
            else:
                call.reply.set_result(reply)

    async def aclose(self) -> None:
        """Stop the pipelines under way (on shutdown, before the client closes)."""
        await stopped(list(self._sending))
