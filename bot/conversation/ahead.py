"""What a turn starts before it needs it, so the answer waits on fewer round trips.

The workload asked for by ID is read next to the turn's first lookups (token, cluster
list, the asker's grants) instead of after them, and "Diagnosing …" is posted without the
diagnosis waiting for it. Nothing here shows anything or decides anything.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable

from bot.durable.tasks import stopped
from diagnosis import DiagnosisError, RunaiReader, Share, SharedLookups

__all__ = ["Background", "posted", "read_status"]


class Background:
    """Tasks started ahead and not awaited by whoever started them (kept referenced)."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def start(self, work: Awaitable[None]) -> None:
        """Run `work` in the background."""
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def aclose(self) -> None:
        """Stop what runs and wait for it, before the clients it uses are closed."""
        await stopped(set(self._tasks))


async def read_status(runai: RunaiReader, share: Share, workload_id: str) -> None:
    """Read the workload's status through the shared lookups, where the diagnosis finds it.

    The status is what the asker's access is checked on, so the diagnosis reads it before
    that check anyway: it is only read earlier. A failure is the diagnosis's to report (it
    reads again), never this read's.
    """
    with contextlib.suppress(DiagnosisError):
        await SharedLookups(runai, share).get_workload(workload_id)


async def posted(placeholder: asyncio.Future[str]) -> str | None:
    """The placeholder's ref, or None when posting it failed (the first error is raised)."""
    try:
        return await placeholder
    except Exception:  # noqa: BLE001 - the diagnosis's own error is the one to report
        return None
