"""Slack and Teams behind one interface, for the durability tests that must hold for both.

A `FrontEnd` starts a web replica (no worker) for its platform, asks the one question, and
reads back what its fake platform was shown: the "Diagnosing…" placeholder, the answer that
replaced it, and the notices only the asker saw. `front_ends` are the pytest params.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any, Protocol

import redis.asyncio

from bot.config import Settings
from bot.teams.render.card_parts import render_notice
from bot.work import RedisWorkQueue
from tests.bot.slack import harness as slack
from tests.bot.slack.fake_slack import FakeSlack
from tests.bot.slack.signing import slash_command_body
from tests.bot.teams import harness as teams
from tests.bot.teams.fake_teams import APP_ID, PASSWORD, TENANT, FakeTeams

__all__ = [
    "ASK",
    "DEAD",
    "DEMO",
    "FRONT_ENDS",
    "STREAM",
    "FrontEnd",
    "Posted",
    "SlackFront",
    "TeamsFront",
    "Web",
    "delivered_twice_before",
]

ASK = "why did training-job-42 in ml-team fail on cluster prod-a?"
STREAM = "{runai-why-work}:stream"
DEAD = "{runai-why-work}:dead"
DEMO = slack.DEMO
#: The pytest params of the front ends every test here runs against.
FRONT_ENDS = ("slack", "teams")


@dataclass(frozen=True)
class Posted:
    """A public message as the fake platform saw it: its reference, where, and what it says."""

    ref: str
    where: str
    text: str


class Web(Protocol):
    """A running replica: where its control plane is."""

    runai_url: str


class FrontEnd(Protocol):
    """One platform's way of asking and of showing (see the module docstring)."""

    private_posts: int
    """The posts one private notice makes (Teams: one, in the 1:1 chat; Slack: none)."""

    def env(self) -> dict[str, str]:
        """The platform's settings for `runai-why worker` in a process of its own."""
        ...

    def settings(self, runai_url: str, redis_url: str, **overrides: Any) -> Settings:
        """A replica's settings for this platform."""
        ...

    def running(self, redis_url: str, **settings: Any) -> AbstractAsyncContextManager[Web]:
        """One web replica of this platform (without a worker, unless `settings` say so)."""
        ...

    async def ask(self) -> None:
        """Ask `ASK` as the asker; the request is taken before the platform gets its answer."""
        ...

    async def placeholder(self) -> Posted:
        """The first public post, once there (the "Diagnosing…" placeholder)."""
        ...

    async def answer(self) -> Posted:
        """The first update of a public post, once there."""
        ...

    def working(self, posted: Posted) -> bool:
        """Whether `posted` says the asked workload is being diagnosed."""
        ...

    def diagnosed(self, posted: Posted) -> bool:
        """Whether `posted` is the answer: the demo's training-job-42 was OOM-killed."""
        ...

    async def barrier(self) -> None:
        """Ask for help and wait for it: handled after everything sent before (a private notice)."""
        ...

    def posts(self) -> list[Any]:
        """Every public post so far."""
        ...

    def updates(self) -> list[Any]:
        """Every update of a public post so far."""
        ...

    async def told(self) -> tuple[str, bool]:
        """The first notice to the asker: its text, and whether only the asker saw it."""
        ...

    def notice(self, text: str) -> str:
        """How a private notice saying `text` reads on this platform."""
        ...


class SlackFront:
    """Slack: a slash command, answered in the channel and through its `response_url`."""

    private_posts = 0  # ephemeral, or through the response URL

    def __init__(self, fake: FakeSlack) -> None:
        self.fake = fake

    def env(self) -> dict[str, str]:
        return {
            "SLACK_BOT_TOKEN": "xoxb-e2e-token",
            "SLACK_SIGNING_SECRET": slack.SECRET,
            "SLACK_API_URL": self.fake.base_url,
        }

    def settings(self, runai_url: str, redis_url: str, **overrides: Any) -> Settings:
        return slack._settings(self.fake, runai_url, redis_url, **overrides)

    @asynccontextmanager
    async def running(self, redis_url: str, **settings: Any) -> AsyncIterator[Web]:
        async with slack.running_bots(self.fake, redis_url, **settings) as [web]:
            self._web = web
            yield web

    async def ask(self) -> None:
        await self._web.send(slash_command_body(ASK, response_url=self.fake.response_url("r")))

    async def placeholder(self) -> Posted:
        [post] = await self.fake.wait_for_async("chat.postMessage", timeout=30)
        return Posted(post.response["ts"], post.body["channel"], post.text or "")

    async def answer(self) -> Posted:
        [update] = await self.fake.wait_for_async("chat.update", timeout=20)
        return Posted(update.body["ts"], update.body["channel"], slack.first_line(update))

    def working(self, posted: Posted) -> bool:
        return posted.text.startswith("Diagnosing training-job-42")

    def diagnosed(self, posted: Posted) -> bool:
        return posted.text.startswith("OOM_KILLED")

    async def barrier(self) -> None:
        await self._web.send(slash_command_body("help", response_url=self.fake.response_url("s")))
        await self.fake.wait_for_async("response_url", where=lambda c: c.key == "s")

    def posts(self) -> list[Any]:
        return self.fake.calls("chat.postMessage")

    def updates(self) -> list[Any]:
        return self.fake.calls("chat.update")

    async def told(self) -> tuple[str, bool]:
        [told] = await self.fake.wait_for_async("response_url", where=lambda c: c.key == "r")
        return told.body["text"], told.body["response_type"] == "ephemeral"

    def notice(self, text: str) -> str:
        return text


class TeamsFront:
    """Teams: a mention in a channel; private notices go to the asker's 1:1 chat."""

    private_posts = 1  # in the asker's 1:1 chat

    def __init__(self) -> None:
        self.fake = FakeTeams()

    def env(self) -> dict[str, str]:
        return {
            "TEAMS_APP_ID": APP_ID,
            "TEAMS_APP_PASSWORD": PASSWORD,
            "TEAMS_TENANT_ID": TENANT,
            "TEAMS_OPENID_METADATA_URL": f"{self.fake.url}/openid",
            "TEAMS_LOGIN_URL": f"{self.fake.url}/token",
        }

    def settings(self, runai_url: str, redis_url: str, **overrides: Any) -> Settings:
        return teams._settings(self.fake, runai_url, redis_url, **overrides)

    @asynccontextmanager
    async def running(self, redis_url: str, **settings: Any) -> AsyncIterator[Web]:
        async with teams.running_teams(redis_url, teams=self.fake, **settings) as [web]:
            self._web = web
            yield web

    async def ask(self) -> None:
        assert (await self._web.send(teams.mention(self._web, ASK))).status_code == 200

    async def placeholder(self) -> Posted:
        [post] = await self.fake.wait_for("send", timeout_s=30)
        return Posted(post.activity_id, post.conversation, json.dumps(post.body))

    async def answer(self) -> Posted:
        [update] = await self.fake.wait_for("update", timeout_s=20)
        return Posted(update.activity_id, update.conversation, json.dumps(update.body))

    def working(self, posted: Posted) -> bool:
        return "Diagnosing training-job-42" in posted.text

    def diagnosed(self, posted: Posted) -> bool:
        return "OOM_KILLED" in posted.text

    async def barrier(self) -> None:
        before = len(self.posts())
        await self._web.send(teams.mention(self._web, "help", kind="personal"))
        await self.fake.wait_for("send", count=before + 1)

    def posts(self) -> list[Any]:
        return self.fake.of("send")

    def updates(self) -> list[Any]:
        return self.fake.of("update")

    async def told(self) -> tuple[str, bool]:
        [told] = await self.fake.wait_for("send")
        return told.body.get("text", ""), told.conversation == "a:personal-29:u1"

    def notice(self, text: str) -> str:
        return str(render_notice(text)["text"])


async def delivered_twice_before(client: redis.asyncio.Redis) -> None:
    """Two consumers took the item and died (the second one reclaimed it from the first)."""
    queue = RedisWorkQueue(client, max_items=10, journal_ttl_s=60)
    assert len(await queue.take("dead-1", 1, 0)) == 1
    assert await queue.reclaim("dead-2", 0, 1) == []  # seen idle; taken on the next look
    assert len(await queue.reclaim("dead-2", 0, 1)) == 1
