"""An alert's answer: where it went (`AlertResolver`), and the note when the alert resolves."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Protocol

from bot.conversation import Notice
from bot.errors import BotError
from bot.ops.metrics import PUSH_POSTS
from bot.push.item import PENDING, AlertSpec, Pending, PushSpec, Target
from bot.push.posters import Posters
from bot.push.posts import JournaledPosts
from bot.work import Journal, JournalState

__all__ = [
    "RESOLVED_GRACE_S",
    "RESOLVED_POLL_S",
    "AlertResolver",
    "AlertStillFiring",
    "ResolvedAlerts",
]

#: A resolution that arrives while its firing alert is answered waits this long past the
#: diagnosis deadline for the answer's thread, looking every `RESOLVED_POLL_S`.
RESOLVED_GRACE_S = 5.0
RESOLVED_POLL_S = 0.2


class AlertStillFiring(BotError):
    """A resolution whose firing alert is still being answered: try it again later."""


class AlertResolver(Protocol):
    """Finds an alert's workload and channel, and remembers where its answer went."""

    async def resolve(self, alert: AlertSpec) -> PushSpec | None:
        """The push it maps to; None when it maps to nothing (counted and logged there)."""
        ...

    async def started(self, alert_key: str) -> None:
        """A firing alert is being answered: its resolution waits for the answer's thread."""
        ...

    async def dropped(self, alert_key: str) -> None:
        """A firing alert will not be answered (it maps to nothing): nothing to wait for."""
        ...

    async def thread_of(self, alert: AlertSpec) -> tuple[Target, str] | Pending | None:
        """Where `alert`'s answer went; `PENDING` while it is answered; None if it never was."""
        ...

    async def posted(self, alert_key: str, target: Target, thread: str) -> None:
        """The answer to the alert `alert_key` went to `thread` of `target`."""
        ...


class ResolvedAlerts:
    """The base of `PushWork`: a resolved alert's note in the thread of its firing's answer.

    `PushWork.__init__` sets the state declared here (no runtime attribute is added).
    """

    _alerts: AlertResolver | None
    _posters: Posters
    _resolution_wait_s: float
    _log: Any

    async def _resolved(self, alert: AlertSpec, journal: Journal, state: JournalState) -> None:
        """A note in the thread of the alert's answer; nothing when none was posted."""
        assert self._alerts is not None  # noqa: S101 - only alert items come here
        where = await self._alerts.thread_of(alert)
        waited_until = time.monotonic() + self._resolution_wait_s
        while where == PENDING and time.monotonic() < waited_until:
            await asyncio.sleep(RESOLVED_POLL_S)  # its firing is being answered right now
            where = await self._alerts.thread_of(alert)
        if where == PENDING:
            raise AlertStillFiring(alert.key)  # left in the queue: another attempt, later
        poster = self._posters.get(where[0].platform) if isinstance(where, tuple) else None
        if not isinstance(where, tuple) or poster is None:
            self._log.info("push_alert_resolved_unposted", fingerprint=alert.fingerprint)
            return
        target, thread = where
        ended = f" at {alert.ends_at}" if alert.ends_at else ""
        text = f"Resolved: Alertmanager says {alert.alertname or 'the alert'} ended{ended}."
        await JournaledPosts(poster, target, journal, state).post(Notice(text), thread=thread)
        PUSH_POSTS.labels(source="alert", mode="resolved").inc()
