"""Stopping background tasks for good: cancel them, then wait until each has ended.

A task that is only cancelled is still pending: a Redis command it is inside goes on until
the loop runs it again, and if the loop closes first its connection is left open for the
garbage collector ("unclosed Connection"). Whoever owns tasks that use a client stops them
with `stopped` before that client closes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

__all__ = ["stopped"]


async def stopped(tasks: Iterable[asyncio.Future[Any] | None]) -> None:
    """Cancel every task given (None is skipped) and wait until all have ended.

    What they raise is theirs, not the caller's: a task stopped at shutdown has nobody left
    to report to.
    """
    pending = [task for task in tasks if task is not None]
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
