"""The cluster directory: the control plane's cluster list, cached briefly, matched exactly.

The list is read once per `ttl_s`, however many requests need it at once: one refresh per
process at a time (an `asyncio.Lock`), and, with `Flights`, one across replicas (the
others reuse the one replica's read from Redis).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from pydantic import TypeAdapter

from bot.durable.flight import Flights
from diagnosis import Cluster, Payload, RunaiReader

__all__ = ["ClusterDirectory", "ClusterMatch", "cluster_by_ref"]


@dataclass(frozen=True)
class ClusterMatch:
    """The result of looking up what the user typed as a cluster."""

    cluster: Cluster | None
    known: tuple[Cluster, ...]


_CLUSTERS = TypeAdapter(tuple[Cluster, ...])


def cluster_by_ref(clusters: Iterable[Cluster], ref: str) -> Cluster | None:
    """The cluster whose UUID or name is `ref` exactly, as a setting or a label spells it."""
    return next((c for c in clusters if ref in {c.uuid, c.name}), None)


class ClusterDirectory:
    """Resolves a cluster UUID or its whole name, in any case; never a fuzzy or partial match."""

    def __init__(
        self,
        runai: RunaiReader,
        *,
        ttl_s: float = 60,
        clock: Callable[[], float] = time.monotonic,
        flights: Flights | None = None,
    ) -> None:
        self._runai = runai
        self._ttl_s = ttl_s
        self._clock = clock
        self._flights = flights
        self._refreshing = asyncio.Lock()
        self._cached: tuple[float, tuple[Cluster, ...]] | None = None

    def _fresh(self) -> tuple[Cluster, ...] | None:
        if self._cached is None or self._clock() - self._cached[0] > self._ttl_s:
            return None
        return self._cached[1]

    async def clusters(self) -> tuple[Cluster, ...]:
        """Every cluster the service account can see (cached for `ttl_s`); `UpstreamError`."""
        fresh = self._fresh()
        if fresh is not None:
            return fresh
        async with self._refreshing:
            fresh = self._fresh()  # another request may have read it while this one waited
            if fresh is None:
                now = self._clock()
                fresh = await self._read()
                self._cached = (now, fresh)
            return fresh

    async def _read(self) -> tuple[Cluster, ...]:
        if self._flights is None:
            return tuple(await self._runai.list_clusters())

        async def listed() -> Payload:
            clusters = await self._runai.list_clusters()
            return Payload(_CLUSTERS.dump_json(tuple(clusters)).decode(), keep=True)

        text, _ = await self._flights.run("clusters", "all", listed, keep_s=self._ttl_s)
        return _CLUSTERS.validate_json(text)

    async def match(self, typed: str) -> ClusterMatch:
        """Match a UUID or a whole name, case-insensitively; raises `UpstreamError`.

        An exact name wins; a name that differs only in case matches when exactly one
        cluster has it (`PROD-A` is `prod-a`, but not when both `prod-a` and `Prod-A` exist).
        """
        known = await self.clusters()
        wanted = typed.strip()
        exact = [c for c in known if c.name == wanted or c.uuid.lower() == wanted.lower()]
        folded = [c for c in known if c.name.casefold() == wanted.casefold()]
        found = exact[0] if exact else folded[0] if len(folded) == 1 else None
        return ClusterMatch(found, known)
