"""Counting Redis round trips: every request a client of this process writes, by command.

`counted_round_trips` patches redis-py's asyncio connection so each `send_packed_command`
(one command, or one whole pipeline) is recorded as one round trip with the names of the
commands it carried. Round trips are counted, never timed. Code running under `uncounted`
(a test's own polling) is left out.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from redis.asyncio.connection import AbstractConnection

__all__ = ["RoundTrips", "counted_round_trips", "uncounted"]

_UNCOUNTED: ContextVar[bool] = ContextVar("redis_uncounted", default=False)
#: The start of each RESP array: its length, then its first bulk string (the command).
_ARRAY = re.compile(rb"\*(\d+)\r\n")
_BULK = re.compile(rb"\$(\d+)\r\n")
#: The parts of a key that differ per request: digests, thread and command ids.
_VARYING = re.compile(r"[0-9a-f]{32}|(?<=:)(?:cmd-)?[0-9][0-9.]*[^:+ ]*")


@dataclass
class RoundTrips:
    """The round trips recorded so far, each as the command names it carried."""

    trips: list[tuple[str, ...]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.trips)

    def by_command(self) -> Counter[str]:
        """How many round trips each command (or pipeline of commands, `A+B`) took.

        Scripts are named by their first key with digests and ids folded (`{…}`, `…`).
        """
        return Counter(_VARYING.sub("…", "+".join(t)) for t in self.trips)

    def without(self, *names: str) -> list[tuple[str, ...]]:
        """The round trips that carried none of `names` (e.g. the worker's idle polling)."""
        return [t for t in self.trips if not set(t) & set(names)]


def _names(command: Iterable[Any] | bytes | str) -> tuple[str, ...]:
    if isinstance(command, bytes | bytearray | memoryview):
        raw = bytes(command)
    elif isinstance(command, str):
        raw = command.encode()
    else:
        raw = b"".join(bytes(c) if not isinstance(c, str) else c.encode() for c in command)
    names: list[str] = []
    at = 0
    while (array := _ARRAY.match(raw, at)) is not None:
        at = array.end()
        parts: list[bytes] = []
        for _ in range(int(array.group(1))):
            bulk = _BULK.match(raw, at)
            if bulk is None:
                return tuple(names)
            size = int(bulk.group(1))
            parts.append(raw[bulk.end() : bulk.end() + size])
            at = bulk.end() + size + 2
        names.append(_label(parts))
    return tuple(names)


def _label(parts: list[bytes]) -> str:
    """`GET`, or for a script `EVALSHA <its first key>` (which script it was)."""
    name = parts[0].decode().upper() if parts else "?"
    if name in {"EVAL", "EVALSHA"} and len(parts) > 3 and parts[2] != b"0":
        return f"{name} {parts[3].decode(errors='replace')}"
    return name


@contextmanager
def uncounted() -> Iterator[None]:
    """Round trips made in this block (and tasks it starts) are not recorded."""
    token = _UNCOUNTED.set(True)
    try:
        yield
    finally:
        _UNCOUNTED.reset(token)


@contextmanager
def counted_round_trips() -> Iterator[RoundTrips]:
    """Record every round trip any redis-py asyncio client of this process makes."""
    found = RoundTrips()
    original = AbstractConnection.send_packed_command

    async def counting(self: AbstractConnection, command: Any, check_health: bool = True) -> None:  # noqa: FBT001, FBT002 - redis-py's signature
        if not _UNCOUNTED.get():
            found.trips.append(_names(command))
        await original(self, command, check_health)

    AbstractConnection.send_packed_command = counting  # type: ignore[method-assign]
    try:
        yield found
    finally:
        AbstractConnection.send_packed_command = original  # type: ignore[method-assign]
