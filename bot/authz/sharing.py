"""One person's authorization lookups, shared with their concurrent requests on every replica.

A storm of one asker's requests looks them up once (`bot.durable.flight`); the result is
kept a few seconds at most (`LOOKUP_REUSE_S`, never past the decision cache's TTL), so
`Authorizer.forget` is honoured within seconds. Without flights every lookup runs itself.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

from pydantic import TypeAdapter

from bot.authz.cache import Entry
from bot.authz.policy import Grant
from bot.durable.flight import LOOKUP_REUSE_S, Flights
from diagnosis import AccessRule, Payload

__all__ = ["Sharing"]

#: A person's grants as shared between replicas: (rule, the resource types it reads).
_GRANTS = TypeAdapter(list[tuple[AccessRule, list[str]]])


class Sharing:
    """Runs a lookup once per key across replicas (or locally, without `flights`)."""

    def __init__(self, flights: Flights | None, ttl_s: int) -> None:
        self._flights = flights
        self._keep_s = min(ttl_s, LOOKUP_REUSE_S)  # `forget` is honoured within seconds

    async def entry(self, key: str, lookup: Callable[[], Awaitable[Entry]]) -> Entry:
        """`lookup`, shared with the same person's concurrent requests (kept a few seconds)."""
        if self._flights is None:
            return await lookup()

        async def flight() -> Payload:
            return Payload(json.dumps(await lookup()), keep=True)

        text, _ = await self._flights.run("authz", key, flight, keep_s=self._keep_s)
        entry: Entry = json.loads(text)
        return entry

    async def grants(self, email: str, read: Callable[[], Awaitable[list[Grant]]]) -> list[Grant]:
        """`read` (the grants of `email`), shared with the person's concurrent turns."""
        if self._flights is None:
            return await read()

        async def flight() -> Payload:
            listed = [(g.rule, sorted(g.resources)) for g in await read()]
            return Payload(_GRANTS.dump_json(listed, by_alias=True).decode(), keep=True)

        key = f"{email.casefold()}|grants"
        text, _ = await self._flights.run("authz", key, flight, keep_s=self._keep_s)
        return [Grant(rule, frozenset(found)) for rule, found in _GRANTS.validate_json(text)]
