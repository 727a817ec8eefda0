"""The audit trail: one structured event per diagnosis, to the log and to a capped Redis stream.

Every diagnosis (whatever its outcome, including an upstream failure) produces one
`AuditEvent`: who asked (platform, team, user id), where (channel), what (cluster, the
workload as asked, project, the resolved workload id), the outcome and category, how many
values were redacted, how long it took, which upstream calls failed and which evidence was
not measured. An event carries identifiers and counts only, never evidence text, tokens or
secrets.

Sinks:

* `LogAuditSink` (always on): one structlog event ``diagnosis_audit`` with the fields above.
* `RedisStreamAuditSink` (when ``REDIS_URL`` is set): ``XADD runai-why:audit MAXLEN ~ 10000``
  with flat string fields (lists as JSON, None as ""). A Redis outage never fails the user's
  request: the sink logs ``audit_write_failed`` and returns.
* `FanoutAuditSink`: several sinks at once; `build_audit_sink` assembles the usual pair.

Reading the trail (operators)::

    redis-cli -u "$REDIS_URL" XREVRANGE runai-why:audit + - COUNT 20   # newest 20 first
    redis-cli -u "$REDIS_URL" XLEN runai-why:audit                      # how many are kept

or, from Python, ``await read_audit(client, "runai-why:audit", count=50)``, which returns
`AuditEvent` objects newest first. The stream is capped (about `maxlen` entries; Redis trims
whole macro nodes, so it may briefly hold a few more), so the oldest entries roll off.
"""

from __future__ import annotations

import asyncio
from typing import Any, Final, Protocol

import redis.asyncio as redis
import structlog
from pydantic import ValidationError
from redis.typing import EncodableT, FieldT

from bot.ops.audit_events import AUTHZ_DENIED_OUTCOME, AuditEvent

__all__ = [
    "AUDIT_EVENT",
    "AUDIT_STREAM",
    "AUDIT_STREAM_MAXLEN",
    "AUTHZ_DENIAL_EVENT",
    "AuditSink",
    "FanoutAuditSink",
    "LogAuditSink",
    "RedisStreamAuditSink",
    "build_audit_sink",
    "read_audit",
]

AUDIT_EVENT: Final = "diagnosis_audit"
"""The structlog event name of an audit record."""

AUDIT_STREAM: Final = "runai-why:audit"
"""The default Redis stream key."""

AUDIT_STREAM_MAXLEN: Final = 10_000
"""The default (approximate) cap on the stream's length."""

AUTHZ_DENIAL_EVENT: Final = "authz_denial"
"""The structlog event name of a denial (its stream entry has outcome `authz_denied`)."""


class AuditSink(Protocol):
    """Where audit events go. `record` must not raise: auditing never fails a request."""

    async def record(self, event: AuditEvent) -> None:
        """Store or emit `event`."""
        ...


class LogAuditSink:
    """Emits each event as one structlog event: ``diagnosis_audit``, or ``authz_denial``."""

    def __init__(self, logger: Any = None) -> None:
        self._log = logger if logger is not None else structlog.get_logger("bot.ops.audit")

    async def record(self, event: AuditEvent) -> None:
        """Log `event` at info level."""
        name = AUTHZ_DENIAL_EVENT if event.outcome == AUTHZ_DENIED_OUTCOME else AUDIT_EVENT
        self._log.info(name, **event.log_fields())


class RedisStreamAuditSink:
    """Appends each event to a capped Redis stream (``XADD <stream> MAXLEN ~ <maxlen> *``).

    Never raises: when Redis is down or slower than `timeout_s`, it logs
    ``audit_write_failed`` (with the error type, not the URL) and returns.

    Args:
        client: a `redis.asyncio.Redis` (either `decode_responses` setting works).
        stream: the stream key.
        maxlen: approximate cap on the number of entries kept.
        timeout_s: longest a write may delay the caller.
    """

    def __init__(
        self,
        client: redis.Redis,
        stream: str = AUDIT_STREAM,
        maxlen: int = AUDIT_STREAM_MAXLEN,
        *,
        timeout_s: float = 2.0,
    ) -> None:
        if maxlen < 1:
            raise ValueError("maxlen must be at least 1")
        self._client = client
        self._stream = stream
        self._maxlen = maxlen
        self._timeout_s = timeout_s
        self._log = structlog.get_logger("bot.ops.audit")

    async def record(self, event: AuditEvent) -> None:
        """Append `event`; on any Redis failure log ``audit_write_failed`` and return."""
        fields: dict[FieldT, EncodableT] = dict(event.stream_fields().items())
        try:
            async with asyncio.timeout(self._timeout_s):
                await self._client.xadd(self._stream, fields, maxlen=self._maxlen, approximate=True)
        except Exception as error:  # noqa: BLE001 - auditing must never fail the user's request
            self._log.warning(
                "audit_write_failed",
                sink="redis_stream",
                stream=self._stream,
                error=type(error).__name__,
                outcome=event.outcome,
                channel=event.channel,
            )


class FanoutAuditSink:
    """Records each event in every sink, concurrently; one failing sink does not stop others."""

    def __init__(self, *sinks: AuditSink) -> None:
        self.sinks: tuple[AuditSink, ...] = sinks
        self._log = structlog.get_logger("bot.ops.audit")

    async def record(self, event: AuditEvent) -> None:
        """Record `event` in all sinks; a sink that raises is logged as ``audit_write_failed``."""
        results = await asyncio.gather(
            *(sink.record(event) for sink in self.sinks), return_exceptions=True
        )
        for sink, result in zip(self.sinks, results, strict=True):
            if isinstance(result, BaseException):
                if not isinstance(result, Exception):
                    raise result  # CancelledError, KeyboardInterrupt: not ours to swallow
                self._log.warning(
                    "audit_write_failed", sink=type(sink).__name__, error=type(result).__name__
                )


def build_audit_sink(
    client: redis.Redis | None,
    *,
    stream: str = AUDIT_STREAM,
    maxlen: int = AUDIT_STREAM_MAXLEN,
) -> AuditSink:
    """The structured log always; plus the capped Redis stream when there is a client."""
    if client is None:
        return LogAuditSink()
    return FanoutAuditSink(LogAuditSink(), RedisStreamAuditSink(client, stream, maxlen))


def _text(value: str | bytes | None) -> str:
    if value is None:
        return ""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


async def read_audit(
    client: redis.Redis, stream: str = AUDIT_STREAM, count: int = 50
) -> list[AuditEvent]:
    """The newest `count` audit events, newest first (``XREVRANGE <stream> + - COUNT n``).

    Entries that do not parse (written by another version, or by hand) are skipped and logged
    as ``audit_entry_unreadable``. Redis errors propagate: this is an operator's tool.
    """
    entries = await client.xrevrange(stream, "+", "-", count=count) or []
    events: list[AuditEvent] = []
    for entry_id, raw in entries:
        fields = {_text(k): _text(v) for k, v in (raw or {}).items()}
        try:
            events.append(AuditEvent.from_stream(fields))
        except (ValidationError, ValueError) as error:
            structlog.get_logger("bot.ops.audit").warning(
                "audit_entry_unreadable", entry=_text(entry_id), error=type(error).__name__
            )
    return events
