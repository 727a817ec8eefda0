"""Requests survive a dead worker and are given up on truthfully, on Slack and Teams alike.

Real HTTP, real Redis, `runai-why worker` in a process of its own, each front end's fake
platform (`tests.bot.work.frontends`): the same assertions for both.
"""

from __future__ import annotations

import signal
from collections.abc import Awaitable, Callable

import pytest
import redis.asyncio

from bot.app.runtime import build_runtime
from bot.app.server import create_asgi_app
from bot.conversation.messages import GAVE_UP, expired
from runai_sim.app import Simulator
from runai_sim.server import serve, serve_asgi
from tests.bot.durable.worker_process import STALLED_EVIDENCE, journaled, worker_process
from tests.bot.work.frontends import (
    DEAD,
    DEMO,
    FRONT_ENDS,
    STREAM,
    FrontEnd,
    SlackFront,
    TeamsFront,
    delivered_twice_before,
)

pytestmark = pytest.mark.e2e


@pytest.fixture(params=FRONT_ENDS)
def front(request: pytest.FixtureRequest) -> FrontEnd:
    """Each front end in turn (Slack's fake checks every payload against Slack's limits)."""
    if request.param == "slack":
        return SlackFront(request.getfixturevalue("fake_slack"))
    return TeamsFront()


@pytest.mark.parametrize(
    "stop",
    [
        pytest.param(signal.SIGKILL, id="kill-9: reclaimed after the idle time"),
        pytest.param(signal.SIGTERM, id="SIGTERM: handed back after the grace period"),
    ],
)
async def test_a_worker_stopped_mid_diagnosis_is_answered_once_by_another(
    front: FrontEnd, redis_url: str, redis_client: redis.asyncio.Redis, stop: signal.Signals
):
    """`runai-why worker` posts "Diagnosing…" and is stopped; another replica answers.

    The doomed worker reads a control plane whose evidence never comes (after the placeholder
    is posted), so it is still diagnosing when it stops; the survivor reads a prompt one
    serving the same scenario and updates the stopped worker's placeholder: one message, one
    answer.
    """
    slow = DEMO.model_copy(update={"faults": [STALLED_EVIDENCE]})
    async with (
        front.running(redis_url, embedded_worker=False, queue_claim_idle_s=0.5) as web,
        serve(Simulator(slow)) as slow_url,
    ):
        doomed = await worker_process(front.env(), slow_url, redis_url)
        try:
            await front.ask()
            placeholder = await front.placeholder()
            assert front.working(placeholder), placeholder
            # Stopped between the platform taking the post and the journal recording it (one
            # round trip) is the window left; past it, the placeholder is durable:
            await journaled(redis_client, placeholder.ref)
        finally:
            doomed.send_signal(stop)
            await doomed.wait()
        assert front.updates() == []
        assert await redis_client.xlen(STREAM) == 1  # still queued: nothing lost
        pending = (await redis_client.xpending(STREAM, "workers"))["pending"]
        assert pending == (0 if stop is signal.SIGTERM else 1)  # handed back, or left held
        settings = front.settings(
            web.runai_url, redis_url, queue_claim_idle_s=0.5, embedded_worker=True
        )
        survivor = build_runtime(settings, clock=lambda: DEMO.now)
        async with serve_asgi(create_asgi_app(survivor), lifespan="on"):
            answer = await front.answer()
            assert (answer.ref, answer.where) == (placeholder.ref, placeholder.where)
            assert front.diagnosed(answer), answer
            await front.barrier()
        assert len(front.posts()) == 1 + front.private_posts  # never a second placeholder
        assert len(front.updates()) == 1
        assert await redis_client.xlen(STREAM) == 0


async def _nothing(_: redis.asyncio.Redis) -> None:
    return None


@pytest.mark.parametrize(
    ("settings", "before", "told", "dead_letters"),
    [
        pytest.param(
            {"queue_max_deliveries": 2},
            delivered_twice_before,
            GAVE_UP,
            1,
            id="failed every time: dead-lettered",
        ),
        pytest.param(
            {"queue_deadline_s": 0.001},
            _nothing,
            expired(0.001),
            0,
            id="waited past its deadline: dropped",
        ),
    ],
)
async def test_an_item_given_up_on_is_told_to_its_asker_privately(  # noqa: PLR0917 - a table
    front: FrontEnd,
    redis_url: str,
    redis_client: redis.asyncio.Redis,
    settings: dict[str, float],
    before: Callable[[redis.asyncio.Redis], Awaitable[None]],
    told: str,
    dead_letters: int,
):
    options = {"queue_claim_idle_s": 0.3} | settings
    async with front.running(redis_url, embedded_worker=False, **options) as web:
        await front.ask()
        await before(redis_client)
        worker = front.settings(web.runai_url, redis_url, embedded_worker=True, **options)
        async with serve_asgi(create_asgi_app(build_runtime(worker)), lifespan="on"):
            text, private = await front.told()
        assert (text, private) == (front.notice(told), True)
        assert front.updates() == []  # nothing was shown publicly to replace
        assert len(front.posts()) == front.private_posts  # the notice only
        assert await redis_client.xlen(STREAM) == 0
        assert await redis_client.xlen(DEAD) == dead_letters
