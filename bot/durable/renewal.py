"""Renews a Redis lease while a block runs, and stops when the block ends, always.

The conversation lock and a flight's lock are leases: their holder renews them every third of
their TTL while its work runs (`renewing`); the Run:ai call slots are renewed while a process
holds any (`renew_until`). Stopping the renewer by cancelling its task alone is not safe
on Python 3.11: redis-py sends every command through `asyncio.wait_for` when it has a socket
timeout (bot/durable/connect.py sets one), and that drops a cancellation arriving just as the
write completes (CPython gh-86296, fixed in 3.12). A renewer whose cancellation was dropped
renews for ever, and whoever awaits it waits for ever: a turn that had already answered
never released its thread, and the next request there waited behind it. So the renewer also
checks a stop flag after every await.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import structlog

__all__ = ["Renew", "renew_until", "renewing"]

#: Renews the lease once; returns False when there is no point going on (the lease is lost).
Renew = Callable[[], Awaitable[bool]]


@asynccontextmanager
async def renewing(renew: Renew, every_s: float, *, name: str) -> AsyncIterator[None]:
    """Call `renew` every `every_s` seconds while the block runs; stop when it ends.

    Leaving the block stops the renewer and waits for it: a renewal in flight is cancelled,
    and if a library drops that cancellation the renewer still stops once the call returns.
    A renewal that raises ends the renewing (the lease then expires by itself); it is logged.
    """
    stop = asyncio.Event()
    task = asyncio.create_task(renew_until(stop, renew, every_s), name=name)
    try:
        yield
    finally:
        stop.set()
        task.cancel()
        [outcome] = await asyncio.gather(task, return_exceptions=True)
        if isinstance(outcome, Exception):
            structlog.get_logger(__name__).warning(
                "lease_renewal_failed", task=name, exc_info=outcome
            )


async def renew_until(stop: asyncio.Event, renew: Renew, every_s: float) -> None:
    """Call `renew` every `every_s` seconds until `stop` is set or `renew` returns False."""
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(every_s):
                await stop.wait()
        if stop.is_set() or not await renew():
            return
