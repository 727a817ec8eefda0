"""bot/durable/renewal.py: a lease is renewed while its block runs, and never after it ends."""

from __future__ import annotations

import asyncio

import pytest
from structlog.testing import capture_logs

from bot.durable.renewal import renewing
from tests.bot.durable.renewers import HANG_S, NAME, renewer_stopped, renewers

EVERY_S = 0.001


class Renewals:
    """A `Renew` that counts its calls and can be told what to do."""

    def __init__(self, *, keep: bool = True) -> None:
        self.calls = 0
        self.keep = keep
        self.called = asyncio.Event()

    async def __call__(self) -> bool:
        self.calls += 1
        self.called.set()
        return self.keep

    async def wait_for_calls(self, count: int) -> None:
        async with asyncio.timeout(HANG_S):
            while self.calls < count:
                self.called.clear()
                await self.called.wait()


async def test_it_renews_while_the_block_runs_and_not_after():
    renew = Renewals()
    async with renewing(renew, EVERY_S, name=NAME):
        await renew.wait_for_calls(3)
        assert renewers()
    assert not renewers()  # stopped and awaited: no renewal can come after the block


async def test_a_lost_lease_is_not_renewed_again():
    renew = Renewals(keep=False)
    async with renewing(renew, EVERY_S, name=NAME):
        await renew.wait_for_calls(1)
        await renewer_stopped()
        assert renew.calls == 1  # the renewer ended while the block still runs


async def test_a_renewal_that_loses_its_cancellation_still_stops():
    """What redis-py does on Python 3.11 (through asyncio.wait_for) now and then.

    Only the first cancellation is dropped, so a renewer that relied on it alone fails this
    test with a TimeoutError (the second one, from the timeout, gets through) instead of
    hanging it.
    """
    started = asyncio.Event()
    calls = dropped = 0

    async def losing_one_cancellation() -> bool:
        nonlocal calls, dropped
        calls += 1
        started.set()
        try:
            await asyncio.Event().wait()  # a Redis write, still in flight
        except asyncio.CancelledError:
            if dropped:
                raise
            dropped += 1
            return True  # dropped: the call returns as if it had finished
        return True

    async with asyncio.timeout(HANG_S), renewing(losing_one_cancellation, EVERY_S, name=NAME):
        await started.wait()
    assert (calls, dropped) == (1, 1)


async def test_the_block_failing_stops_the_renewer_and_is_raised():
    renew = Renewals()

    async def failing_turn() -> None:
        async with renewing(renew, EVERY_S, name=NAME):
            await renew.wait_for_calls(1)
            raise LookupError("the turn failed")

    with pytest.raises(LookupError, match="the turn failed"):
        await failing_turn()
    assert not renewers()


async def test_a_renewal_that_raises_ends_the_renewing_and_is_logged():
    async def failing() -> bool:
        raise ConnectionResetError("Redis went away")

    with capture_logs() as logs:
        async with renewing(failing, EVERY_S, name=NAME):
            await renewer_stopped()
    [logged] = [e for e in logs if e["event"] == "lease_renewal_failed"]
    assert (logged["task"], logged["log_level"]) == (NAME, "warning")
    assert isinstance(logged["exc_info"], ConnectionResetError)
