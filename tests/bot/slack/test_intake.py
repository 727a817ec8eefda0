"""Private notices beside the ack are bounded: past the limit they are dropped, not queued."""

from __future__ import annotations

import asyncio

import structlog

from bot.slack.intake import Notices


async def test_notices_past_the_limit_are_dropped_and_logged():
    release = asyncio.Event()
    sent: list[str] = []

    async def tell(text: str) -> None:
        await release.wait()
        sent.append(text)

    notices = Notices(limit=1)
    with structlog.testing.capture_logs() as logs:
        notices.send(tell("first"))
        notices.send(tell("second"))  # one already waits: this one is dropped
    assert [e["event"] for e in logs] == ["slack_notice_dropped"]
    release.set()
    async with asyncio.timeout(5):
        while not sent:  # noqa: ASYNC110 - the task has no handle to wait on
            await asyncio.sleep(0.01)
    assert sent == ["first"]


async def test_drain_lets_notices_under_way_go_out_and_gives_up_on_the_stuck():
    sent: list[str] = []

    async def tell(text: str, *, stuck: bool = False) -> None:
        if stuck:
            await asyncio.Event().wait()
        sent.append(text)

    notices = Notices()
    before = asyncio.all_tasks()
    notices.send(tell("you are third in line"))
    notices.send(tell("never", stuck=True))
    with structlog.testing.capture_logs() as logs:
        await notices.drain(0.05)
    assert not asyncio.all_tasks() - before, "the stuck one was cancelled and awaited"
    assert sent == ["you are third in line"]
    assert [(e["event"], e["count"]) for e in logs] == [("slack_notices_not_sent", 1)]
    await notices.drain(0.05)  # nothing left under way: returns at once
