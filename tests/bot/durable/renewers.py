"""The renewer tasks a test can see (`bot.durable.renewal`), and waiting for one to end."""

from __future__ import annotations

import asyncio

__all__ = ["HANG_S", "NAME", "renewer_stopped", "renewers"]

#: Far longer than any of these tests takes: a renewer that does not stop fails the test.
HANG_S = 5
NAME = "renew test-lease"


def renewers(name: str = NAME) -> list[asyncio.Task[object]]:
    """The renewer tasks named `name` still running (renewals come only from them)."""
    return [t for t in asyncio.all_tasks() if t.get_name() == name]


async def renewer_stopped(name: str = NAME) -> None:
    """Wait until the renewer named `name` has ended on its own (the block still running)."""
    async with asyncio.timeout(HANG_S):
        while renewers(name):  # noqa: ASYNC110 - the renewer's end has no event of its own
            await asyncio.sleep(0)
