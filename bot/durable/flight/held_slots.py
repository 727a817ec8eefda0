"""What a `RedisSemaphore` does with the slots it holds: hands them on, renews and gives them back.

The base of `RedisSemaphore`, whose module (`semaphore.py`) tells the whole design; its
`__init__` sets the state declared here. A slot a call is done with goes to a call waiting
for one, or is kept a moment and given back with the others in one `ZREM`; while any is
held, every lease is renewed a fifth of a lease apart.
"""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as redis
from redis.commands.core import AsyncScript

from bot.durable.renewal import renew_until

__all__ = ["Held", "HeldSlots"]

#: Renewals per lease: a fifth of a lease apart, each given a fifth at most.
_RENEWALS_PER_LEASE = 5

Held = tuple[str, float]
"""A global slot this process holds: (token, loop time it was taken)."""


class HeldSlots:
    """The slots a `RedisSemaphore` holds: handing one on, renewing them, giving them back."""

    _redis: redis.Redis
    _key: str
    _lease_s: float
    _lease_ms: int
    _linger_s: float
    _reuse_s: float
    _renew_script: AsyncScript
    _held: set[str]
    _idle: list[Held]
    _stale: list[str]
    _wanted: list[asyncio.Future[Held | None]]
    _giver: asyncio.Task[None] | None
    _renewer: asyncio.Task[None] | None
    _stop_renewing: asyncio.Event
    _closed: bool
    _log: Any

    def _usable(self, held: Held) -> bool:
        """Whether a slot may go to another call: Redis still counts it, and it is young."""
        token, taken_at = held
        young = asyncio.get_running_loop().time() - taken_at < self._reuse_s
        return young and token in self._held

    def _grant(self, future: asyncio.Future[Held | None], held: Held | None) -> None:
        if future in self._wanted:
            self._wanted.remove(future)
        if not future.done():
            future.set_result(held)
        elif held is not None:  # its caller is gone
            self._hand_on(held)

    # ------------------------------------------------------------------ renewing
    def _renew_while_held(self) -> None:
        if not self._closed and (self._renewer is None or self._renewer.done()):
            every_s = self._lease_s / _RENEWALS_PER_LEASE
            self._renewer = asyncio.ensure_future(
                renew_until(self._stop_renewing, self._renew, every_s)
            )

    async def _renew(self) -> bool:
        """Extend the lease of every slot held; False (the renewer ends) once none is.

        Renewals start a fifth of a lease apart and each gets a fifth at most (a busy pool
        must not hold one up past the leases it renews), so one renewal may fail and the
        next still comes in time.
        """
        if not self._held:
            return False
        try:
            async with asyncio.timeout(self._lease_s / _RENEWALS_PER_LEASE):
                args: list[int | str] = [self._lease_ms, *self._held]
                lost = await self._renew_script(keys=[self._key], args=args)
        except (redis.RedisError, OSError, TimeoutError) as error:
            self._log.warning("runai_slot_renew_failed", error=type(error).__name__)
        else:
            if lost:
                gone = {t.decode() if isinstance(t, bytes) else str(t) for t in lost}
                self._held.difference_update(gone)
                self._log.warning("runai_slot_lost", count=len(gone))
        return bool(self._held)

    # ------------------------------------------------------------------ giving back
    def _hand_on(self, held: Held) -> None:
        """A slot a call is done with: to a call waiting for one, else kept a moment."""
        if not self._usable(held):
            self._give_back_soon([held[0]])
        elif self._wanted:
            self._grant(self._wanted[0], held)
        else:
            self._idle.append(held)
            self._give_back_soon([])

    def _give_back_soon(self, tokens: list[str]) -> None:
        """Give `tokens`, and the slots kept unused, back a moment from now (at `flush`)."""
        self._stale.extend(tokens)
        if not self._closed and (self._giver is None or self._giver.done()):
            self._giver = asyncio.ensure_future(self._give_back_later())

    async def _give_back_later(self) -> None:
        # A slot handed on while this task gives others back finds it still running, so it
        # schedules nothing: it is kept its moment too, then given back, not left to its lease.
        while self._idle or self._stale:
            await asyncio.sleep(self._linger_s)
            await self._give_back()
            if self._closed:
                return

    async def _give_back(self) -> None:
        """`ZREM` every unused slot at once; a failure is left to the leases."""
        tokens = [*self._stale, *(token for token, _ in self._idle)]
        self._stale.clear()
        self._idle.clear()
        if not tokens:
            return
        self._held.difference_update(tokens)  # no longer renewed, whatever the ZREM does
        try:
            await self._redis.zrem(self._key, *tokens)
        except (redis.RedisError, OSError) as error:  # the lease ends it anyway
            self._log.warning("runai_slot_release_failed", error=type(error).__name__)
        except asyncio.CancelledError:  # `flush` stopped this one: it gives them back itself
            self._stale.extend(tokens)
            raise
