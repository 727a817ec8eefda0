"""The audit trail: events round-trip through a capped Redis stream, and never fail a request."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
import redis.asyncio
import structlog.testing
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from bot.ops.audit import (
    AUDIT_EVENT,
    AUDIT_STREAM,
    AUTHZ_DENIAL_EVENT,
    FanoutAuditSink,
    LogAuditSink,
    RedisStreamAuditSink,
    build_audit_sink,
    read_audit,
)
from bot.ops.audit_events import AUTHZ_DENIED_OUTCOME, AuditEvent, authz_denial_event
from bot.ops.logging import mask_secrets
from tests.ports import free_port

FIELDS = {
    "platform",
    "team",
    "channel",
    "user",
    "cluster_id",
    "reason",
    "workload",
    "project",
    "resolved_id",
    "outcome",
    "category",
    "redactions",
    "duration_ms",
    "failed_calls",
    "gaps",
    "at",
}
AT = datetime(2025, 11, 4, 9, 30, 1, tzinfo=UTC)


def event(**overrides) -> AuditEvent:
    body = {
        "platform": "slack",
        "team": "T0001",
        "channel": "C0001",
        "user": "U0001",
        "cluster_id": "71f69d83-ba66-4822-adf5-55ce55efd210",
        "workload": "train-classifier",
        "project": "ml-team",
        "resolved_id": "8d1d7d6c-f854-4e82-bcd1-207c5a2fb8f8",
        "outcome": "diagnosed",
        "category": "CRASH_APP_ERROR",
        "redactions": 2,
        "duration_ms": 412,
        "failed_calls": ["get_workload_metrics"],
        "gaps": ["GPU memory (metrics unavailable)"],
        "at": AT,
    }
    return AuditEvent(**(body | overrides))


# ---------------------------------------------------------------- the event


def test_event_has_exactly_the_documented_fields_and_none_looks_secret():
    assert set(AuditEvent.model_fields) == FIELDS
    # bot.ops.logging masks keys that name credentials; an audit field must never need masking.
    fields = event().log_fields()
    assert mask_secrets(None, "info", dict(fields)) == fields


def test_event_is_frozen_and_utc():
    e = event(at=datetime(2025, 11, 4, 11, 30, 1, tzinfo=timezone(timedelta(hours=2))))
    assert e.at == AT
    assert e.at.tzinfo == UTC
    with pytest.raises(ValueError, match="frozen"):
        e.outcome = "succeeded"  # type: ignore[misc]  # the point: it is read-only
    with pytest.raises(ValueError, match="timezone"):
        event(at=datetime(2025, 11, 4, 9, 30, 1))  # noqa: DTZ001 - naive on purpose


def test_user_typed_text_is_capped():
    e = event(workload="x" * 100_000, gaps=["g"] * 1_000)
    assert e.workload is not None
    assert len(e.workload) <= 512
    assert len(e.gaps) <= 50


def test_stream_fields_are_flat_strings_and_round_trip():
    fields = event().stream_fields()
    assert all(isinstance(v, str) for v in fields.values())
    assert json.loads(fields["failed_calls"]) == ["get_workload_metrics"]
    assert AuditEvent.from_stream(fields) == event()
    sparse = event(cluster_id=None, category=None, failed_calls=[], gaps=[], resolved_id=None)
    assert sparse.stream_fields()["category"] == ""
    assert AuditEvent.from_stream(sparse.stream_fields()) == sparse


# ---------------------------------------------------------------- log sink


async def test_log_sink_emits_exactly_one_event_with_the_fields():
    with structlog.testing.capture_logs() as logs:
        await LogAuditSink().record(event())
    [entry] = logs
    assert entry["event"] == AUDIT_EVENT
    assert entry["log_level"] == "info"
    assert set(entry) - {"event", "log_level"} == FIELDS
    assert entry["outcome"] == "diagnosed"
    assert entry["failed_calls"] == ["get_workload_metrics"]
    assert entry["at"] == AT.isoformat()


async def test_nothing_secret_reaches_the_audit_log(monkeypatch):
    """The sink is given identifiers only: no token, signing secret or client secret."""
    secrets = {
        "SLACK_BOT_TOKEN": "xoxb-1111-2222-abcdefabcdefabcd",
        "SLACK_SIGNING_SECRET": "8f14e45fceea167a5a36dedd4bea2543",
        "RUNAI_CLIENT_SECRET": "s3cr3t-client-value",
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    with structlog.testing.capture_logs() as logs:
        await build_audit_sink(None).record(event())
    rendered = json.dumps(logs, default=str)
    assert not any(value in rendered for value in secrets.values())
    assert not any(word in rendered.lower() for word in ("bearer", "xox", "response_url"))


# ---------------------------------------------------------------- Redis stream sink


async def test_events_round_trip_through_the_stream(redis_client):
    sink = RedisStreamAuditSink(redis_client)
    first, second = event(user="U1"), event(user="U2", outcome="upstream_error", category=None)
    await sink.record(first)
    await sink.record(second)
    assert await redis_client.xlen(AUDIT_STREAM) == 2
    assert await read_audit(redis_client, AUDIT_STREAM) == [second, first]  # newest first
    assert await read_audit(redis_client, AUDIT_STREAM, count=1) == [second]
    [(_, raw)] = await redis_client.xrevrange(AUDIT_STREAM, "+", "-", count=1)
    assert raw["user"] == "U2"
    assert raw["category"] == ""
    assert raw["failed_calls"] == '["get_workload_metrics"]'


async def test_read_audit_works_without_decode_responses(redis_client, redis_url):
    await RedisStreamAuditSink(redis_client).record(event())
    raw_client = redis.asyncio.Redis.from_url(redis_url)  # bytes in, bytes out
    try:
        assert await read_audit(raw_client) == [event()]
    finally:
        await raw_client.aclose()


async def test_unreadable_entries_are_skipped(redis_client):
    await redis_client.xadd(AUDIT_STREAM, {"hello": "world"})
    await RedisStreamAuditSink(redis_client).record(event())
    with structlog.testing.capture_logs() as logs:
        assert await read_audit(redis_client) == [event()]
    assert [e["event"] for e in logs] == ["audit_entry_unreadable"]


async def test_the_stream_is_capped(redis_client):
    maxlen = 100
    sink = RedisStreamAuditSink(redis_client, "runai-why:audit:capped", maxlen=maxlen)
    for n in range(maxlen + 50):
        await sink.record(event(duration_ms=n))
    length = await redis_client.xlen("runai-why:audit:capped")
    # `MAXLEN ~` trims whole radix-tree nodes (100 entries each by default): never below the
    # cap, and never the whole history.
    assert maxlen <= length < maxlen + 50
    [newest] = await read_audit(redis_client, "runai-why:audit:capped", count=1)
    assert newest.duration_ms == maxlen + 49


async def test_the_stream_is_capped_near_maxlen_at_scale(redis_client):
    maxlen = 1_000
    sink = RedisStreamAuditSink(redis_client, "runai-why:audit:big", maxlen=maxlen)
    for n in range(maxlen + 500):
        await sink.record(event(duration_ms=n))
    length = await redis_client.xlen("runai-why:audit:big")
    assert maxlen <= length <= maxlen + 100


async def test_redis_down_never_fails_the_request():
    dead = redis.asyncio.Redis(
        host="127.0.0.1",
        port=free_port(),
        socket_connect_timeout=0.5,
        retry=Retry(NoBackoff(), 0),
        decode_responses=True,
    )
    try:
        with structlog.testing.capture_logs() as logs:
            await RedisStreamAuditSink(dead).record(event())  # no exception
            await build_audit_sink(dead).record(event())
    finally:
        await dead.aclose()
    failures = [e for e in logs if e["event"] == "audit_write_failed"]
    assert len(failures) == 2
    assert failures[0]["log_level"] == "warning"
    assert failures[0]["error"] == "ConnectionError"
    assert str(failures[0]).count("127.0.0.1") == 0  # no URL (it may carry a password)
    # the log sink of the fan-out still wrote its event
    assert [e["event"] for e in logs].count(AUDIT_EVENT) == 1


async def test_a_slow_redis_is_given_up_on():
    class Hanging:
        async def xadd(self, *_args, **_kwargs):
            await asyncio.sleep(10)

    with structlog.testing.capture_logs() as logs:
        await RedisStreamAuditSink(Hanging(), timeout_s=0.05).record(event())  # type: ignore[arg-type]
    assert [(e["event"], e["error"]) for e in logs] == [("audit_write_failed", "TimeoutError")]


async def test_fanout_records_everywhere_and_isolates_a_failing_sink():
    got: list[AuditEvent] = []

    class Keeping:
        async def record(self, e: AuditEvent) -> None:
            got.append(e)

    class Broken:
        async def record(self, _: AuditEvent) -> None:
            raise RuntimeError("boom")

    with structlog.testing.capture_logs() as logs:
        await FanoutAuditSink(Broken(), Keeping(), LogAuditSink()).record(event())
    assert got == [event()]
    assert sorted(e["event"] for e in logs) == ["audit_write_failed", AUDIT_EVENT]


def test_maxlen_must_be_positive(redis_url):
    with pytest.raises(ValueError, match="maxlen"):
        RedisStreamAuditSink(redis.asyncio.Redis.from_url(redis_url), maxlen=0)


# ---------------------------------------------------------------- the denial's audit record


async def test_a_denial_is_audited_as_its_own_event(redis_client):
    event = authz_denial_event(
        platform="slack",
        team="T0HOME",
        channel="C1",
        user="U1",
        cluster_id="2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92",
        project="nlp",
        reason="no_read_access",
        workload="t5-distill",
    )
    await RedisStreamAuditSink(redis_client).record(event)
    [stored] = await read_audit(redis_client)
    assert stored == event
    assert (stored.outcome, stored.reason, stored.project) == (
        AUTHZ_DENIED_OUTCOME,
        "no_read_access",
        "nlp",
    )
    assert stored.category is None
    assert stored.resolved_id is None  # nothing read from the workload is recorded


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def info(self, name: str, **fields: Any) -> None:
        self.events.append((name, fields))


async def test_the_log_names_a_denial_differently_from_a_diagnosis():
    log = Recorder()
    denial = authz_denial_event(
        platform="console", team="t", channel="c", user="u", cluster_id="x", project="p",
        reason="guest",
    )  # fmt: skip
    await LogAuditSink(log).record(denial)
    await LogAuditSink(log).record(
        AuditEvent(platform="p", team="t", channel="c", user="u", outcome="diagnosed")
    )
    assert [name for name, _ in log.events] == [AUTHZ_DENIAL_EVENT, "diagnosis_audit"]
    assert log.events[0][1]["reason"] == "guest"
