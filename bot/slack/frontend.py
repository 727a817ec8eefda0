"""The Slack front end of a process: the gate and Bolt app over HTTP (or Socket Mode).

`build_slack` makes everything Slack needs on top of what the process already has (the
state store, Redis, the work queue, and the engine it is given for Slack's `identify`): the
Web API client, the one `auth.test` of the process, the Bolt app with its listeners, the
gate in front of it (`bot.slack.gate`), the worker's handler of Slack items (`SlackWork`)
and the poster of pushed answers (`bot.slack.poster`). It is a `bot.web.frontend.FrontEnd`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import redis.asyncio as redis
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from starlette.routing import BaseRoute, Route

from bot.config import Settings
from bot.conversation import ConversationEngine, StateStore
from bot.slack.app import build_slack_app, build_web_client
from bot.slack.authorize import AuthTest
from bot.slack.deps import SlackDeps
from bot.slack.fastlane import FastLane
from bot.slack.gate import EVENTS_PATH, SlackGate
from bot.slack.identity import SlackIdentify
from bot.slack.intake import Notices
from bot.slack.poster import SlackPoster
from bot.slack.response_urls import ResponseUrls
from bot.slack.session import SlackSession
from bot.slack.verify import RequestVerifier
from bot.slack.work import SlackWork
from bot.watch.engine import MakeEngine
from bot.work import WorkQueue

__all__ = ["SlackFrontEnd", "build_slack"]


@dataclass
class SlackFrontEnd:
    """What the Slack front end owns in a process: its Bolt app, gate, handler and poster."""

    app: AsyncApp
    gate: SlackGate
    work: SlackWork
    """The worker's `Handler` of Slack items."""
    poster: SlackPoster
    auth_test: AuthTest
    notices: Notices
    """Private notices sent beside acks: drained on shutdown."""
    engine: ConversationEngine
    """Its engine, whose reads ahead are stopped on close."""
    session: SlackSession
    """The keep-alive session every Slack Web API call of the process goes through."""
    platform: str = field(default="slack", init=False)

    def routes(self) -> list[BaseRoute]:
        """`POST /slack/events`: commands, events and interactivity on one URL."""
        return [Route(EVENTS_PATH, self.gate.handle, methods=["POST"])]

    async def team(self) -> str:
        """The installing workspace's team ID (from the one `auth.test`), for pushed threads."""
        answer = await self.auth_test.answer()
        return str(answer.get("team_id") or "")

    async def drain(self, grace_s: float) -> None:
        """Send the notices under way, within `grace_s`."""
        await self.notices.drain(grace_s)

    async def aclose(self) -> None:
        """Stop the engine's reads ahead, then close the Web API session (after its last call).

        The runtime calls this once the front end is drained and the worker and push stopped
        (`Runtime.aclose`): nothing that posts to Slack runs any more.
        """
        await self.engine.aclose()
        await self.session.aclose()

    @asynccontextmanager
    async def socket_mode(self, app_token: str) -> AsyncIterator[None]:
        """Take Slack's requests over Socket Mode (with `SLACK_APP_TOKEN`) while inside."""
        handler = AsyncSocketModeHandler(self.app, app_token)
        await handler.connect_async()  # type: ignore[no-untyped-call]
        try:
            yield
        finally:  # a failure (or Ctrl-C) inside still closes the socket
            await handler.close_async()  # type: ignore[no-untyped-call]


def build_slack(
    settings: Settings,
    *,
    token: str,
    signing_secret: str,
    make_engine: MakeEngine,
    store: StateStore,
    queue: WorkQueue,
    redis_client: redis.Redis | None,
) -> SlackFrontEnd:
    """The Slack front end with the bot token and signing secret, on the process's queue."""
    web = build_web_client(token, settings.slack.api_url)
    auth_test = AuthTest(web)  # one `auth.test` per process, for Bolt and the identity lookup
    engine = make_engine(SlackIdentify(web, redis_client, auth_test))
    deps = SlackDeps(
        engine,
        store,
        queue,
        queue_deadline_s=settings.queue.deadline_s,
        runai_url=settings.runai.url,
    )
    # Where a `response_url` may point: one policy for Bolt's middleware and the fast lane.
    urls = ResponseUrls.for_api(web.base_url)
    app = build_slack_app(
        client=web,
        signing_secret=signing_secret,
        deps=deps,
        auth_test=auth_test,
        response_urls=urls,
    )
    return SlackFrontEnd(
        app=app,
        gate=SlackGate(
            RequestVerifier(signing_secret),
            app,
            FastLane(deps, web, auth_test, urls),
        ),
        work=SlackWork(deps, web),
        poster=SlackPoster(web, runai_url=settings.runai.url),
        auth_test=auth_test,
        notices=deps.notices,
        engine=engine,
        session=web.shared,
    )
