"""`runai-why serve` and `runai-why worker`: run a `Runtime` until SIGTERM, then stop cleanly.

`serve` serves the ASGI app (`bot.app.server`) under uvicorn, httptools on uvloop, with
`bot.app.http_limits` (deadlines for a request's head and body, a connection cap and a bound
on a head's size), or takes Slack's requests over Socket Mode; `METRICS_PORT` serves
`/metrics` alone on its own port, for in-cluster scraping (`bot.ops.metrics_server`). `serve`
also runs a worker that answers queued requests (`EMBEDDED_WORKER`, default on); `runai-why
worker` runs only that. On SIGTERM both stop taking work, let what runs finish within
`SHUTDOWN_GRACE_S`, and hand the rest back to the queue (`Runtime.aclose`).
"""

from __future__ import annotations

import asyncio
import signal
import sys

import uvicorn
import uvloop
from uvicorn.config import STARTUP_FAILURE

from bot.app.http_limits import HttpLimits
from bot.app.processes import reuse_port_socket
from bot.app.runtime import build_runtime
from bot.app.server import create_asgi_app
from bot.config import ConfigError, Settings
from bot.ops.heap import freeze_built_heap
from bot.ops.metrics_server import start_metrics_server

__all__ = ["run_server", "run_worker"]

#: `serve` over HTTP and `worker` run on uvloop, named explicitly (uvicorn's "auto" would take
#: it only because it is installed). Measured on a shared 2-core machine: the server's CPU per
#: request (200 at once, a connection each) 0.20 ms with httptools on asyncio, 0.16 ms on
#: uvloop; a replica's CPU per answered diagnosis (200 distinct asks, web and worker
#: processes) 64-65 ms with the worker on uvloop against 65-77 ms (median 72) on asyncio.
#: Socket Mode stays on asyncio: it was not measured.
_LOOP = "uvloop"


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
        loop=_LOOP,
        **HttpLimits.from_settings(settings).uvicorn_options(),  # slow and numerous clients
    )
    server = uvicorn.Server(config)
    freeze_built_heap()
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
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:  # `_LOOP`
        runner.run(_worker_main(settings, host))


def _stop_on_signals() -> asyncio.Event:
    """An event set by SIGTERM or SIGINT (the default handlers would skip the hand-back)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    return stop


async def _worker_main(settings: Settings, host: str) -> None:
    runtime = build_runtime(settings, worker=True)
    start_metrics_server(settings.metrics.port, host)
    stop = _stop_on_signals()
    runtime.start()
    freeze_built_heap()
    try:
        await stop.wait()
    finally:
        await runtime.aclose()


async def _socket_mode(settings: Settings, host: str) -> None:
    slack_secrets = settings.serve_secrets(socket_mode=True, runai=True)
    assert slack_secrets is not None  # noqa: S101 - Socket Mode always serves Slack
    app_token = slack_secrets[2]
    assert app_token is not None  # noqa: S101 - Socket Mode requires SLACK_APP_TOKEN
    runtime = build_runtime(settings, socket_mode=True)
    assert runtime.slack is not None  # noqa: S101 - socket mode always builds Slack
    start_metrics_server(settings.metrics.port, host)
    stop = _stop_on_signals()
    runtime.start()
    freeze_built_heap()
    try:
        async with runtime.slack.socket_mode(app_token):
            await stop.wait()
    finally:
        await runtime.aclose()
