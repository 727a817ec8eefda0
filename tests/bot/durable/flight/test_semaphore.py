"""The global Run:ai call limit: never more holders than slots, dead holders expire, fail open."""

from __future__ import annotations

import asyncio
import socket
import sys
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

import pytest
import redis.asyncio
import structlog.testing

from bot.durable.connect import connect_redis
from bot.durable.flight import SEMAPHORE_KEY, LocalLimit, RedisSemaphore
from bot.durable.flight.slot_scripts import ACQUIRE, line_keys
from bot.ops.metrics import REGISTRY
from diagnosis import CallLimiter
from runai_sim.app import Simulator
from tests.bot.durable.flight.replicas import DEMO, JOB_42, replicas
from tests.ports import serving
from tests.redis_trips import counted_round_trips

LINE, PLACE = line_keys(SEMAPHORE_KEY)


class InFlight:
    """An ASGI wrapper counting the simulator's requests in flight (and the most at once)."""

    def __init__(self, app: Any) -> None:
        self._app = app
        self.now = self.most = self.total = 0
        self.gate = asyncio.Event()
        self.gate.set()

    async def __call__(self, scope: Any, receive: Callable, send: Callable[..., Awaitable[None]]):
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        self.now += 1
        self.total += 1
        self.most = max(self.most, self.now)
        try:
            await self.gate.wait()
            await self._app(scope, receive, send)
        finally:
            self.now -= 1


async def test_two_replicas_never_have_more_run_ai_calls_in_flight_than_the_limit(
    redis_url, redis_client
):
    sim = Simulator(DEMO)
    counted = InFlight(sim.app)
    limiter = RedisSemaphore(redis_client, limit=3, lease_s=30)
    async with replicas(redis_url, app=counted, simulator=sim, limiter=limiter) as (_, pair):
        for replica in pair:  # each has its token: only the reads below are held
            await replica.runai.get_workload(JOB_42)
        counted.gate.clear()
        reads = [asyncio.create_task(pair[i % 2].runai.get_workload(JOB_42)) for i in range(40)]
        async with asyncio.timeout(10):
            while counted.now < 3:  # noqa: ASYNC110 - the simulator holds them
                await asyncio.sleep(0.005)
        counted.gate.set()
        found = await asyncio.gather(*reads)
        await limiter.flush()
    assert {w.id for w in found} == {JOB_42}
    assert counted.total == 44, "two tokens, two warm-up reads and the forty"
    assert counted.most == 3, "the limit was reached, and never passed"
    assert await redis_client.zcard(SEMAPHORE_KEY) == 0, "every slot was given back"


async def test_calls_of_one_level_take_their_slots_in_one_round_trip_and_hand_them_on(
    redis_client,
):
    """A diagnosis's chain levels: four reads at once, then three more, then nothing."""
    limiter = RedisSemaphore(redis_client, limit=8, lease_s=30, linger_s=60)
    held: list[int] = []

    async def call() -> None:
        async with limiter.slot():
            held.append(await redis_client.zcard(SEMAPHORE_KEY))

    await redis_client.script_load(ACQUIRE)  # a fresh server's first EVALSHA loads it first
    with counted_round_trips() as trips:
        await asyncio.gather(*(call() for _ in range(4)))
        await asyncio.gather(*(call() for _ in range(3)))
        await limiter.flush()  # what lingering would do 60 s later
    assert await redis_client.zcard(SEMAPHORE_KEY) == 0
    slots = [t for t in trips.trips if t in {(f"EVALSHA {SEMAPHORE_KEY}",), ("ZREM",)}]
    assert slots == [(f"EVALSHA {SEMAPHORE_KEY}",), ("ZREM",)], trips.by_command()
    assert max(held) == 4, "the second level used the first level's slots"


async def test_closing_gives_back_at_once_and_keeps_nothing_after(redis_client):
    limiter = RedisSemaphore(redis_client, limit=2, lease_s=30, linger_s=60)
    async with limiter.slot():
        pass
    assert await redis_client.zcard(SEMAPHORE_KEY) == 1, "kept for the next call"
    await limiter.aclose()
    assert await redis_client.zcard(SEMAPHORE_KEY) == 0
    inside = 0

    async def call() -> int:
        nonlocal inside
        async with limiter.slot():
            inside += 1
            most = inside
            await asyncio.sleep(0.05)
            inside -= 1
        return most

    most = await asyncio.gather(*(call() for _ in range(5)))
    assert max(most) == 2, "after closing, this process's own limit still holds"
    assert await redis_client.zcard(SEMAPHORE_KEY) == 0, "and no slot is taken to lapse"


async def test_a_call_longer_than_the_lease_keeps_its_slot(redis_client):
    """The lease is renewed while the call runs: nobody else gets the only slot meanwhile."""
    holder = RedisSemaphore(redis_client, limit=1, lease_s=1.0)
    waiter = RedisSemaphore(redis_client, limit=1, lease_s=30)
    async with holder.slot():
        with pytest.raises(TimeoutError):  # two and a half leases long
            async with asyncio.timeout(2.5), waiter.slot():
                pass
        [(_, until)] = await redis_client.zrange(SEMAPHORE_KEY, 0, -1, withscores=True)
        seconds, micros = await redis_client.time()
        assert until > seconds * 1000 + micros // 1000, "its lease lies ahead"
    await holder.aclose()
    async with asyncio.timeout(10), waiter.slot():
        pass
    await waiter.aclose()
    assert await redis_client.zcard(SEMAPHORE_KEY) == 0


HOLD_UNTIL_KILLED = """
import asyncio, sys
from bot.durable.connect import connect_redis
from bot.durable.flight import RedisSemaphore

async def main():
    limiter = RedisSemaphore(connect_redis(sys.argv[1]), limit=2, lease_s=float(sys.argv[2]))
    async with limiter.slot(), limiter.slot():
        print("holding", flush=True)
        await asyncio.sleep(3600)

asyncio.run(main())
"""


async def test_a_process_killed_holding_every_slot_frees_them_within_its_lease(
    redis_url, redis_client
):
    """A holder killed with -9 mid-call: nothing gives the slots back, and nothing renews them either."""
    lease_s = 0.5
    holder = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        HOLD_UNTIL_KILLED,
        redis_url,
        str(lease_s),
        stdout=asyncio.subprocess.PIPE,
    )
    assert holder.stdout is not None
    try:
        async with asyncio.timeout(30):
            assert await holder.stdout.readline() == b"holding\n"
        await asyncio.sleep(2 * lease_s)  # renewed meanwhile, or gone already
        assert await redis_client.zcard(SEMAPHORE_KEY) == 2, "both still held"
    finally:
        holder.kill()
        await holder.wait()
    loop = asyncio.get_running_loop()
    killed_at = loop.time()
    waiter = RedisSemaphore(redis_client, limit=2, lease_s=30)
    async with asyncio.timeout(10), waiter.slot(), waiter.slot():
        waited = loop.time() - killed_at
    await waiter.aclose()
    assert waited <= lease_s + 1.0, waited


async def test_a_failed_renewal_is_logged_and_the_call_goes_on(redis_client):
    limiter = RedisSemaphore(redis_client, limit=2, lease_s=0.06)
    with structlog.testing.capture_logs() as logs:
        async with limiter.slot():
            await redis_client.delete(SEMAPHORE_KEY)
            await redis_client.set(SEMAPHORE_KEY, "not a sorted set")  # the renewal now fails
            await asyncio.sleep(0.1)
        await limiter.aclose()
    assert "runai_slot_renew_failed" in {entry["event"] for entry in logs}


async def test_a_busy_replica_cannot_keep_every_slot_from_another(redis_client):
    """Past its reuse time a slot goes back to the shared pool, and the line gives it out.

    The busy replica's own callers always want the slot a call hands on, and ask for every
    slot it gives back; the replica waiting in line with none gets the first one freed.
    """
    busy = RedisSemaphore(redis_client, limit=2, reuse_s=0.3)
    other = RedisSemaphore(redis_client, limit=2)
    stop = asyncio.Event()

    async def keep_calling() -> None:
        while not stop.is_set():
            async with busy.slot():
                await asyncio.sleep(0.02)

    callers = [asyncio.create_task(keep_calling()) for _ in range(4)]
    await asyncio.sleep(0.1)  # every slot taken, two callers always waiting
    loop = asyncio.get_running_loop()
    started = loop.time()
    try:
        async with asyncio.timeout(10), other.slot():
            waited = loop.time() - started
    finally:
        stop.set()
        await asyncio.gather(*callers)
        await busy.aclose()
        await other.aclose()
    assert waited < 1.5, "within about one reuse time (0.23-0.28 s measured)"


async def test_a_process_that_stops_waiting_leaves_the_line_at_once(redis_client):
    """Its one waiting call gave up: the next free slot is not held back for it."""
    holder = RedisSemaphore(redis_client, limit=1, linger_s=0)
    gone = RedisSemaphore(redis_client, limit=1)
    late = RedisSemaphore(redis_client, limit=1)
    async with holder.slot():
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.2), gone.slot():
                pass
        async with asyncio.timeout(5):
            while await redis_client.zcard(LINE):  # noqa: ASYNC110 - its taker winds down
                await asyncio.sleep(0.01)
    await holder.aclose()
    async with asyncio.timeout(0.5), late.slot():
        pass
    await late.aclose()
    await gone.aclose()


async def test_a_dead_process_loses_its_place_in_line_a_second_after_its_last_attempt(
    redis_client,
):
    seconds, micros = await redis_client.time()
    now_ms = seconds * 1000 + micros // 1000
    await redis_client.zadd(LINE, {"dead": now_ms - 5000})  # first in line...
    await redis_client.zadd(PLACE, {"dead": now_ms + 300})  # ...for another 0.3 s
    limiter = RedisSemaphore(redis_client, limit=1)
    async with asyncio.timeout(10), limiter.slot():
        seconds, micros = await redis_client.time()
    await limiter.aclose()
    waited_ms = seconds * 1000 + micros // 1000 - now_ms
    assert 300 <= waited_ms < 2000, "behind the dead one until its place lapsed, not longer"
    assert await redis_client.zcard(LINE) == 0


async def test_several_busy_replicas_leave_a_slot_for_one_with_none(redis_client):
    """Each busy one always wants more than it gets; the line still serves the idle one."""
    busy = [RedisSemaphore(redis_client, limit=4, reuse_s=0.2) for _ in range(3)]
    other = RedisSemaphore(redis_client, limit=4)
    stop = asyncio.Event()

    async def keep_calling(limiter: RedisSemaphore) -> None:
        while not stop.is_set():
            async with limiter.slot():
                await asyncio.sleep(0.02)

    callers = [asyncio.create_task(keep_calling(b)) for b in busy for _ in range(4)]
    await asyncio.sleep(0.3)  # every slot taken, every busy replica short of some
    waits = []
    loop = asyncio.get_running_loop()
    try:
        for _ in range(3):
            started = loop.time()
            async with asyncio.timeout(10), other.slot():
                waits.append(loop.time() - started)
    finally:
        stop.set()
        await asyncio.gather(*callers)
        for limiter in (*busy, other):
            await limiter.aclose()
    assert max(waits) < 2, waits  # about one reuse time each


async def test_a_slot_redis_lost_is_not_handed_on(redis_client):
    """Its lease ended under the call (Redis restarted): the call ends, the slot is not reused."""
    limiter = RedisSemaphore(redis_client, limit=1, lease_s=0.6, linger_s=60)
    with structlog.testing.capture_logs() as logs:
        async with limiter.slot():
            [first] = await redis_client.zrange(SEMAPHORE_KEY, 0, -1)
            await redis_client.delete(SEMAPHORE_KEY)  # as a Redis that restarted empty
            await asyncio.sleep(0.4)  # a renewal or three
        async with limiter.slot():
            now = await redis_client.zrange(SEMAPHORE_KEY, 0, -1)
        await limiter.aclose()
    assert first not in now, "a new slot was taken"
    assert len(now) == 1
    assert "runai_slot_lost" in {entry["event"] for entry in logs}


async def test_nothing_is_renewed_once_nothing_is_held(redis_client):
    limiter = RedisSemaphore(redis_client, limit=2, lease_s=0.3)
    async with limiter.slot():
        await asyncio.sleep(0.15)  # renewed at least once
    await limiter.flush()
    await asyncio.sleep(0.15)  # a renewal that was due ends the renewer
    with counted_round_trips() as trips:
        await asyncio.sleep(0.4)
    assert trips.trips == []
    await limiter.aclose()


async def test_a_caller_that_gives_up_waiting_leaves_no_slot_behind(redis_client):
    holder = RedisSemaphore(redis_client, limit=1, lease_s=30)
    waiter = RedisSemaphore(redis_client, limit=1, lease_s=30)
    async with holder.slot():
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.05), waiter.slot():
                pass
    await holder.flush()
    async with asyncio.timeout(10), waiter.slot():
        assert await redis_client.zcard(SEMAPHORE_KEY) == 1
    await waiter.flush()
    assert await redis_client.zcard(SEMAPHORE_KEY) == 0


async def test_a_call_that_starts_waiting_while_the_line_is_left_is_served(redis_client):
    """The only waiting call gave up; another starts while the taker leaves the line.

    The taker is still running then, so no other is started: it must serve the newcomer
    rather than end (the CI run of 2026-12-05 hung here for 10 s).
    """
    asleep, wake = asyncio.Event(), asyncio.Event()

    async def sleep(_: float) -> None:
        asleep.set()
        await wake.wait()

    holder = RedisSemaphore(redis_client, limit=1, lease_s=30)
    waiter = RedisSemaphore(redis_client, limit=1, lease_s=30, sleep=sleep)
    async with holder.slot():
        gives_up = asyncio.create_task(_enter(waiter))
        await asyncio.wait_for(asleep.wait(), 10)  # in line, pausing between attempts
        gives_up.cancel()
        with pytest.raises(asyncio.CancelledError):
            await gives_up
    await holder.flush()
    wake.set()
    await asyncio.sleep(0)  # the taker wakes to nobody waiting and sends its LEAVE first
    async with asyncio.timeout(5), waiter.slot():
        assert await redis_client.zcard(SEMAPHORE_KEY) == 1
    await waiter.aclose()
    await holder.aclose()


async def test_a_take_whose_reply_was_lost_is_the_callers_when_sent_again(redis_url, redis_client):
    """Redis ran the take, the reply was lost, the client sent it again: the slot is the caller's.

    Counted as someone else's, the slot the first run took was held by no one for a whole
    lease, and the caller waited in line behind it.
    """
    await redis_client.script_load(ACQUIRE)
    upstream = urlsplit(redis_url)
    lost = asyncio.Event()

    async def loses_the_first_take_reply(
        reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        to_redis_r, to_redis_w = await asyncio.open_connection(upstream.hostname, upstream.port)
        dropping = False

        async def up() -> None:
            nonlocal dropping
            while data := await reader.read(65536):
                if b"EVALSHA" in data and not lost.is_set():
                    lost.set()
                    dropping = True
                to_redis_w.write(data)
                await to_redis_w.drain()

        async def down() -> None:
            while data := await to_redis_r.read(65536):
                if dropping:  # the reply is lost, and the connection with it
                    writer.close()
                    return
                writer.write(data)
                await writer.drain()

        try:
            await asyncio.gather(up(), down())
        finally:
            to_redis_w.close()

    async with serving(loses_the_first_take_reply) as port:
        proxied = redis_url.replace(upstream.netloc.rsplit("@", 1)[-1], f"127.0.0.1:{port}", 1)
        client = connect_redis(proxied)
        limiter = RedisSemaphore(client, limit=1, lease_s=30)
        try:
            async with asyncio.timeout(5), limiter.slot():
                assert lost.is_set(), "the first reply was lost, and the take sent again"
                assert await redis_client.zcard(SEMAPHORE_KEY) == 1
            await limiter.aclose()
            assert await redis_client.zcard(SEMAPHORE_KEY) == 0, "the one slot was its own"
        finally:
            await client.aclose()


async def test_calls_that_come_while_redis_fails_go_ahead_with_those_waiting(redis_url):
    """Redis stalls: every call waiting when the take fails goes ahead, not after another try."""
    client = redis.asyncio.Redis.from_url(redis_url, socket_timeout=1.5, retry=None)
    admin = redis.asyncio.Redis.from_url(redis_url)
    limiter = RedisSemaphore(client, limit=2)
    await client.ping()  # connected before Redis stops answering
    await admin.execute_command("CLIENT", "PAUSE", "5000", "WRITE")  # scripts wait too
    try:
        with structlog.testing.capture_logs() as logs:
            first = asyncio.create_task(_enter(limiter))
            await asyncio.sleep(0.1)  # its take is waiting on Redis
            second = asyncio.create_task(_enter(limiter))
            async with asyncio.timeout(4):
                await asyncio.gather(first, second)
        failed = [e for e in logs if e["event"] == "runai_slot_fail_open"]
        assert len(failed) == 1, "one failed take let both go"
    finally:
        await admin.execute_command("CLIENT", "UNPAUSE")
        await limiter.aclose()
        await client.aclose()
        await admin.aclose()


async def _enter(limiter: RedisSemaphore) -> None:
    async with limiter.slot():
        pass


async def test_slots_on_their_way_back_when_flushed_are_still_given_back(redis_url):
    """The give-back waits for the pool's one connection when `flush` stops it."""
    client = connect_redis(redis_url, max_connections=1)
    limiter = RedisSemaphore(client, limit=2, lease_s=30, linger_s=0.01)
    try:
        await client.flushdb()
        async with limiter.slot():
            pass
        busy = asyncio.ensure_future(client.blpop(["nothing"], timeout=1))
        await asyncio.sleep(0.1)  # the give-back waits for the connection `busy` holds
        await limiter.flush()
        await busy
        assert await client.zcard(SEMAPHORE_KEY) == 0
    finally:
        await limiter.aclose()
        await client.flushdb()
        await client.aclose()


async def test_a_slot_held_by_a_crashed_replica_expires(redis_client):
    """Every slot is held by holders that died; once their leases end, a slot is free."""
    limiter = RedisSemaphore(redis_client, limit=2, lease_s=30)
    seconds, micros = await redis_client.time()
    now_ms = seconds * 1000 + micros // 1000
    await redis_client.zadd(SEMAPHORE_KEY, {"dead-1": now_ms + 200, "dead-2": now_ms + 200})
    async with asyncio.timeout(10), limiter.slot():
        holders = await redis_client.zrange(SEMAPHORE_KEY, 0, -1)
    await limiter.aclose()
    assert len(holders) == 1
    assert "dead-1" not in holders
    assert "dead-2" not in holders


async def test_a_full_semaphore_waits_until_a_slot_is_given_back(redis_client):
    pauses: list[float] = []
    paused = asyncio.Event()

    async def sleep(seconds: float) -> None:
        pauses.append(seconds)
        if len(pauses) >= 3:
            paused.set()
        await asyncio.sleep(0)

    holder = RedisSemaphore(redis_client, limit=1, lease_s=30)
    waiter = RedisSemaphore(redis_client, limit=1, lease_s=30, sleep=sleep)
    async with holder.slot():
        entered = asyncio.Event()

        async def wait_for_slot() -> None:
            async with waiter.slot():
                entered.set()

        task = asyncio.create_task(wait_for_slot())
        await paused.wait()
        assert not entered.is_set(), "no slot while the only one is held"
    await holder.flush()
    async with asyncio.timeout(10):
        await task
    await waiter.aclose()
    assert max(pauses) <= 0.1, "backoff is capped"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_redis_down_fails_open_with_a_warning():
    down = connect_redis(f"redis://127.0.0.1:{_closed_port()}/0")  # as the bot connects
    limiter = RedisSemaphore(down, limit=2, lease_s=30)
    labels = {"what": "runai_semaphore"}
    before = REGISTRY.get_sample_value("runai_why_fail_open_total", labels) or 0.0
    try:
        async with limiter.slot():
            pass
    finally:
        await down.aclose()
    assert (REGISTRY.get_sample_value("runai_why_fail_open_total", labels) or 0.0) - before == 1


async def test_a_failed_release_is_left_to_the_lease(redis_client):
    limiter = RedisSemaphore(redis_client, limit=2, lease_s=30)
    async with limiter.slot():
        await redis_client.delete(SEMAPHORE_KEY)
        await redis_client.set(SEMAPHORE_KEY, "not a sorted set")  # ZREM now fails
    await limiter.flush()
    assert await redis_client.get(SEMAPHORE_KEY) == "not a sorted set"


@pytest.mark.parametrize("limiter", [LocalLimit(2)], ids=["local"])
async def test_one_process_without_redis_is_bounded_too(limiter: CallLimiter):
    inside = most = 0

    async def call() -> None:
        nonlocal inside, most
        async with limiter.slot():
            inside += 1
            most = max(most, inside)
            await asyncio.sleep(0)
            inside -= 1

    await asyncio.gather(*(call() for _ in range(10)))
    assert most <= 2


def test_a_semaphore_needs_a_slot(redis_client):
    with pytest.raises(ValueError, match="at least one slot"):
        RedisSemaphore(redis_client, limit=0, lease_s=1)


async def test_a_slot_handed_on_while_others_are_given_back_is_given_back_too(redis_client):
    """A slot handed on during a give-back is given back too, not left to its lease.

    The give-back's `ZREM` is on its way when another call ends: left to its lease, that
    slot would be capacity lost for the whole lease, and a test waiting for it would hang.
    """
    limiter = RedisSemaphore(redis_client, limit=4, lease_s=30, linger_s=0.01)
    zrem, in_zrem, go_on = redis_client.zrem, asyncio.Event(), asyncio.Event()

    async def slow_zrem(*args: Any) -> Any:
        in_zrem.set()
        await go_on.wait()
        return await zrem(*args)

    first_done, second_may_end = asyncio.Event(), asyncio.Event()

    async def first() -> None:
        async with limiter.slot():
            pass
        first_done.set()

    async def second() -> None:
        async with limiter.slot():
            await second_may_end.wait()

    redis_client.zrem = slow_zrem
    try:
        later = asyncio.create_task(second())
        await first()
        async with asyncio.timeout(10):
            await in_zrem.wait()  # the first slot is being given back
            second_may_end.set()
            await later  # the second is handed on while that ZREM is still on its way
            go_on.set()
            while await redis_client.zcard(SEMAPHORE_KEY):  # noqa: ASYNC110 - Redis has no event
                await asyncio.sleep(0.01)
    finally:
        redis_client.zrem = zrem
        await limiter.aclose()
    assert first_done.is_set()
