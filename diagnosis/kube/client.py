"""`KubeClient`: read-only Tier 2 access to one Kubernetes API server over plain HTTP.

Requests flow AsyncClient → `BearerTokenAuth` → `RetryTransport` → `ReadOnlyTransport` (GET
only, no exception) → the network. Every failure becomes a `diagnosis.errors` exception whose
`operation` is the `kubectl` command the skill names for that evidence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Self

import httpx

from diagnosis.errors import (
    AuthError,
    InvalidRequest,
    NotFound,
    UpstreamError,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from diagnosis.http.client import CookielessClient
from diagnosis.http.paths import nonempty, segment
from diagnosis.http.responses import (
    absolute_url,
    error_message,
    parse_model,
    safe_url,
    shape_error,
)
from diagnosis.http.transport import (
    RETRYABLE_STATUSES,
    ReadOnlyTransport,
    RetryTransport,
    network_transport,
)
from diagnosis.kube.config import BearerTokenAuth, TokenSource, TokenUnreadable, ssl_context
from diagnosis.kube.event_client import EventReads
from diagnosis.kube.models import KubeNode, Pod
from diagnosis.kube.responses import NAMED, kind_of, response_json, response_url
from diagnosis.kube.scheduling_client import SchedulerObjects

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from diagnosis.kube.config import KubeTarget

__all__ = [
    "DESCRIBE_NODE",
    "DESCRIBE_POD",
    "LOGS",
    "LOGS_PREVIOUS",
    "KubeClient",
]

DESCRIBE_POD = "kubectl describe pod"
LOGS = "kubectl logs"
LOGS_PREVIOUS = "kubectl logs --previous"
DESCRIBE_NODE = "kubectl describe node"

_TEXT_LIMIT = 200


class KubeClient(SchedulerObjects, EventReads):
    """Reads a pod, its events, its container logs, and nodes from one Kubernetes API server.

    The scheduler's objects (PodGroups, Queues, their events) come from `SchedulerObjects`;
    a pod's and a node's events from `EventReads`.

    Raises only `diagnosis.errors` exceptions (`ReadOnlyViolation` is one): 401/403 →
    `AuthError`, 404 → `NotFound`, timeouts → `UpstreamTimeout`, anything else →
    `UpstreamUnavailable`; a Kubernetes `Status` body's message is included, truncated.

    Args:
        target: the API server and credentials (`KubeAccess.target(cluster_id)`).
        transport: what actually sends requests (default: an `httpx.AsyncHTTPTransport` with
            the target's SSL context); tests pass an `httpx.MockTransport`.
        sleep: awaitable sleep used between retries (default `asyncio.sleep`).
        logger: structlog-style logger for the request/retry debug lines (never the token).
        wrap: wraps the transport (given or default) before anything else sees it, e.g. the
            bot's counting transport for its upstream-call metrics.

    Raises:
        KubeAccessError: (on construction, default transport only) the target's CA or client
            certificate does not load.
    """

    def __init__(
        self,
        target: KubeTarget,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        logger: Any = None,
        wrap: Callable[[httpx.AsyncBaseTransport], httpx.AsyncBaseTransport] | None = None,
    ) -> None:
        if transport is None:
            transport = network_transport(ssl_context(target) if target.uses_tls else None)
        if wrap is not None:
            transport = wrap(transport)
        guarded = ReadOnlyTransport(transport, token_path=None, name="the Kubernetes client")
        retrying = RetryTransport(
            guarded,
            retries=target.retries,
            backoff_s=target.backoff_s,
            max_backoff_s=target.max_backoff_s,
            sleep=sleep,
            logger=logger,
        )
        self._tokens = TokenSource(target.token, target.token_file)
        self._extensions = (
            {"sni_hostname": target.tls_server_name} if target.tls_server_name else {}
        )
        self._http = CookielessClient(
            base_url=target.api_url,
            timeout=httpx.Timeout(target.timeout_s),
            transport=retrying,
            auth=BearerTokenAuth(self._tokens),
            headers={"Accept": "application/json", "User-Agent": "runai-why"},
        )

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        await self._http.aclose()

    async def get_pod(self, namespace: str, name: str) -> Pod:
        """`kubectl describe pod`: `GET /api/v1/namespaces/{ns}/pods/{name}`."""
        path = f"/api/v1/namespaces/{segment(namespace, NAMED)}/pods/{segment(name, NAMED)}"
        response = await self._get(path, operation=DESCRIBE_POD)
        body = _object(
            response_json(response, DESCRIBE_POD), "Pod", name, DESCRIBE_POD, response_url(response)
        )
        return parse_model(Pod, body, operation=DESCRIBE_POD, url=response_url(response))

    async def get_logs(
        self,
        namespace: str,
        pod: str,
        container: str,
        *,
        previous: bool,
        tail_lines: int = 200,
        limit_bytes: int = 64_000,
    ) -> str:
        """`kubectl logs [--previous]`: the last `tail_lines` lines, at most `limit_bytes`."""
        if tail_lines < 0 or limit_bytes < 1:
            raise InvalidRequest("tail_lines must be >= 0 and limit_bytes >= 1")
        operation = LOGS_PREVIOUS if previous else LOGS
        params: dict[str, str | int] = {
            "container": nonempty(container, NAMED),
            "previous": "true" if previous else "false",
            "tailLines": tail_lines,
            "limitBytes": limit_bytes,
        }
        path = f"/api/v1/namespaces/{segment(namespace, NAMED)}/pods/{segment(pod, NAMED)}/log"
        response = await self._get(path, operation=operation, params=params, accept="text/plain")
        media = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if media == "application/json":  # a log is text; a JSON body is something else
            raise shape_error(
                "a JSON body where the log text was expected",
                operation=operation,
                url=response_url(response),
            )
        return response.text

    async def get_node(self, name: str) -> KubeNode:
        """`kubectl describe node`: `GET /api/v1/nodes/{name}`."""
        response = await self._get(f"/api/v1/nodes/{segment(name, NAMED)}", operation=DESCRIBE_NODE)
        body = _object(
            response_json(response, DESCRIBE_NODE),
            "Node",
            name,
            DESCRIBE_NODE,
            response_url(response),
        )
        return parse_model(KubeNode, body, operation=DESCRIBE_NODE, url=response_url(response))

    async def _get(
        self,
        path: str,
        *,
        operation: str,
        params: dict[str, str | int] | None = None,
        accept: str = "application/json",
    ) -> httpx.Response:
        """GET `path` (appended to the base URL); a 200 response or the matching error."""
        try:
            response = await self._http.get(
                absolute_url(self._http, path, params),
                headers={"Accept": accept},
                extensions=self._extensions,
            )
        except TokenUnreadable as exc:
            url = safe_url(self._http.base_url.join(path.lstrip("/")))
            raise AuthError(str(exc), operation=operation, url=url) from exc
        except httpx.HTTPError as exc:
            raise self._error_for_exception(exc, operation) from exc
        if response.status_code != httpx.codes.OK:
            raise self._error_for_response(response, operation)
        return response

    def _error_for_response(self, response: httpx.Response, operation: str) -> UpstreamError:
        status = response.status_code
        error: type[UpstreamError] = UpstreamUnavailable
        if status == httpx.codes.UNAUTHORIZED:
            error, text = AuthError, "the Kubernetes API refused the credentials"
        elif status == httpx.codes.FORBIDDEN:
            error, text = AuthError, "the Kubernetes API denied access (RBAC)"
        elif status == httpx.codes.NOT_FOUND:
            error, text = NotFound, "the Kubernetes API has no such resource"
        elif status in RETRYABLE_STATUSES:
            text = "the Kubernetes API kept failing"
        elif httpx.codes.is_client_error(status):
            text = "the Kubernetes API rejected the request"
        else:
            text = "unexpected answer from the Kubernetes API"
        detail = self._scrub(error_message(response))
        return error(text + detail, operation=operation, url=response_url(response), status=status)

    def _error_for_exception(self, exc: httpx.HTTPError, operation: str) -> UpstreamError:
        kind = type(exc).__name__
        detail = self._scrub(" ".join(str(exc).split()))[:_TEXT_LIMIT]
        detail = f": {detail}" if detail and detail != kind else ""
        try:
            url = safe_url(exc.request.url)
        except RuntimeError:  # raised before a request existed
            url = str(self._http.base_url)
        if isinstance(exc, httpx.TimeoutException):
            return UpstreamTimeout(f"no answer in time ({kind})", operation=operation, url=url)
        message = f"could not reach the Kubernetes API ({kind}){detail}"
        return UpstreamUnavailable(message, operation=operation, url=url)

    def _scrub(self, text: str) -> str:
        for secret in self._tokens.secrets():
            text = text.replace(secret, "***")
        return text


def _object(body: Any, kind: str, name: str, operation: str, url: str) -> Any:
    """`body` when it is the `kind` object named `name` with a `status`; else a shape error.

    Every field of a pod or node is optional to the model, so `{}`, a `PodList`, another
    pod or `"status": null` would read as an object that says nothing: evidence silently
    lost. They are a gap instead.
    """
    if not isinstance(body, dict):
        return body  # the model names what is wrong with it
    meta = body.get("metadata")
    found = meta.get("name") if isinstance(meta, dict) else None
    if body.get("kind", kind) != kind or found != name:
        raise shape_error(f"not the {kind} asked for", operation=operation, url=url)
    if not isinstance(body.get("status"), dict):
        raise shape_error(
            f"`status` is {kind_of(body.get('status'))}", operation=operation, url=url
        )
    return body
