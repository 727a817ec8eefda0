"""Closing the runtime stops what outlived its callers before the Redis client closes."""

from __future__ import annotations

import asyncio

from bot.app.runtime import build_runtime
from diagnosis import Payload
from tests.bot.slack.fake_slack import FakeSlack
from tests.bot.slack.harness import _settings


async def test_closing_stops_a_flight_whose_caller_is_gone(
    fake_slack: FakeSlack, redis_url: str, redis_client
):
    """A read ahead was cancelled under its flight; the runtime's close stops the flight."""
    runtime = build_runtime(_settings(fake_slack, "http://127.0.0.1:9", redis_url))
    assert runtime.flights is not None
    computing, never = asyncio.Event(), asyncio.Event()

    async def compute() -> Payload:
        computing.set()
        await never.wait()
        return Payload("never", keep=True)

    try:
        before = asyncio.all_tasks()
        caller = asyncio.create_task(runtime.flights("report", "a key", compute))
        await computing.wait()
        flight = asyncio.all_tasks() - before - {caller}
        caller.cancel()
        await asyncio.gather(caller, return_exceptions=True)
        assert flight & asyncio.all_tasks(), "the flight outlives its caller"
    finally:
        await runtime.aclose()
    assert not flight & asyncio.all_tasks(), "closed and awaited before Redis closed"
    assert not await redis_client.keys("runai-why:flight:*lock"), "its lock was given up"
