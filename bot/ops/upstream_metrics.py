"""Counts every call to Run:ai and Kubernetes by endpoint and status (`UPSTREAM_CALLS`).

`CountingTransport` sits innermost, where requests leave the process, so each attempt of
a retried call is one call. Endpoints are path templates (`/api/v1/workloads/{id}/events`):
a segment the clients' API vocabulary does not know becomes `{id}`, so IDs, names and
namespaces never become label values and the series stay few; an API server's path prefix
(a Rancher or simulator proxy path) is left out.
"""

from __future__ import annotations

import httpx

from bot.ops.metrics import UPSTREAM_CALLS
from bot.ops.observe import current_trace

__all__ = ["CountingTransport", "endpoint_template"]

#: Path segments the Run:ai and Kubernetes clients use literally; anything else is an ID.
_VOCABULARY = frozenset(
    {
        "api", "apis", "v1", "v2", "token", "workloads", "events", "pods", "history", "metrics",
        "clusters", "nodes", "users", "authorization", "access-rules", "roles", "org-unit",
        "projects", "departments", "namespaces", "log", "events.k8s.io", "trainings",
        "workspaces", "inferences", "distributed", "distributed-inferences",
    }
)  # fmt: skip


def endpoint_template(path: str) -> str:
    """`path` as a template: IDs as `{id}`, from the first `api`/`apis` segment on.

    A proxy's prefix before it (`/k8s/clusters/c-1`) is dropped.
    """
    parts = [p for p in path.split("/") if p]
    start = next((i for i, p in enumerate(parts) if p in {"api", "apis"}), 0)
    return "/" + "/".join(p if p in _VOCABULARY else "{id}" for p in parts[start:])


class CountingTransport(httpx.AsyncBaseTransport):
    """Wraps a transport; counts each request as `upstream`, endpoint, status (or `error`)."""

    def __init__(self, inner: httpx.AsyncBaseTransport, upstream: str) -> None:
        self._inner = inner
        self._upstream = upstream

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send `request` through the wrapped transport and count it."""
        endpoint = endpoint_template(request.url.path)
        trace = current_trace()
        if trace is not None:
            trace.upstream_calls += 1
        try:
            response = await self._inner.handle_async_request(request)
        except Exception:
            UPSTREAM_CALLS.labels(self._upstream, endpoint, "error").inc()
            raise
        UPSTREAM_CALLS.labels(self._upstream, endpoint, str(response.status_code)).inc()
        return response

    async def aclose(self) -> None:
        """Close the wrapped transport."""
        await self._inner.aclose()
