"""The ASGI app of `runai-why serve`: every configured front end's routes, and the process's own.

Each front end (`bot.web.frontend.FrontEnd`: Slack's `POST /slack/events`, Teams'
`POST /api/messages`) brings its routes, each gated on the raw request before anything is
parsed; Slack, Teams or both may be configured. Beside them: `POST /alerts/alertmanager`
(with `ALERTMANAGER_TOKEN`, `bot.app.pushing`), `GET /healthz` (the process is up),
`GET /readyz` (settings loaded, Redis answering a PING; it also shows the authorization
mode, so `AUTHZ_MODE=off` is visible), with `METRICS_TOKEN` `GET /metrics` (bearer token),
and the pages the Teams manifest links (`bot.app.pages`). The lifespan starts the worker
and closes everything on shutdown (`Runtime.aclose`).
"""

from __future__ import annotations

import contextlib
import hmac
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

from bot.app.runtime import Runtime
from bot.durable.connect import redis_health
from bot.ops import metrics

__all__ = ["create_asgi_app"]


def create_asgi_app(runtime: Runtime) -> Starlette:
    """The ASGI app; its lifespan starts the worker, and closes the clients on shutdown."""

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
        runtime.start()
        try:
            yield
        finally:
            await runtime.aclose()

    fronts: list[BaseRoute] = [r for front in runtime.front_ends for r in front.routes()]
    return Starlette(
        routes=[
            *fronts,
            *runtime.push.routes,
            Route("/healthz", healthz, methods=["GET"]),
            Route("/readyz", readyz, methods=["GET"]),
            Route("/metrics", metrics_route, methods=["GET"]),
            *runtime.pages,
        ],
        lifespan=lifespan,
    )
