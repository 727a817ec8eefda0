"""The Teams bot under test over real HTTP: the real ASGI app, the simulator, the fake Teams.

`running_teams` serves the fake identity provider + Bot Connector, the Run:ai simulator and
one or more replicas of `runai-why serve` configured for Teams only; `TeamsBot.send` POSTs an
activity to `/api/messages` with a freshly signed Bot Framework token.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from pydantic import SecretStr

from bot.app.demo.scenarios import bundled_scenario
from bot.app.runtime import Runtime, build_runtime
from bot.app.server import create_asgi_app
from bot.config import Settings
from diagnosis.http.transport import network_transport
from runai_sim.app import Simulator
from runai_sim.scenario import Scenario
from runai_sim.server import serve, serve_asgi
from tests.bot.teams.fake_teams import APP_ID, BOT_ID, PASSWORD, TENANT, FakeTeams

__all__ = ["CHANNEL", "DEMO", "TeamsBot", "chat_click", "click", "mention", "running_teams"]

DEMO = bundled_scenario("demo")
CHANNEL = "19:incident-room@thread.tacv2"
#: Test users: each reads everything in the demo (tenant-wide Viewer) unless a test says so.
ALLOWED_EMAIL = "bob@acme.ai"
USERS = ("29:u1", "29:u2", "29:u3")
_ids = itertools.count(1_700_000_000_000)


def _activity(
    *,
    user: str,
    conversation: str,
    kind: str,
    service_url: str,
    tenant: str = TENANT,
    **fields: Any,
) -> dict[str, Any]:
    return {
        "type": "message",
        "id": str(next(_ids)),
        "channelId": "msteams",
        "serviceUrl": service_url,
        "from": {"id": user, "aadObjectId": f"aad-{user}", "name": user},
        "recipient": {"id": BOT_ID, "name": "runai-why"},
        "conversation": {"id": conversation, "conversationType": kind, "tenantId": tenant},
        "channelData": {"tenant": {"id": tenant}},
        **fields,
    }


def mention(
    bot: TeamsBot,
    text: str,
    *,
    user: str = "29:u1",
    thread: str | None = None,
    kind: str = "channel",
    mentioned: bool = True,
    tenant: str = TENANT,
) -> dict[str, Any]:
    """A message in a channel thread (`thread`: its root; None: a new post) or a chat."""
    at = "<at>runai-why</at> " if mentioned else ""
    activity = _activity(
        user=user,
        conversation="",
        kind=kind,
        service_url=bot.service_url,
        tenant=tenant,
        text=f"{at}{text}",
        textFormat="plain",
    )
    if mentioned:
        activity["entities"] = [
            {
                "type": "mention",
                "text": "<at>runai-why</at>",
                "mentioned": {"id": BOT_ID, "name": "runai-why"},
            }
        ]
    if kind == "channel":
        root = thread or activity["id"]
        activity["conversation"]["id"] = f"{CHANNEL};messageid={root}"
        if thread:
            activity["replyToId"] = thread
    else:
        activity["conversation"]["id"] = f"a:{kind}-chat-1"
    return activity


def click(
    bot: TeamsBot, value: str, *, card: str, thread: str, user: str = "29:u1"
) -> dict[str, Any]:
    """An `Action.Submit` on the card `card` in the channel thread `thread`."""
    return _activity(
        user=user,
        conversation=f"{CHANNEL};messageid={thread}",
        kind="channel",
        service_url=bot.service_url,
        replyToId=card,
        value={"runai_why": "choice", "value": value},
    )


def chat_click(
    bot: TeamsBot, data: dict[str, Any], *, card: str, chat: str, user: str = "29:u1"
) -> dict[str, Any]:
    """An `Action.Submit` of `data` on the card `card` in the 1:1 chat `chat`."""
    return _activity(
        user=user,
        conversation=chat,
        kind="personal",
        service_url=bot.service_url,
        replyToId=card,
        value=data,
    )


@dataclass
class TeamsBot:
    """One running replica and what it talks to."""

    url: str
    teams: FakeTeams
    http: httpx.AsyncClient
    runtime: Runtime
    runai_url: str
    """The simulator this replica diagnoses against (its `RUNAI_URL`)."""

    @property
    def service_url(self) -> str:
        """The `serviceUrl` activities carry: the fake Bot Connector (with Teams' `/`)."""
        return self.teams.url + "/"

    async def send(
        self, activity: dict[str, Any], *, token: str | None = None, **headers: str
    ) -> httpx.Response:
        """POST `activity` with a valid token (or `token`)."""
        bearer = self.teams.token() if token is None else token
        if bearer:
            headers = {"Authorization": f"Bearer {bearer}", **headers}
        return await self.http.post(f"{self.url}/api/messages", json=activity, headers=headers)

    async def send_raw(self, body: bytes) -> httpx.Response:
        """POST `body` as it is, with a valid token."""
        headers = {"Authorization": f"Bearer {self.teams.token()}"}
        return await self.http.post(f"{self.url}/api/messages", content=body, headers=headers)


def _settings(teams: FakeTeams, runai_url: str, redis_url: str, **overrides: Any) -> Settings:
    return Settings(
        _env_file=None,
        teams_app_id=APP_ID,
        teams_app_password=SecretStr(PASSWORD),
        teams_tenant_id=TENANT,
        teams_openid_metadata_url=f"{teams.url}/openid",
        teams_login_url=f"{teams.url}/token",
        redis_url=SecretStr(redis_url),
        runai_url=runai_url,
        runai_client_id="runai-why-demo",
        runai_client_secret=SecretStr("demo-secret"),
        runai_retries=0,
        **overrides,
    )


@asynccontextmanager
async def running_teams(
    redis_url: str,
    *,
    scenario: Scenario = DEMO,
    replicas: int = 1,
    teams: FakeTeams | None = None,
    teams_watches: Sequence[Mapping[str, Any]] = (),
    **settings: Any,
) -> AsyncIterator[list[TeamsBot]]:
    """`replicas` bots configured for Teams only, on one simulator and one fake Teams.

    `teams_watches` are `WATCHES` entries of Teams channels: each gets the fake Bot
    Connector's address as its `service_url`, known once it runs.
    """
    fake = teams or FakeTeams()
    for user in USERS:
        fake.members.setdefault(
            user, {"email": ALLOWED_EMAIL, "userPrincipalName": ALLOWED_EMAIL, "tenantId": TENANT}
        )
    async with AsyncExitStack() as stack:
        fake.url = await stack.enter_async_context(serve_asgi(fake.app()))
        runai_url = await stack.enter_async_context(serve(Simulator(scenario)))
        # One shared TLS context (`network_transport`): no CA bundle loaded per test.
        http = await stack.enter_async_context(
            httpx.AsyncClient(timeout=10, transport=network_transport())
        )
        if teams_watches:
            address = {"platform": "teams", "service_url": fake.url + "/"}
            settings["watches"] = [{**w, **address} for w in teams_watches]
        bots = []
        for _ in range(replicas):
            runtime = build_runtime(
                _settings(fake, runai_url, redis_url, **settings), clock=lambda: scenario.now
            )
            url = await stack.enter_async_context(
                serve_asgi(create_asgi_app(runtime), lifespan="on")
            )
            bots.append(TeamsBot(url, fake, http, runtime, runai_url))
        yield bots
