"""The cluster directory: the control plane's cluster list, cached briefly, matched exactly."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from diagnosis import Cluster, RunaiReader

__all__ = ["ClusterDirectory", "ClusterMatch"]


@dataclass(frozen=True)
class ClusterMatch:
    """The result of looking up what the user typed as a cluster."""

    cluster: Cluster | None
    known: tuple[Cluster, ...]


class ClusterDirectory:
    """Resolves a cluster UUID or its whole name, in any case; never a fuzzy or partial match."""

    def __init__(
        self, runai: RunaiReader, *, ttl_s: float = 60, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._runai = runai
        self._ttl_s = ttl_s
        self._clock = clock
        self._cached: tuple[float, tuple[Cluster, ...]] | None = None

    async def clusters(self) -> tuple[Cluster, ...]:
        """Every cluster the service account can see (cached for `ttl_s`)."""
        now = self._clock()
        if self._cached is None or now - self._cached[0] > self._ttl_s:
            self._cached = (now, tuple(await self._runai.list_clusters()))
        return self._cached[1]

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
