"""The Teams front end of a process: built from `Settings`, mounted at `/api/messages`.

`build_teams` makes everything Teams needs on top of what the process already has (Redis,
the work queue, and the engine it is given for Teams' `identify`): the JWT verifier, the
outbound token, the Bot Connector client, the endpoint that takes activities into the
queue, the worker's handler of Teams items (`TeamsRuntime.work`) and the poster of pushed
answers (`bot.teams.push`). It is a `bot.web.frontend.FrontEnd`; the process builds it when
`TEAMS_APP_ID` is set, in `serve` and in `runai-why worker` alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import httpx
import redis.asyncio as redis
from pydantic import SecretStr
from starlette.routing import BaseRoute, Route

from bot.config import Settings
from bot.conversation import ConversationEngine
from bot.teams.auth import InboundVerifier
from bot.teams.charts import (
    ChartHost,
    MemoryChartStore,
    RedisChartStore,
    chart_routes,
    derive_key,
)
from bot.teams.connector import TeamsConnector
from bot.teams.endpoint import TeamsEndpoint
from bot.teams.identity import TeamsIdentify
from bot.teams.private_cards import MemoryPrivateCards, PrivateCards, RedisPrivateCards
from bot.teams.push import TeamsPoster, place
from bot.teams.responder import ChartUrl
from bot.teams.signing_keys import SigningKeys
from bot.teams.token import BotToken
from bot.teams.turns import ASKER_NAME, TeamsTurns, inbound_of
from bot.teams.work import TeamsWork
from bot.watch.engine import MakeEngine
from bot.work import MemoryWorkQueue, WorkQueue
from diagnosis import network_transport

__all__ = ["MESSAGES_PATH", "TeamsRuntime", "build_teams"]

MESSAGES_PATH = "/api/messages"
_TIMEOUT = httpx.Timeout(10.0, connect=5.0)


@dataclass
class TeamsRuntime:
    """What the Teams front end owns in a process: its HTTP client, endpoint and handler."""

    endpoint: TeamsEndpoint
    http: httpx.AsyncClient
    engine: ConversationEngine
    verifier: InboundVerifier
    connector: TeamsConnector
    turns: TeamsTurns
    """Runs one taken activity's turn."""
    work: TeamsWork
    """The worker's `Handler` of Teams items (`handlers["teams"]`)."""
    poster: TeamsPoster
    """Posts pushed answers (`posters["teams"]`)."""
    charts: ChartHost | None = None
    """Serves answer charts under signed URLs (only with `TEAMS_PUBLIC_URL`)."""
    platform: str = field(default="teams", init=False)

    def routes(self) -> list[BaseRoute]:
        """`POST /api/messages`, and `GET /teams/charts/...` when charts are hosted."""
        charts = chart_routes(self.charts) if self.charts is not None else []
        return [Route(MESSAGES_PATH, self.endpoint.handle, methods=["POST"]), *charts]

    async def drain(self, grace_s: float) -> None:
        """Nothing to drain: every answer goes through the queue."""
        del grace_s

    async def aclose(self) -> None:
        """Stop the key fetch and the engine's reads ahead, then close the HTTP pool.

        After the worker has stopped: its turns use the pool.
        """
        await self.verifier.aclose()
        await self.engine.aclose()
        await self.http.aclose()


def build_teams(
    settings: Settings,
    *,
    make_engine: MakeEngine,
    redis_client: redis.Redis | None,
    transport: httpx.AsyncBaseTransport | None = None,
    chart_url: ChartUrl | None = None,
    queue: WorkQueue | None = None,
) -> TeamsRuntime:
    """The Teams front end; `ConfigError` when a Teams setting is missing.

    `make_engine` gives it its engine around Teams' `identify` (the process's clients,
    store, authorizer and watches behind it). `transport` is the tests' seam for every
    outbound Teams call (keys, token, connector). `chart_url` stores an answer's memory
    chart and signs its URL (`bot.teams.charts`). `queue` is the process's work queue
    (None: one in memory).
    """
    app_id, password, tenant, login_url = settings.teams.secrets()
    http = httpx.AsyncClient(
        timeout=_TIMEOUT, transport=transport or network_transport(), follow_redirects=False
    )
    token = BotToken(login_url=login_url, app_id=app_id, password=SecretStr(password), http=http)
    connector = TeamsConnector(http, token)
    keys = SigningKeys(metadata_url=settings.teams.openid_metadata_url, http=http)
    verifier = InboundVerifier(
        app_id=app_id,
        issuer=settings.teams.token_issuer,
        keys=keys,
        max_lifetime_s=settings.teams.max_token_lifetime_s,
    )
    identify = TeamsIdentify(
        connector, tenant=tenant, inbound_of=inbound_of, redis_client=redis_client
    )
    engine = make_engine(identify, mention=lambda _: ASKER_NAME, place=place)
    turns = TeamsTurns(engine)
    charts = _chart_host(settings, password, redis_client)
    if chart_url is None and charts is not None:
        chart_url = charts.publish_report
    endpoint = TeamsEndpoint(
        verifier,
        connector,
        queue
        or MemoryWorkQueue(
            max_items=settings.queue.max_items,
            max_pushed=settings.queue.max_push_items,
            max_per_asker=settings.queue.max_per_asker,
        ),
        runai_url=settings.runai.url,
        deadline_s=settings.queue.deadline_s,
        dedupe_ttl_s=settings.teams.replay_window_s,  # as long as its token is accepted
    )
    private_cards: PrivateCards = (
        RedisPrivateCards(redis_client, ttl_s=settings.conversation.state_ttl_s)
        if redis_client is not None
        else MemoryPrivateCards(ttl_s=settings.conversation.state_ttl_s)
    )
    work = TeamsWork(
        connector,
        turns,
        runai_url=settings.runai.url,
        chart_url=chart_url,
        private_cards=private_cards,
    )
    poster = TeamsPoster(
        connector, app_id=app_id, runai_url=settings.runai.url, chart_url=chart_url
    )
    return TeamsRuntime(
        endpoint=endpoint,
        http=http,
        engine=engine,
        verifier=verifier,
        turns=turns,
        work=work,
        poster=poster,
        connector=connector,
        charts=charts,
    )


def _chart_host(
    settings: Settings, password: str, redis_client: redis.Redis | None
) -> ChartHost | None:
    """The bot-hosted chart images, signed with a key derived from the app password."""
    if settings.teams.public_url is None:
        return None  # answers show the sparkline instead
    store = RedisChartStore(redis_client) if redis_client is not None else MemoryChartStore()
    return ChartHost(
        store, derive_key(password), settings.teams.public_url, ttl_s=settings.teams.chart_ttl_s
    )
