"""Work a turn starts ahead: the status read shared with the diagnosis, the placeholder's ref."""

from __future__ import annotations

import asyncio

from bot.app.backends import simulated
from bot.app.demo.scenarios import bundled_scenario
from bot.conversation.ahead import Background, posted, read_status
from bot.conversation.which_cluster import ClusterSlot
from bot.durable.flight import Flights

JOB_42 = "f0658dcc-8ddb-493b-b983-99894f206aea"


async def _settled(background: Background) -> None:
    async with asyncio.timeout(10):
        while background._tasks:  # noqa: ASYNC110 - the test waits on the read ahead
            await asyncio.sleep(0.005)


async def test_the_status_read_ahead_is_the_one_the_diagnosis_finds():
    async with simulated(bundled_scenario("demo"), retries=0, transport="asgi") as up:
        assert up.simulator is not None
        flights = Flights(None, report_ttl_s=30)
        background = Background()
        background.start(read_status(up.runai, flights, JOB_42))
        await _settled(background)
        before = len(up.simulator.requests)
        text, via = await flights.run("lookup", f"get_workload|{JOB_42}", _never, keep_s=5)
    assert via == "cache"
    assert JOB_42 in text
    assert len(up.simulator.requests) == before


async def _never():  # the kept read answers: nothing is computed again
    raise AssertionError("read again")


async def test_a_failed_read_ahead_is_left_to_the_diagnosis():
    async with simulated(bundled_scenario("demo"), retries=0, transport="asgi") as up:
        assert up.simulator is not None
        await read_status(up.runai, Flights(None, report_ttl_s=30), "no-such-workload")
        assert [r.status for r in up.simulator.requests][-1] == 404


async def test_a_placeholder_that_failed_has_no_ref():
    async def fails() -> str:
        raise RuntimeError("slack down")

    async def works() -> str:
        return "1700000000.000100"

    assert await posted(asyncio.ensure_future(fails())) is None
    assert await posted(asyncio.ensure_future(works())) == "1700000000.000100"


async def test_a_cluster_list_read_ahead_that_fails_is_left_to_the_resolution():
    async with simulated(bundled_scenario("demo"), retries=0, transport="asgi") as up:
        assert up.simulator is not None
        up.simulator.add_fault({"path": "/api/v1/clusters", "status": 503})
        slot = ClusterSlot(up.runai, defaults={}, flights=None)
        await slot.read_ahead()  # says nothing: the resolution reads again and says why
        assert [r.status for r in up.simulator.requests][-1] == 503


async def test_closing_stops_the_reads_still_running_ahead():
    """Nobody awaits a read ahead: closing (the engine's, on shutdown) stops and awaits it."""
    started, never = asyncio.Event(), asyncio.Event()

    async def read() -> None:
        started.set()
        await never.wait()

    background = Background()
    before = asyncio.all_tasks()
    background.start(read())
    await started.wait()
    ahead = asyncio.all_tasks() - before
    assert ahead, "the read runs in the background"
    await background.aclose()
    assert not ahead & asyncio.all_tasks(), "stopped, and waited for"
