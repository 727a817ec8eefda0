"""`runai-why serve`: the Slack app over HTTP (Starlette + uvicorn) or Socket Mode.

HTTP mode serves `POST /slack/events` (commands, events and interactivity on one URL),
`GET /healthz` (the process is up) and `GET /readyz` (settings loaded, state store reachable;
it also shows the authorization mode, so `AUTHZ_MODE=off` is visible).
Every Slack request passes the gate first (`bot.slack.verify`: size, timestamp, signature on
the raw bytes; then `bot.slack.payloads`: shape); only what passes reaches Bolt, whose
listeners take it into the durable work queue (`bot.work`) before Slack gets its answer.

`serve` also runs a worker that answers queued requests (`EMBEDDED_WORKER`, default on);
`runai-why worker` runs only that (`run_worker`). On SIGTERM both stop taking work, let what
runs finish within `SHUTDOWN_GRACE_S`, and hand the rest back to the queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import datetime
from http import HTTPStatus

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

from bot.audit import build_audit_sink
from bot.authz import Authorizer
from bot.conversation import Access, ConversationEngine, MemoryStore, RedisStore, StateStore
from bot.settings import DEDUPE_TTL_S, ConfigError, Settings
from bot.slack.app import build_slack_app, build_web_client
from bot.slack.deps import SlackDeps
from bot.slack.identity import SlackIdentify
from bot.slack.payloads import check_body
from bot.slack.verify import Rejection, RequestVerifier
from bot.slack.work import SlackWork
from bot.work import MemoryWorkQueue, RedisWorkQueue, Worker, WorkQueue
from diagnosis import KubeAccess, KubeConnector, KubeDirectory, RunaiClient

__all__ = ["Runtime", "build_runtime", "create_asgi_app", "run_server", "run_worker"]


@dataclass
class Runtime:
    """What one process owns while it serves: the clients and the Slack app."""

    app: AsyncApp
    verifier: RequestVerifier
    store: StateStore
    runai: RunaiClient | None
    redis: redis.Redis | None
    authorizer: Authorizer
    queue: WorkQueue
    kube: KubeDirectory | None = None
    worker: Worker | None = None
    """This process's worker (embedded in `serve`, or the whole of `runai-why worker`)."""
    shutdown_grace_s: float = 20.0


def _store(settings: Settings) -> tuple[StateStore, redis.Redis | None]:
    log = structlog.get_logger(__name__)
    if settings.redis_url is None:
        log.warning("state_store_in_memory", reason="REDIS_URL is not set; one process only")
        return MemoryStore(ttl_s=settings.state_ttl_s), None
    client = redis.Redis.from_url(
        settings.redis_url.get_secret_value(),
        decode_responses=True,
        socket_timeout=5,
        socket_connect_timeout=5,
        health_check_interval=30,
    )
    store = RedisStore(client, ttl_s=settings.state_ttl_s, lock_ttl_s=settings.queue_claim_idle_s)
    return store, client


def _queue(settings: Settings, client: redis.Redis | None) -> WorkQueue:
    if client is None:
        return MemoryWorkQueue(max_items=settings.queue_max_items)
    return RedisWorkQueue(client, max_items=settings.queue_max_items, journal_ttl_s=DEDUPE_TTL_S)


def build_runtime(
    settings: Settings,
    *,
    runai: RunaiClient | None = None,
    kube: KubeConnector | None = None,
    clock: Callable[[], datetime | None] = lambda: None,
    socket_mode: bool = False,
    worker: bool | None = None,
) -> Runtime:
    """Validate settings (fail fast with a clear message) and build every collaborator.

    `runai`, `kube` and `clock` are seams for tests and the simulator; production passes
    none of them and gets clients built from the settings (KUBE_CLUSTERS for Tier 2).
    `worker` (default `EMBEDDED_WORKER`) gives the process a worker for the queue.
    """
    token, signing_secret, _ = settings.serve_secrets(socket_mode=socket_mode, runai=runai is None)
    client: RunaiClient | None = None
    if runai is None:
        client = RunaiClient(settings.runai_config())
        runai = client
    owned_kube: KubeDirectory | None = None
    if kube is None:
        access = KubeAccess.parse(settings.kube_clusters, env=os.environ)
        kube = owned_kube = KubeDirectory(access) if len(access) else None
    store, redis_client = _store(settings)
    web = build_web_client(token, settings.slack_api_url)
    authorizer = Authorizer.from_settings(settings, runai, redis_client)
    authz = Access(
        authorizer,
        SlackIdentify(web, redis_client),
        channel_projects=settings.channel_projects,
    )
    engine = ConversationEngine(
        runai=runai,
        kube=kube,
        store=store,
        channel_defaults=settings.channel_default_clusters,
        max_concurrent=settings.max_concurrent_diagnoses,
        deadline_s=settings.diagnosis_deadline_s,
        clock=clock,
        audit=build_audit_sink(redis_client),
        access=authz,
    )
    queue = _queue(settings, redis_client)
    deps = SlackDeps(
        engine,
        store,
        queue,
        queue_deadline_s=settings.queue_deadline_s,
        runai_url=settings.runai_url,
    )
    app = build_slack_app(client=web, signing_secret=signing_secret, deps=deps)
    consumer = None
    if settings.embedded_worker if worker is None else worker:
        consumer = Worker(
            queue,
            {"slack": SlackWork(deps, web)},
            concurrency=settings.max_concurrent_diagnoses,
            claim_idle_s=settings.queue_claim_idle_s,
            max_deliveries=settings.queue_max_deliveries,
        )
    return Runtime(
        app=app,
        verifier=RequestVerifier(signing_secret),
        store=store,
        runai=client,
        redis=redis_client,
        authorizer=authorizer,
        queue=queue,
        kube=owned_kube,
        worker=consumer,
        shutdown_grace_s=settings.shutdown_grace_s,
    )


def _rejected(rejection: Rejection) -> Response:
    structlog.get_logger(__name__).warning(
        "slack_request_rejected", status=int(rejection.status), reason=rejection.reason
    )
    return PlainTextResponse(rejection.status.phrase, status_code=rejection.status)


async def _capped_body(request: Request, limit: int) -> bytes | None:
    """The raw body, or None as soon as it grows past `limit` (whatever Content-Length said)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


async def slack_events(runtime: Runtime, request: Request) -> Response:
    """The gate, then Bolt: nothing unverified or malformed is parsed, logged or dispatched."""
    verifier = runtime.verifier
    rejection = verifier.check_length(request.headers)
    if rejection is not None:
        return _rejected(rejection)
    body = await _capped_body(request, verifier.max_body_bytes)
    if body is None:
        return _rejected(Rejection(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "body over the size cap"))
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
        ok = await runtime.store.ping()
        status = "ready" if ok else "state store unreachable"
        return JSONResponse({"status": status, **runtime.authorizer.status()}, 200 if ok else 503)

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        if runtime.worker is not None:
            runtime.worker.start()
        try:
            yield
        finally:
            await _close(runtime)

    return Starlette(
        routes=[
            Route("/slack/events", events, methods=["POST"]),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/readyz", readyz, methods=["GET"]),
        ],
        lifespan=lifespan,
    )


def run_server(settings: Settings, *, host: str, socket_mode: bool) -> None:
    """Serve until interrupted: HTTP on `host:PORT`, or Socket Mode with SLACK_APP_TOKEN."""
    if socket_mode:
        asyncio.run(_socket_mode(settings))
        return
    runtime = build_runtime(settings)
    uvicorn.run(
        create_asgi_app(runtime),
        host=host,
        port=settings.port,
        log_config=None,
        proxy_headers=True,
        timeout_graceful_shutdown=max(1, round(settings.shutdown_grace_s)),
    )


def run_worker(settings: Settings) -> None:
    """`runai-why worker`: answer queued requests until SIGTERM (or Ctrl-C)."""
    if settings.redis_url is None:
        raise ConfigError(
            "set REDIS_URL for `runai-why worker`: without Redis the queue lives inside "
            "`runai-why serve`, which answers its own requests"
        )
    asyncio.run(_worker_main(settings))


def _stop_on_signals() -> asyncio.Event:
    """An event set by SIGTERM or SIGINT (the default handlers would skip the hand-back)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    return stop


async def _worker_main(settings: Settings) -> None:
    runtime = build_runtime(settings, worker=True)
    assert runtime.worker is not None  # noqa: S101 - worker=True always builds one
    stop = _stop_on_signals()
    runtime.worker.start()
    try:
        await stop.wait()
    finally:
        await _close(runtime)


async def _socket_mode(settings: Settings) -> None:
    _, _, app_token = settings.serve_secrets(socket_mode=True, runai=True)
    runtime = build_runtime(settings, socket_mode=True)
    handler = AsyncSocketModeHandler(runtime.app, app_token)
    stop = _stop_on_signals()
    if runtime.worker is not None:
        runtime.worker.start()
    try:
        await handler.connect_async()  # type: ignore[no-untyped-call]
        await stop.wait()
        await handler.close_async()  # type: ignore[no-untyped-call]
    finally:
        await _close(runtime)


async def _close(runtime: Runtime) -> None:
    """Stop the worker (finish or hand back what it runs), then close the clients."""
    if runtime.worker is not None:
        await runtime.worker.stop(runtime.shutdown_grace_s)
    if runtime.runai is not None:
        await runtime.runai.aclose()
    if runtime.redis is not None:
        await runtime.redis.aclose()
    if runtime.kube is not None:
        await runtime.kube.aclose()
