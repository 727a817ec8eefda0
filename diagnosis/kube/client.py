"""`KubeClient`: read-only Tier 2 access to one Kubernetes API server over plain HTTP.

Requests flow AsyncClient → `BearerTokenAuth` → `RetryTransport` → `ReadOnlyTransport` (GET
only, no exception) → the network. Every failure becomes a `diagnosis.errors` exception whose
`operation` is the `kubectl` command the skill names for that evidence.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Self

import httpx
from pydantic import ValidationError

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
from diagnosis.kube.event_models import KubeEvent, event_from_core, event_from_events_v1
from diagnosis.kube.models import KubeNode, Pod
from diagnosis.kube.scheduling_client import SchedulerObjects

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from diagnosis.kube.config import KubeTarget

__all__ = [
    "DESCRIBE_NODE",
    "DESCRIBE_POD",
    "GET_EVENTS",
    "LOGS",
    "LOGS_PREVIOUS",
    "MAX_PAGES",
    "KubeClient",
]

_NAMED = "a Kubernetes namespace, pod, container or node name"

DESCRIBE_POD = "kubectl describe pod"
GET_EVENTS = "kubectl get events"
LOGS = "kubectl logs"
LOGS_PREVIOUS = "kubectl logs --previous"
DESCRIBE_NODE = "kubectl describe node"

MAX_PAGES = 20
"""Most `continue` pages one event list follows before deciding pagination is broken."""

_PAGE_SIZE = 500
_TEXT_LIMIT = 200
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class KubeClient(SchedulerObjects):
    """Reads a pod, its events, its container logs, and nodes from one Kubernetes API server.

    The scheduler's objects (PodGroups, Queues, their events) come from `SchedulerObjects`.

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
        path = f"/api/v1/namespaces/{segment(namespace, _NAMED)}/pods/{segment(name, _NAMED)}"
        response = await self._get(path, operation=DESCRIBE_POD)
        body = _object(_json(response, DESCRIBE_POD), "Pod", name, DESCRIBE_POD, _url(response))
        return parse_model(Pod, body, operation=DESCRIBE_POD, url=_url(response))

    async def list_pod_events(self, namespace: str, pod_name: str) -> list[KubeEvent]:
        """`kubectl get events --field-selector involvedObject.name=<pod>`, oldest first.

        Follows `continue` tokens. When core/v1 answers 403 or 404, asks events.k8s.io/v1
        (`regarding.name=<pod>`) instead; if that fails too, the core/v1 error is raised.
        """
        ns = segment(namespace, _NAMED)
        return await self._object_events(
            (f"/api/v1/namespaces/{ns}/events", f"/apis/events.k8s.io/v1/namespaces/{ns}/events"),
            {"name": nonempty(pod_name, _NAMED)},
        )

    async def list_node_events(self, name: str) -> list[KubeEvent]:
        """The node's own events (`kubectl describe node` shows them), oldest first.

        Cluster-wide, selected by `involvedObject.kind=Node` and the node name; the same
        events.k8s.io/v1 fallback as `list_pod_events`.
        """
        return await self._object_events(
            ("/api/v1/events", "/apis/events.k8s.io/v1/events"),
            {"kind": "Node", "name": nonempty(name, _NAMED)},
        )

    async def _object_events(
        self, paths: tuple[str, str], match: dict[str, str]
    ) -> list[KubeEvent]:
        core_path, v1_path = paths

        def selector(prefix: str) -> str:
            return ",".join(f"{prefix}.{k}={_selector_value(v)}" for k, v in match.items())

        try:
            events = await self._events(core_path, selector("involvedObject"), event_from_core)
        except (AuthError, NotFound) as core:
            if core.status not in {403, 404}:
                raise
            try:
                events = await self._events(v1_path, selector("regarding"), event_from_events_v1)
            except (AuthError, NotFound) as fallback:
                message = f"{core.args[0]}; events.k8s.io/v1 too: {fallback.args[0]}"
                raise type(core)(
                    message, operation=GET_EVENTS, url=core.url, status=core.status
                ) from fallback
        return sorted(events, key=_when)

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
            "container": nonempty(container, _NAMED),
            "previous": "true" if previous else "false",
            "tailLines": tail_lines,
            "limitBytes": limit_bytes,
        }
        path = f"/api/v1/namespaces/{segment(namespace, _NAMED)}/pods/{segment(pod, _NAMED)}/log"
        response = await self._get(path, operation=operation, params=params, accept="text/plain")
        media = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if media == "application/json":  # a log is text; a JSON body is something else
            raise shape_error(
                "a JSON body where the log text was expected",
                operation=operation,
                url=_url(response),
            )
        return response.text

    async def get_node(self, name: str) -> KubeNode:
        """`kubectl describe node`: `GET /api/v1/nodes/{name}`."""
        response = await self._get(
            f"/api/v1/nodes/{segment(name, _NAMED)}", operation=DESCRIBE_NODE
        )
        body = _object(_json(response, DESCRIBE_NODE), "Node", name, DESCRIBE_NODE, _url(response))
        return parse_model(KubeNode, body, operation=DESCRIBE_NODE, url=_url(response))

    async def _events(
        self, path: str, selector: str, normalise: Callable[[Any], KubeEvent]
    ) -> list[KubeEvent]:
        events: list[KubeEvent] = []
        seen: set[str] = set()
        params: dict[str, str | int] = {"fieldSelector": selector, "limit": _PAGE_SIZE}
        for _ in range(MAX_PAGES):
            response = await self._get(path, operation=GET_EVENTS, params=params)
            body, url = _json(response, GET_EVENTS), _url(response)
            if not isinstance(body, dict):
                raise shape_error(
                    f"expected an EventList object, got {_kind(body)}",
                    operation=GET_EVENTS,
                    url=url,
                )
            items = body.get("items")
            if not isinstance(items, list):  # `{"items": null}` is not "no events"
                raise shape_error(f"`items` is {_kind(items)}", operation=GET_EVENTS, url=url)
            meta = body.get("metadata")
            if not isinstance(meta, dict | None):
                raise shape_error(f"`metadata` is {_kind(meta)}", operation=GET_EVENTS, url=url)
            try:
                events.extend(normalise(item) for item in items)
            except ValidationError as exc:
                first = exc.errors(include_input=False, include_url=False)[0]
                where = ".".join(str(p) for p in first["loc"]) or "item"
                raise shape_error(
                    f"{where}: {first['msg']}", operation=GET_EVENTS, url=url
                ) from exc
            token = (meta or {}).get("continue")
            if not token:
                return events
            if not isinstance(token, str):
                raise shape_error(f"`continue` is {_kind(token)}", operation=GET_EVENTS, url=url)
            if token in seen:
                raise UpstreamUnavailable(
                    "pagination did not terminate (a continue token repeats)",
                    operation=GET_EVENTS,
                    url=url,
                )
            seen.add(token)
            params = {**params, "continue": token}
        raise UpstreamUnavailable(
            f"pagination did not terminate after {MAX_PAGES} pages", operation=GET_EVENTS, url=path
        )

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
        return error(text + detail, operation=operation, url=_url(response), status=status)

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


def _selector_value(value: str) -> str:
    r"""`value` escaped for a field selector (``\\``, ``,`` and ``=`` are special)."""
    return value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


def _url(response: httpx.Response) -> str:
    return safe_url(response.request.url)


def _json(response: httpx.Response, operation: str) -> Any:
    try:
        return response.json()
    except ValueError as exc:
        raise shape_error(
            "the body is not JSON", operation=operation, url=_url(response), status=200
        ) from exc


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
        raise shape_error(f"`status` is {_kind(body.get('status'))}", operation=operation, url=url)
    return body


def _kind(value: Any) -> str:
    """How a wrong-shaped JSON value is named in an error (never its content)."""
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    return type(value).__name__


def _when(event: KubeEvent) -> datetime:
    moment = event.last_timestamp or event.first_timestamp or _EPOCH
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
