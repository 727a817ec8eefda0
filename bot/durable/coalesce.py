"""Calls of one Redis script made at the same moment, sent together as one pipeline.

A burst of acknowledgements makes one queue script call each, and in redis-py most of a
call's CPU is not the script but the client around it: taking a connection from the pool
(and opening new ones while the burst grows it), the retry wrapper, one write and one read
per call. `Coalesced` gathers the calls made while the event loop is busy with one round of
ready work and sends them as a single non-transactional pipeline: one connection, one
write, the replies read in order. Each script still runs on its own and atomically in
Redis; each caller gets its own reply, or its own error (a script's error is that caller's;
a connection failure is every caller's in that pipeline, as it would have been for each).
A call alone in its round is sent as a plain call: one round trip, as before. The pipeline
sends `EVALSHA`; if Redis lost the script (a restart), it is loaded once and those calls
sent again.

On Redis Cluster the keys of different calls can live on different nodes, so there calls
are sent one by one, as before.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import redis.asyncio as redis
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript
from redis.exceptions import NoScriptError

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
        self._one_by_one = isinstance(client, RedisCluster)
        self._waiting: list[_Call] = []
        self._sending: set[asyncio.Task[None]] = set()
        self._closed = False

    async def __call__(self, *, keys: Sequence[str], args: Sequence[str | int]) -> Any:
        """The script's reply to this call; raises what Redis or the connection raised."""
        if self._one_by_one:
            return await self._script(keys=list(keys), args=list(args))
        loop = asyncio.get_running_loop()
        call = _Call(keys, args, loop.create_future())
        if not self._waiting:  # the first of this round: send the round once it is over
            loop.call_soon(self._send_round)
        self._waiting.append(call)
        return await call.reply

    def _send_round(self) -> None:
        waiting, self._waiting = self._waiting, []
        if self._closed:  # after close: the client is going, so are these calls
            _settle(waiting)
            return
        for start in range(0, len(waiting), MAX_BATCH):
            batch = waiting[start : start + MAX_BATCH]
            task = asyncio.create_task(self._send(batch))
            self._sending.add(task)
            # However the task ends (even cancelled before it ever ran), no caller is left
            # waiting: whatever it did not answer is cancelled.
            task.add_done_callback(functools.partial(self._sent, batch))

    def _sent(self, batch: list[_Call], task: asyncio.Task[None]) -> None:
        self._sending.discard(task)
        _settle(batch)

    async def _send(self, calls: list[_Call]) -> None:
        calls = [c for c in calls if not c.reply.done()]  # a caller cancelled before sending
        if len(calls) == 1:  # alone: one round trip, as a plain call (it reloads a lost script)
            [call] = calls
            try:
                reply = await self._script(keys=list(call.keys), args=list(call.args))
            except Exception as error:  # noqa: BLE001 - the caller's to handle
                _fail(call, error)
            else:
                _answer(call, reply)
            return
        replies = await self._pipelined(calls)
        lost = [c for c, r in zip(calls, replies, strict=True) if isinstance(r, NoScriptError)]
        if lost:  # Redis lost its scripts (a restart, a failover): load it once, send again
            try:
                self._script.sha = await self._client.script_load(self._script.script)
            except Exception as error:  # noqa: BLE001 - every caller learns what happened
                replies = [error if isinstance(r, NoScriptError) else r for r in replies]
            else:
                again = iter(await self._pipelined(lost))
                replies = [next(again) if isinstance(r, NoScriptError) else r for r in replies]
        for call, reply in zip(calls, replies, strict=True):
            if isinstance(reply, Exception):
                _fail(call, reply)
            else:
                _answer(call, reply)

    async def _pipelined(self, calls: list[_Call]) -> list[Any]:
        """Each call's reply or error, from one pipeline of `EVALSHA`; a failure is everyone's.

        The script is not registered with the pipeline: redis-py would then ask Redis
        whether it exists (`SCRIPT EXISTS`), one more round trip, before every pipeline.
        """
        try:
            async with self._client.pipeline(transaction=False) as pipe:
                for call in calls:
                    pipe.evalsha(self._script.sha, len(call.keys), *call.keys, *call.args)
                return list(await pipe.execute(raise_on_error=False))
        except Exception as error:  # noqa: BLE001 - every caller learns what happened to its call
            return [error] * len(calls)

    async def aclose(self) -> None:
        """Stop the pipelines under way (on shutdown, before the client closes).

        Their callers, and those of a round not yet sent, get `CancelledError`.
        """
        self._closed = True
        await stopped(list(self._sending))
        _settle(self._waiting)


def _answer(call: _Call, reply: Any) -> None:
    if not call.reply.done():  # its caller may have given up meanwhile
        call.reply.set_result(reply)


def _fail(call: _Call, error: Exception) -> None:
    if not call.reply.done():
        call.reply.set_exception(error)


def _settle(calls: list[_Call]) -> None:
    """Cancel every call not answered yet."""
    for call in calls:
        if not call.reply.done():
            call.reply.cancel()
