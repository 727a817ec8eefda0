"""`runai-why serve`: the Slack app over HTTP (Starlette + uvicorn) or Socket Mode, and Teams.

HTTP mode serves `POST /slack/events` (commands, events and interactivity on one URL),
`GET /healthz` (the process is up), `GET /readyz` (settings loaded, Redis answering a PING;
it also shows the authorization mode, so `AUTHZ_MODE=off` is visible) and, with
`METRICS_TOKEN`, `GET /metrics` (bearer token). `METRICS_PORT` serves `/metrics` alone on
its own port, for in-cluster scraping (`bot.ops.metrics_server`).
Every Slack request passes the gate first (`bot.slack.verify`: size, timestamp, signature on
the raw bytes; then `bot.slack.payloads`: shape); only what passes reaches Bolt, whose
listeners take it into the durable work queue (`bot.work`) before Slack gets its answer.
With `TEAMS_APP_ID` set it also serves `POST /api/messages` (`bot.teams.runtime`), which
takes activities into the same queue; Slack, Teams or both may be configured. uvicorn runs
with `bot.app.http_limits`: deadlines for a request's head and body, and a connection cap.

`serve` also runs a worker that answers queued requests (`EMBEDDED_WORKER`, default on);
`runai-why worker` runs only that (`run_worker`). On SIGTERM both stop taking work, let what
runs finish within `SHUTDOWN_GRACE_S`, and hand the rest back to the queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import signal
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from http import HTTPStatus
from typing import TYPE_CHECKING

import httpx
import redis.asyncio as redis
import structlog
import uvicorn
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.adapter.starlette.async_handler import (
    to_async_bolt_request,
    to_starlette_response,
)
from slack_bolt.async_app import AsyncApp, AsyncBoltContext
from slack_bolt.request.async_internals import build_async_context
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from uvicorn.config import STARTUP_FAILURE

from bot.app.engines import serving_engine
from bot.app.http_limits import HttpLimits
from bot.app.pages import page_routes
from bot.app.processes import reuse_port_socket
from bot.app.pushing import PushRuntime, build_push
from bot.authz import Authorizer
from bot.config import DEDUPE_TTL_S, ConfigError, Settings
from bot.conversation import MemoryStore, RedisStore, StateStore
from bot.durable.connect import connect_redis, redis_health
from bot.durable.flight import FLIGHT_LOCK_TTL_S, Flights, LocalLimit, RedisSemaphore
from bot.ops import metrics
from bot.ops.audit import build_audit_sink
from bot.ops.metrics_server import start_metrics_server
from bot.ops.observe import begin_request, observe_stage
from bot.ops.upstream_metrics import CountingTransport
from bot.push import Poster, SlackPoster
from bot.slack.app import build_slack_app, build_web_client
from bot.slack.authorize import AuthTest
from bot.slack.deps import SlackDeps
from bot.slack.identity import SlackIdentify
from bot.slack.intake import Notices
from bot.slack.payloads import check_body
from bot.slack.verify import Rejection, RequestVerifier
from bot.slack.work import SlackWork
from bot.web.body import Refused, read_body
from bot.work import Handler, MemoryWorkQueue, RedisWorkQueue, Worker, WorkQueue
from diagnosis import (
    NO_LIMIT,
    CallLimiter,
    KubeConnector,
    KubeDirectory,
    RunaiClient,
    network_transport,
)

if TYPE_CHECKING:
    from bot.teams.runtime import TeamsRuntime

__all__ = ["Runtime", "build_runtime", "create_asgi_app", "run_server", "run_worker"]


@dataclass
class Runtime:
    """What one process owns while it serves: the clients and the Slack app."""

    app: AsyncApp | None
    verifier: RequestVerifier | None
    store: StateStore
    runai: RunaiClient | None
    redis: redis.Redis | None
    authorizer: Authorizer
    queue: WorkQueue
    kube: KubeDirectory | None = None
    teams: TeamsRuntime | None = None
    metrics_token: str | None = None
    worker: Worker | None = None
    """This process's worker (embedded in `serve`, or the whole of `runai-why worker`)."""
    shutdown_grace_s: float = 20.0
    notices: Notices | None = None
    """Slack's private notices sent beside acks: drained on shutdown."""
    pages: list[Route] = field(default_factory=list)
    """`/privacy` and `/terms` (`bot.app.pages`), which the Teams app manifest links."""
    push: PushRuntime | None = None
    """Watches and alerts (`bot.app.pushing`): the alert route, the poller (where a worker runs)."""


def _store(settings: Settings) -> tuple[StateStore, redis.Redis | None]:
    log = structlog.get_logger(__name__)
    if settings.redis.url is None:
        log.warning("state_store_in_memory", reason="REDIS_URL is not set; one process only")
        return MemoryStore(ttl_s=settings.conversation.state_ttl_s), None
    try:
        client = connect_redis(
            settings.redis.url.get_secret_value(),
            max_connections=settings.redis.max_connections,
            pool_timeout_s=settings.redis.pool_timeout_s,
        )
    except ValueError as error:
        raise ConfigError(str(error)) from error
    store = RedisStore(
        client, ttl_s=settings.conversation.state_ttl_s, lock_ttl_s=settings.queue.claim_idle_s
    )
    return store, client


def _queue(settings: Settings, client: redis.Redis | None) -> WorkQueue:
    if client is None:
        return MemoryWorkQueue(max_items=settings.queue.max_items)
    return RedisWorkQueue(client, max_items=settings.queue.max_items, journal_ttl_s=DEDUPE_TTL_S)


def _runai_limiter(settings: Settings, client: redis.Redis | None) -> CallLimiter:
    """The bound on concurrent Run:ai calls: across replicas with Redis, else this process's."""
    limit = settings.runai.max_concurrent_calls
    if limit == 0:
        return NO_LIMIT
    if client is None:
        return LocalLimit(limit)
    # A call's attempt takes at most connect + write + read timeouts; past that it is dead.
    return RedisSemaphore(client, limit=limit, lease_s=3 * settings.runai.timeout_s + 5)


def _counting(upstream: str) -> Callable[[httpx.AsyncBaseTransport], httpx.AsyncBaseTransport]:
    def wrap(transport: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
        return CountingTransport(transport, upstream)

    return wrap


def build_runtime(
    settings: Settings,
    *,
    runai: RunaiClient | None = None,
    kube: KubeConnector | None = None,
    clock: Callable[[], datetime | None] = lambda: None,
    socket_mode: bool = False,
    teams_transport: httpx.AsyncBaseTransport | None = None,
    worker: bool | None = None,
) -> Runtime:
    """Validate settings (fail fast with a clear message) and build every collaborator.

    `runai`, `kube`, `clock` and `teams_transport` (every outbound Teams call) are seams for
    tests and the simulator; production passes none of them and gets clients built from the
    settings (KUBE_CLUSTERS for Tier 2).
    Slack is served unless only Teams is configured. `worker` (default `EMBEDDED_WORKER`)
    gives the process a worker for the queue.
    """
    # One ConfigError naming every missing setting of the platforms configured (and Run:ai's).
    slack_secrets = settings.serve_secrets(socket_mode=socket_mode, runai=runai is None)
    slack = slack_secrets is not None
    if slack_secrets is not None:
        token, signing_secret, _ = slack_secrets
    teams_settings = settings.teams.secrets() if settings.teams.configured else None
    store, redis_client = _store(settings)
    client: RunaiClient | None = None
    if runai is None:
        client = RunaiClient(
            settings.runai.config(),
            transport=CountingTransport(network_transport(), "runai"),
            limiter=_runai_limiter(settings, redis_client),
        )
        runai = client
    owned_kube: KubeDirectory | None = None
    if kube is None:
        access = settings.kube.access()
        counted = _counting("kubernetes")
        kube = owned_kube = KubeDirectory(access, wrap=counted) if len(access) else None
    # A leader's lock outlives it by at most the claim idle time: a request reclaimed from a
    # dead worker never waits out that worker's lock on its own diagnosis.
    flights = Flights(
        redis_client,
        report_ttl_s=settings.diagnosis.cache_ttl_s,
        lock_ttl_s=min(FLIGHT_LOCK_TTL_S, settings.queue.claim_idle_s),
    )
    authorizer = Authorizer.from_settings(settings, runai, redis_client, flights)
    audit = build_audit_sink(redis_client)
    queue = _queue(settings, redis_client)
    handlers: dict[str, Handler] = {}  # what a worker answers, per platform
    app: AsyncApp | None = None
    deps: SlackDeps | None = None
    posters: dict[str, Poster] = {}
    auth_test: AuthTest | None = None
    if slack:
        web = build_web_client(token, settings.slack.api_url)
        auth_test = AuthTest(web)  # one `auth.test` per process, for Bolt and the identity lookup
        posters["slack"] = SlackPoster(web, runai_url=settings.runai.url)
    push = build_push(
        settings,
        runai=runai,
        lister=runai,
        kube=kube,
        store=store,
        redis_client=redis_client,
        queue=queue,
        posters=posters,
        flights=flights,
        audit=audit,
        clock=clock,
        slack_team=_slack_team(auth_test) if auth_test is not None else None,
    )
    handlers["push"] = push.work
    if slack:
        assert auth_test is not None  # noqa: S101 - built above whenever Slack is served
        engine = serving_engine(
            settings,
            SlackIdentify(web, redis_client, auth_test),
            runai=runai,
            kube=kube,
            store=store,
            authorizer=authorizer,
            audit=audit,
            clock=clock,
            flights=flights,
            watch=push.commands,
        )
        deps = SlackDeps(
            engine,
            store,
            queue,
            queue_deadline_s=settings.queue.deadline_s,
            runai_url=settings.runai.url,
        )
        app = build_slack_app(
            client=web, signing_secret=signing_secret, deps=deps, auth_test=auth_test
        )
        handlers["slack"] = SlackWork(deps, web)
    teams = None
    if teams_settings is not None:
        # The Teams SDK's models cost ~50 MB of memory: loaded only where Teams is served.
        from bot.teams.runtime import build_teams  # noqa: PLC0415

        teams = build_teams(
            settings,
            runai=runai,
            kube=kube,
            store=store,
            redis_client=redis_client,
            authorizer=authorizer,
            audit=audit,
            clock=clock,
            transport=teams_transport,
            flights=flights,
            queue=queue,
            watch=push.commands,
            posters=posters,
        )
        handlers["teams"] = teams.work
    consumer = None
    if settings.queue.embedded_worker if worker is None else worker:
        consumer = Worker(
            queue,
            handlers,
            concurrency=settings.diagnosis.max_concurrent,
            claim_idle_s=settings.queue.claim_idle_s,
            max_deliveries=settings.queue.max_deliveries,
        )
    return Runtime(
        app=app,
        verifier=RequestVerifier(signing_secret) if slack else None,
        store=store,
        runai=client,
        redis=redis_client,
        authorizer=authorizer,
        queue=queue,
        kube=owned_kube,
        teams=teams,
        metrics_token=(
            settings.metrics.token.get_secret_value() if settings.metrics.token else None
        ),
        worker=consumer,
        shutdown_grace_s=settings.queue.shutdown_grace_s,
        notices=deps.notices if deps is not None else None,
        pages=page_routes(settings),
        push=push,
    )


def _slack_team(auth_test: AuthTest) -> Callable[[], Awaitable[str]]:
    """The installing workspace's team ID (from the one `auth.test`), for pushed threads."""

    async def team() -> str:
        answer = await auth_test.answer()
        return str(answer.get("team_id") or "")

    return team


def _rejected(rejection: Rejection) -> Response:
    structlog.get_logger(__name__).warning(
        "slack_request_rejected", status=int(rejection.status), reason=rejection.reason
    )
    busy = rejection.status is HTTPStatus.SERVICE_UNAVAILABLE
    headers = {"Retry-After": "1"} if busy else None  # not taken: Slack sends it again
    return PlainTextResponse(rejection.status.phrase, status_code=rejection.status, headers=headers)


async def slack_events(runtime: Runtime, request: Request) -> Response:
    """One Slack request: a request ID for its logs, then the gate and Bolt; timed as `ack`."""
    started = time.perf_counter()
    begin_request()
    try:
        return await _gate_then_bolt(runtime, request)
    finally:
        observe_stage("ack", time.perf_counter() - started)


async def _gate_then_bolt(runtime: Runtime, request: Request) -> Response:
    """The gate, then Bolt: nothing unverified or malformed is parsed, logged or dispatched."""
    verifier = runtime.verifier
    if runtime.app is None or verifier is None:
        return PlainTextResponse("Slack is not configured", status_code=HTTPStatus.NOT_FOUND)
    rejection = verifier.check_length(request.headers)
    if rejection is not None:
        return _rejected(rejection)
    try:
        body = await read_body(request, verifier.max_body_bytes)
    except Refused as refused:
        return _rejected(Rejection(refused.status, f"body {refused.reason}"))
    rejection = verifier.verify(request.headers, body)
    if rejection is not None:
        return _rejected(rejection)
    checked = check_body(request.headers.get("content-type", ""), body)
    if checked.problem is not None:
        return _rejected(Rejection(HTTPStatus.BAD_REQUEST, checked.problem))
    bolt_request = to_async_bolt_request(request, body)
    if bolt_request.body != checked.data:
        # Bolt reads any form body containing the word "payload" as an interaction, so
        # `/runai-why why did payload-etl fail` would reach no listener: use what the
        # body actually says.
        bolt_request.body = checked.data
        bolt_request.context = build_async_context(AsyncBoltContext(), checked.data)
    response = await runtime.app.async_dispatch(bolt_request)
    return to_starlette_response(response)


def create_asgi_app(runtime: Runtime) -> Starlette:
    """The ASGI app; its lifespan closes the HTTP and Redis clients on shutdown."""

    async def events(request: Request) -> Response:
        return await slack_events(runtime, request)

    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def readyz(_: Request) -> Response:
        # Without REDIS_URL, state is in this process's memory: there is no Redis to ask.
        health = "off" if runtime.redis is None else await redis_health(runtime.redis)
        # Busy (every pooled connection in use) is overload, not an outage: still ready, so
        # that the pod is not taken out of rotation for being loaded; the body says so.
        ok = health != "unreachable"
        status = "ready" if ok else "state store unreachable"
        body = {"status": status, "redis": health, **runtime.authorizer.status()}
        return JSONResponse(body, 200 if ok else 503)

    async def metrics_route(request: Request) -> Response:
        if runtime.metrics_token is None:
            return PlainTextResponse("Not Found", status_code=404)
        sent = request.headers.get("authorization", "")
        if not hmac.compare_digest(sent.encode(), f"Bearer {runtime.metrics_token}".encode()):
            return PlainTextResponse(
                "Unauthorized", status_code=401, headers={"WWW-Authenticate": "Bearer"}
            )
        return Response(metrics.exposition(), media_type=metrics.CONTENT_TYPE_LATEST)

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        if runtime.worker is not None:
            runtime.worker.start()
            if runtime.push is not None:
                runtime.push.start()
        try:
            yield
        finally:
            await _close(runtime)

    teams = runtime.teams.routes() if runtime.teams is not None else []
    alerts = runtime.push.routes if runtime.push is not None else []
    return Starlette(
        routes=[
            Route("/slack/events", events, methods=["POST"]),
            *teams,
            *alerts,
            Route("/healthz", healthz, methods=["GET"]),
            Route("/readyz", readyz, methods=["GET"]),
            Route("/metrics", metrics_route, methods=["GET"]),
            *runtime.pages,
        ],
        lifespan=lifespan,
    )


def run_server(
    settings: Settings, *, host: str, socket_mode: bool, reuse_port: bool = False
) -> None:
    """Serve until interrupted: HTTP on `host:PORT`, or Socket Mode with SLACK_APP_TOKEN.

    `reuse_port`: one of several processes on `PORT` (`bot.app.processes`), which binds with
    `SO_REUSEPORT` so that the kernel spreads connections over them.
    """
    if socket_mode:
        asyncio.run(_socket_mode(settings, host))
        return
    sockets = [reuse_port_socket(host, settings.http.port)] if reuse_port else None
    runtime = build_runtime(settings)
    start_metrics_server(settings.metrics.port, host)
    config = uvicorn.Config(
        create_asgi_app(runtime),
        host=host,
        port=settings.http.port,
        log_config=None,
        proxy_headers=True,
        timeout_graceful_shutdown=max(1, round(settings.queue.shutdown_grace_s)),
        **HttpLimits.from_settings(settings).uvicorn_options(),  # slow and numerous clients
    )
    server = uvicorn.Server(config)
    server.run(sockets=sockets)
    if not server.started:  # as `uvicorn.run` does: a start-up that failed exits 3
        sys.exit(STARTUP_FAILURE)


def run_worker(settings: Settings, *, host: str) -> None:
    """`runai-why worker`: answer queued requests until SIGTERM (or Ctrl-C).

    It serves no requests, but its diagnoses are counted where they run: `/metrics` on
    `METRICS_PORT` at `host`, as `serve` does, so a split deployment loses no series.
    """
    if settings.redis.url is None:
        raise ConfigError(
            "set REDIS_URL for `runai-why worker`: without Redis the queue lives inside "
            "`runai-why serve`, which answers its own requests"
        )
    asyncio.run(_worker_main(settings, host))


def _stop_on_signals() -> asyncio.Event:
    """An event set by SIGTERM or SIGINT (the default handlers would skip the hand-back)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    return stop


async def _worker_main(settings: Settings, host: str) -> None:
    runtime = build_runtime(settings, worker=True)
    assert runtime.worker is not None  # noqa: S101 - worker=True always builds one
    start_metrics_server(settings.metrics.port, host)
    stop = _stop_on_signals()
    runtime.worker.start()
    if runtime.push is not None:
        runtime.push.start()
    try:
        await stop.wait()
    finally:
        await _close(runtime)


async def _socket_mode(settings: Settings, host: str) -> None:
    slack_secrets = settings.serve_secrets(socket_mode=True, runai=True)
    assert slack_secrets is not None  # noqa: S101 - Socket Mode always serves Slack
    app_token = slack_secrets[2]
    runtime = build_runtime(settings, socket_mode=True)
    assert runtime.app is not None  # noqa: S101 - socket mode always builds the Slack app
    start_metrics_server(settings.metrics.port, host)
    handler = AsyncSocketModeHandler(runtime.app, app_token)
    stop = _stop_on_signals()
    if runtime.worker is not None:
        runtime.worker.start()
        if runtime.push is not None:
            runtime.push.start()
    try:
        await handler.connect_async()  # type: ignore[no-untyped-call]
        await stop.wait()
        await handler.close_async()  # type: ignore[no-untyped-call]
    finally:
        await _close(runtime)


async def _close(runtime: Runtime) -> None:
    """Send the notices under way and stop the worker at once, then close the clients.

    Both wait within the one grace period (the worker finishes or hands back), so a SIGTERM
    is done within `SHUTDOWN_GRACE_S` plus the hand-back, as the README promises for
    Kubernetes' `terminationGracePeriodSeconds`.
    """
    grace_s = runtime.shutdown_grace_s
    stopping: list[Awaitable[object]] = []
    if runtime.notices is not None:
        stopping.append(runtime.notices.drain(grace_s))
    if runtime.worker is not None:
        stopping.append(runtime.worker.stop(grace_s))
    if runtime.push is not None:
        stopping.append(runtime.push.stop())
    await asyncio.gather(*stopping)
    if runtime.teams is not None:
        await runtime.teams.aclose()
    if runtime.runai is not None:
        await runtime.runai.aclose()
    if runtime.redis is not None:
        await runtime.redis.aclose()
    if runtime.kube is not None:
        await runtime.kube.aclose()
