"""`METRICS_PORT`: `/metrics` alone on its own port, apart from the Slack-facing one.

The scrape port is meant for inside the cluster (a Prometheus, a ServiceMonitor) and is not
exposed with the Slack port, so it needs no token. It is prometheus-client's own small HTTP
server, on a daemon thread; it serves the bot's registry (`bot.ops.metrics.REGISTRY`) and
nothing else; under a supervisor of several processes (`bot.app.processes`), their sum.
"""

from __future__ import annotations

from wsgiref.simple_server import WSGIServer

import structlog
from prometheus_client import start_http_server

from bot.config import ConfigError
from bot.ops.metrics import serving_registry

__all__ = ["start_metrics_server"]


def start_metrics_server(port: int | None, host: str) -> WSGIServer | None:
    """Serve `/metrics` on `host:port` (0 or None: do not) until the process exits."""
    if not port:
        return None
    try:
        server, _ = start_http_server(port, addr=host, registry=serving_registry())
    except OSError as error:
        raise ConfigError(
            f"cannot serve /metrics on {host}:{port} ({error.strerror or error}); set "
            "METRICS_PORT to a free port, or 0 for none"
        ) from error
    structlog.get_logger(__name__).info("metrics_serving", host=host, port=server.server_port)
    return server
