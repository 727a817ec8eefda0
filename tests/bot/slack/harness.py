"""The bot under test over real HTTP: replicas under uvicorn, the simulator, the fake Slack.

`running_bots` starts the real ASGI app (one per replica) against a Run:ai simulator and a
`FakeSlack`; `Bot.send` signs a body as Slack signs it and POSTs it to `/slack/events`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import redis.asyncio
from pydantic import SecretStr

from bot.app.demo.scenarios import bundled_scenario
from bot.app.runtime import build_runtime
from bot.app.server import create_asgi_app
from bot.config import Settings
from bot.conversation import ThreadKey
from diagnosis.http.transport import network_transport
from runai_sim.app import Simulator
from runai_sim.scenario import Scenario
from runai_sim.server import serve, serve_asgi
from tests.bot.slack.fake_slack import Call, FakeSlack
from tests.bot.slack.signing import signed_headers, slash_command_body

__all__ = ["ALLOWED_EMAIL", "DEMO", "SECRET", "Bot", "first_line", "running_bots", "settle"]

SECRET = "e2e-signing-secret"
DEMO = bundled_scenario("demo")
#: A demo user with a tenant-wide Viewer rule: reads every project (the default asker).
ALLOWED_EMAIL = "bob@acme.ai"
#: The users the Slack tests act as; unless a test says otherwise, each is `ALLOWED_EMAIL`.
TEST_USERS = ("U1", "U2", "U3", "U7", "U9")


def _allow_test_users(slack: FakeSlack) -> None:
    """Give the tests' users a confirmed e-mail the demo's access model lets read everything."""
    for user in TEST_USERS:
        slack.users.setdefault(user, {"profile": {"display_name": user, "email": ALLOWED_EMAIL}})


@dataclass
class Bot:
    """One running replica of the bot and what it talks to."""

    url: str
    slack: FakeSlack
    http: httpx.AsyncClient
    runai_url: str = ""
    """The simulated control plane this replica reads (its `RUNAI_URL`)."""

    async def send(
        self, body: bytes, *, headers: dict[str, str] | None = None, timestamp: int | None = None
    ) -> httpx.Response:
        signed = signed_headers(SECRET, body, timestamp)
        return await self.http.post(
            f"{self.url}/slack/events", content=body, headers={**signed, **(headers or {})}
        )


def _settings(
    slack: FakeSlack, runai_url: str, redis_url: str | None, **overrides: Any
) -> Settings:
    return Settings(
        _env_file=None,
        slack_bot_token=SecretStr("xoxb-e2e-token"),
        slack_signing_secret=SecretStr(SECRET),
        slack_api_url=slack.base_url,
        redis_url=SecretStr(redis_url) if redis_url else None,
        runai_url=runai_url,
        runai_client_id="runai-why-demo",
        runai_client_secret=SecretStr("demo-secret"),
        runai_retries=0,
        **overrides,
    )


@asynccontextmanager
async def running_bots(
    slack: FakeSlack,
    redis_url: str | None,
    *,
    scenario: Scenario = DEMO,
    replicas: int = 1,
    simulator: Simulator | None = None,
    **settings: Any,
) -> AsyncIterator[list[Bot]]:
    """`replicas` bots on `simulator` (default: one of `scenario`); `settings` override theirs."""
    _allow_test_users(slack)
    async with AsyncExitStack() as stack:
        sim = simulator or Simulator(scenario)
        runai_url = await stack.enter_async_context(serve(sim))
        # One shared TLS context (`network_transport`): no CA bundle loaded per test.
        http = await stack.enter_async_context(
            httpx.AsyncClient(timeout=10, transport=network_transport())
        )
        bots = []
        for _ in range(replicas):
            runtime = build_runtime(
                _settings(slack, runai_url, redis_url, **settings), clock=lambda: scenario.now
            )
            url = await stack.enter_async_context(
                serve_asgi(create_asgi_app(runtime), lifespan="on")
            )
            bots.append(Bot(url, slack, http, runai_url))
        yield bots


def first_line(call: Call) -> str:
    """The first line of a call's text fallback (a report's category line)."""
    return (call.text or "").splitlines()[0]


async def settle(bot: Bot, key: str = "settle") -> None:
    """Wait until the bot has handled everything sent before, without a fixed sleep.

    Sends `/runai-why help` (answered privately through its own response_url, so it adds
    no public message) and waits for that answer.
    """
    body = slash_command_body("help", response_url=bot.slack.response_url(key))
    await bot.send(body)
    await bot.slack.wait_for_async("response_url", where=lambda c: c.key == key)


async def saved_state(redis_client: redis.asyncio.Redis, thread: ThreadKey) -> str:
    """The thread's saved conversation (JSON), once its turn has saved it (within 10 s).

    For tests that change what is stored: a question is shown before its thread is saved.
    """
    async with asyncio.timeout(10):
        while (state := await redis_client.get(thread.redis_key("conv"))) is None:  # noqa: ASYNC110 - Redis has no event
            await asyncio.sleep(0.01)
    return str(state)
