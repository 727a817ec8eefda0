"""Concurrent calls of one script go out as one pipeline, and each caller gets its own answer."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest
import redis.asyncio
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from bot.durable.coalesce import MAX_BATCH, Coalesced
from bot.durable.connect import connect_redis
from tests.ports import free_port, serving

pytestmark = pytest.mark.e2e

#: Counts its calls; a call whose argument is "bad" fails with a script error.
SCRIPT = """
if ARGV[1] == 'bad' then return redis.error_reply('ERR bad argument') end
local n = redis.call('INCR', KEYS[1])
return {n, ARGV[1]}
"""


@pytest.fixture
async def client(redis_url: str) -> AsyncIterator[redis.asyncio.Redis]:
    made = connect_redis(redis_url, max_connections=64)
    try:
        await made.flushdb()
        yield made
    finally:
        await made.aclose()


def _opened(client: redis.asyncio.Redis) -> int:
    pool = client.connection_pool
    return len(pool._available_connections) + len(pool._in_use_connections)


async def test_a_burst_shares_one_connection_and_each_caller_gets_its_reply(
    client: redis.asyncio.Redis,
):
    calls = Coalesced(client, client.register_script(SCRIPT))
    replies = await asyncio.gather(*(calls(keys=["n"], args=[f"a{i}"]) for i in range(200)))
    assert sorted(r[1] for r in replies) == sorted(f"a{i}" for i in range(200))
    assert sorted(int(r[0]) for r in replies) == list(range(1, 201)), "each ran once"
    assert _opened(client) == -(-200 // MAX_BATCH), "200 calls at once: one connection a pipeline"
    assert len(replies) > MAX_BATCH, "more than one pipeline's worth"


async def test_a_script_error_is_only_its_callers(client: redis.asyncio.Redis):
    calls = Coalesced(client, client.register_script(SCRIPT))
    outcomes = await asyncio.gather(
        calls(keys=["n"], args=["ok-1"]),
        calls(keys=["n"], args=["bad"]),
        calls(keys=["n"], args=["ok-2"]),
        return_exceptions=True,
    )
    assert isinstance(outcomes[1], ResponseError)
    assert [o[1] for o in (outcomes[0], outcomes[2])] == ["ok-1", "ok-2"]  # type: ignore[index]


async def test_redis_down_fails_every_caller_of_the_pipeline():
    nowhere = connect_redis(f"redis://127.0.0.1:{free_port()}/0", pool_timeout_s=1)
    try:
        calls = Coalesced(nowhere, nowhere.register_script(SCRIPT))
        outcomes = await asyncio.gather(
            *(calls(keys=["n"], args=[str(i)]) for i in range(3)), return_exceptions=True
        )
    finally:
        await nowhere.aclose()
    assert all(isinstance(o, (RedisConnectionError, OSError)) for o in outcomes), outcomes


async def test_a_call_cancelled_before_it_is_sent_never_runs(client: redis.asyncio.Redis):
    calls = Coalesced(client, client.register_script(SCRIPT))
    kept = [asyncio.create_task(calls(keys=["n"], args=[f"k{i}"])) for i in range(2)]
    dropped = asyncio.create_task(calls(keys=["n"], args=["dropped"]))
    await asyncio.sleep(0)  # every call has joined the round; none is sent yet
    dropped.cancel()
    await asyncio.gather(*kept)
    assert await client.get("n") == "2"
    with pytest.raises(asyncio.CancelledError):
        await dropped


async def test_close_stops_a_pipeline_waiting_on_redis_and_its_callers():
    sent = asyncio.Event()

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            while await reader.read(4096):  # takes the commands, never answers
                sent.set()

    async with serving(silent) as port:
        mute = connect_redis(f"redis://127.0.0.1:{port}/0")
        try:
            calls = Coalesced(mute, mute.register_script(SCRIPT))
            caller = asyncio.create_task(calls(keys=["n"], args=["x"]))
            async with asyncio.timeout(5):
                await sent.wait()  # sent, and waiting for an answer that never comes
            before = asyncio.all_tasks()
            await calls.aclose()
            with pytest.raises(asyncio.CancelledError):
                await caller
            assert not {t for t in asyncio.all_tasks() - before if not t.done()}
        finally:
            await mute.aclose()


async def test_no_round_trip_asks_whether_the_script_exists(client: redis.asyncio.Redis):
    calls = Coalesced(client, client.register_script(SCRIPT))
    await client.config_resetstat()
    for i in range(3):
        await calls(keys=["n"], args=[f"lone-{i}"])  # alone in its round: a plain call
    await asyncio.gather(*(calls(keys=["n"], args=[f"b{i}"]) for i in range(20)))
    stats = await client.info("commandstats")
    assert stats["cmdstat_evalsha"]["calls"] == 23
    assert "cmdstat_script|exists" not in stats


async def test_a_script_redis_lost_is_loaded_again_once(client: redis.asyncio.Redis):
    calls = Coalesced(client, client.register_script(SCRIPT))
    await calls(keys=["n"], args=["first"])
    await client.script_flush()  # as after a restart of Redis
    replies = await asyncio.gather(*(calls(keys=["n"], args=[f"a{i}"]) for i in range(5)))
    assert sorted(r[1] for r in replies) == [f"a{i}" for i in range(5)]
    assert await client.get("n") == "6", "each ran once"


async def test_close_before_a_round_is_sent_cancels_its_callers(client: redis.asyncio.Redis):
    calls = Coalesced(client, client.register_script(SCRIPT))
    waiting = asyncio.create_task(calls(keys=["n"], args=["never"]))
    await asyncio.sleep(0)  # the call joined a round that is not sent yet
    await calls.aclose()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert await client.get("n") is None


async def test_close_before_a_pipeline_ever_ran_cancels_its_callers(client: redis.asyncio.Redis):
    calls = Coalesced(client, client.register_script(SCRIPT))
    waiting = [asyncio.create_task(calls(keys=["n"], args=[str(i)])) for i in range(2)]
    await asyncio.sleep(0)  # both joined the round
    await asyncio.sleep(0)  # the round was handed to a task that has not run yet
    await calls.aclose()
    for task in waiting:
        with pytest.raises(asyncio.CancelledError):
            await task
