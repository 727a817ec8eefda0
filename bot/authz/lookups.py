"""How an `Authorizer` looks an answer up: its cache, the shared flight, the grants read ahead."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from bot.authz.cache import DecisionCache, Entry
from bot.authz.decision import ALL_KINDS, ANY_KIND, Target
from bot.authz.policy import Grant, cluster_wide
from bot.authz.reads import AccessReader, grants_of, reach_of, readable
from bot.authz.sharing import Sharing
from bot.durable.flight import LOOKUP_REUSE_S
from diagnosis import DiagnosisError, UpstreamError

__all__ = ["Lookups"]


class Lookups:
    """The base of `Authorizer`: an answer from the cache, else from Run:ai, shared and cached.

    `Authorizer.__init__` sets the state declared here (no runtime attribute is added).
    """

    _runai: AccessReader
    _sharing: Sharing
    _cache: DecisionCache
    _clock: Callable[[], float]
    _prefetched: dict[str, tuple[float, asyncio.Task[list[Grant]]]]
    _recent: dict[str, tuple[float, asyncio.Task[list[Grant]]]]
    _log: Any

    def _failed(self, error: DiagnosisError) -> str:
        call = error.operation if isinstance(error, UpstreamError) else "authorization"
        self._log.warning("authz_unchecked", failed_call=call, error=type(error).__name__)
        return call

    async def _decided(
        self,
        email: str,
        field: str,
        lookup: Callable[[], Awaitable[Entry]],
        *,
        shared: bool = True,
    ) -> Entry:
        """The cached answer about `field` for `email`, else `lookup`'s, shared and then cached.

        `lookup` asks Run:ai about `email` as given; the cache and the flight use it casefolded.
        `shared` False: `lookup` only decides from what is shared already (the grants), so it
        runs without a flight of its own.
        """
        person = email.casefold()
        entry = await self._cache.get(person, field)
        if entry is None:
            if shared:
                entry = await self._sharing.entry(f"{person}|{field}", lookup)
            else:
                entry = await lookup()
            await self._cache.put(person, field, entry)
        return entry

    def _grants_of(
        self, email: str, *, prefetch: bool = False, recent: bool = False
    ) -> asyncio.Task[list[Grant]]:
        """The person's grants: the read `prefetch` started (used once), or a new read.

        A prefetched read is used by the first check after it, within `LOOKUP_REUSE_S`
        and unless it failed; every other check reads afresh, as without it. `recent`: the
        read the person's last check used, within `LOOKUP_REUSE_S` and unless it failed (a
        department's check follows the workload's, in the same turn: no second read).
        """
        now = self._clock()
        self._prefetched = {
            k: v for k, v in self._prefetched.items() if now - v[0] < LOOKUP_REUSE_S
        }
        self._recent = {k: v for k, v in self._recent.items() if now - v[0] < LOOKUP_REUSE_S}
        used = self._recent.get(email) if recent else None
        if used is not None and _usable(used[1]):
            return used[1]
        started = self._prefetched.pop(email, (0.0, None))[1] if not prefetch else None
        if started is not None and _usable(started):
            self._recent[email] = (now, started)
            return started
        if prefetch and email in self._prefetched:
            return self._prefetched[email][1]
        task = asyncio.ensure_future(
            self._sharing.grants(email, lambda: grants_of(self._runai, email))
        )
        if prefetch:
            self._prefetched[email] = (now, task)
        else:
            self._recent[email] = (now, task)
        return task

    async def _readable(self, email: str, target: Target) -> frozenset[str]:
        held = self._prefetched.get(email)
        grants_read = self._grants_of(email)
        # Prefetched (next to the status), about a workload: wait for it, as a rule over the whole
        # cluster reading every kind decides without the project's lookup (never race it).
        if held is not None and grants_read is held[1] and target.kind is not ANY_KIND:
            wide = cluster_wide(await grants_read, target.cluster_id)
            if ALL_KINDS in wide:
                return wide
        return await readable(self._runai, grants_read, target)

    async def _reach(self, email: str) -> tuple[bool, frozenset[str]]:
        return await reach_of(self._runai, await self._grants_of(email))


def _usable(task: asyncio.Task[list[Grant]]) -> bool:
    """Whether a grants read may serve a check: still running, or finished without failing."""
    return not task.done() or (not task.cancelled() and task.exception() is None)
