"""A fake, read-only Kubernetes API serving a scenario's `kubernetes` key under `/k8s/{cluster}`.

The Run:ai API owns `/api/v1/nodes`, so, like a Rancher proxy, every cluster's Kubernetes API
lives under its own prefix: `<base_url>/k8s/<cluster uuid>` + the usual Kubernetes paths.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from runai_sim.faults import FaultRule, fault_response
from runai_sim.kube_crds import SchedulerObjects
from runai_sim.kube_select import Fields, Indexed, KubeError, selected, status_body
from runai_sim.scenario_parts import KubernetesView

__all__ = [
    "KUBE_PREFIX",
    "KUBE_VERSION",
    "KubeAPI",
    "KubeError",
    "is_kube_path",
    "kube_base_url",
    "kube_fault_response",
    "status_body",
]

KUBE_PREFIX = "/k8s"
KUBE_VERSION = {"major": "1", "minor": "30", "gitVersion": "v1.30.4"}
_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
_TRUE, _FALSE = {"1", "t", "T", "true", "TRUE", "True"}, {"0", "f", "F", "false", "FALSE", "False"}
_Handler = Callable[[Request], Awaitable[Response]]
_OBJECT_REF = ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")


def _fields(labels: str) -> dict[str, tuple[str, ...]]:
    """Field selector labels (space-separated) that name their own dotted path in the object."""
    return {label: tuple(label.split(".")) for label in labels.split()}


_POD_FIELDS = _fields(
    "metadata.name metadata.namespace spec.nodeName spec.restartPolicy spec.schedulerName "
    "spec.serviceAccountName status.phase status.podIP status.nominatedNodeName"
)
_EVENT_FIELDS: Fields = {
    **_fields("metadata.name metadata.namespace reason reportingComponent type"),
    **_fields(" ".join(f"involvedObject.{key}" for key in _OBJECT_REF)),
    "source": ("source", "component"),
}
#: events.k8s.io/v1 field labels, evaluated on the core/v1 event they are converted from.
_EVENT_V1_FIELDS: Fields = {
    label.replace("involvedObject.", "regarding.").replace("Component", "Controller"): path
    for label, path in _EVENT_FIELDS.items()
    if label != "source"
}
_NODE_FIELDS = _fields("metadata.name spec.unschedulable")
#: core/v1 Event member -> events.k8s.io/v1 Event member.
_EVENT_V1_KEYS = {
    "metadata": "metadata", "eventTime": "eventTime", "series": "series",
    "reportingComponent": "reportingController", "reportingInstance": "reportingInstance",
    "action": "action", "reason": "reason", "involvedObject": "regarding", "related": "related",
    "message": "note", "type": "type", "source": "deprecatedSource",
    "firstTimestamp": "deprecatedFirstTimestamp", "lastTimestamp": "deprecatedLastTimestamp",
    "count": "deprecatedCount",
}  # fmt: skip


def _not_found(kind: str, name: str) -> KubeError:
    return KubeError(404, f'{kind} "{name}" not found', {"name": name, "kind": kind})


def is_kube_path(path: str) -> bool:
    """Whether a request path belongs to the fake Kubernetes API."""
    return path.startswith(f"{KUBE_PREFIX}/")


def kube_base_url(base_url: str, cluster_uuid: str) -> str:
    """The Kubernetes API base URL of one cluster: `<base_url>/k8s/<cluster uuid>`."""
    return f"{base_url.rstrip('/')}{KUBE_PREFIX}/{cluster_uuid}"


def kube_fault_response(rule: FaultRule) -> Response:
    """A fault on a Kubernetes path: a `Status` body unless the rule gives its own body."""
    if rule.has_body:
        return fault_response(rule)
    code = rule.status if rule.status is not None else 200
    return JSONResponse(status_body(code, "Injected fault."), code, dict(rule.headers))


# ---------------------------------------------------------------------- query parameters
def _int(request: Request, name: str) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    try:
        return int(raw)
    except ValueError:
        raise KubeError(400, f"{name}: invalid value {raw!r}: not an integer") from None


def _page(request: Request, items: list[Any]) -> tuple[list[Any], dict[str, Any]]:
    """`limit`/`continue` pagination; the continue token is opaque (base64 JSON, like the API)."""
    start, token = 0, request.query_params.get("continue")
    if token:
        try:
            start = int(json.loads(base64.urlsafe_b64decode(token))["start"])
        except (ValueError, KeyError, TypeError, binascii.Error):
            raise KubeError(400, "continue key is not valid: cannot decode it") from None
    limit = _int(request, "limit") or 0
    end = start + limit if limit > 0 else len(items)
    meta: dict[str, Any] = {"resourceVersion": "1"}
    if end < len(items):
        state = json.dumps({"v": "meta.k8s.io/v1", "rv": 1, "start": end}).encode()
        meta["continue"] = base64.urlsafe_b64encode(state).decode()
        meta["remainingItemCount"] = len(items) - end
    return items[start:end], meta


def _tail_and_limit(text: str, request: Request) -> bytes:
    """Apply `tailLines` (last N lines) then `limitBytes` (first N bytes), as the kubelet does."""
    tail, limit = _int(request, "tailLines"), _int(request, "limitBytes")
    invalid = "PodLogOptions is invalid: {}: Invalid value: {}: must be greater than {}"
    if tail is not None and tail < 0:
        raise KubeError(422, invalid.format("tailLines", tail, "or equal to 0"))
    if limit is not None and limit < 1:
        raise KubeError(422, invalid.format("limitBytes", limit, "0"))
    if tail is not None:
        text = "".join(text.splitlines(keepends=True)[-tail:]) if tail else ""
    data = text.encode()
    return data[:limit] if limit is not None else data


def _to_events_v1(event: Mapping[str, Any]) -> dict[str, Any]:
    """A core/v1 Event in the events.k8s.io/v1 shape (`eventTime` is always present)."""
    converted = {new: event[old] for old, new in _EVENT_V1_KEYS.items() if old in event}
    return {"eventTime": None, **converted}


# ---------------------------------------------------------------------- the API
class KubeAPI(SchedulerObjects):
    """The fake Kubernetes API of a scenario; `app` serves paths relative to `/k8s`.

    With `view` None (no `kubernetes` key) no cluster is served and every path answers 404.
    `cluster_uuids` are the scenario's clusters, served when `view.clusters` is not given.
    """

    def __init__(self, view: KubernetesView | None, cluster_uuids: Iterable[str]) -> None:
        self.view = view
        self.clusters = [] if view is None else list(view.clusters or cluster_uuids)
        self._data = view or KubernetesView()
        self._event_index = Indexed(self._data.events)
        self._pods: dict[tuple[str, str], dict[str, Any]]
        self._pods = {
            (str(pod["metadata"]["namespace"]), str(pod["metadata"]["name"])): pod
            for pod in reversed(self._data.pods)  # the first of two same-named pods wins
        }
        self.app = Starlette(
            routes=self._routes(), exception_handlers={HTTPException: self._http_error}
        )

    @property
    def token(self) -> str | None:
        """The bearer token the API accepts (None when the scenario has no `kubernetes` key)."""
        return None if self.view is None else self.view.token

    async def _http_error(self, _request: Request, exc: Exception) -> Response:
        code = exc.status_code if isinstance(exc, HTTPException) else 500
        return KubeError(code, str(getattr(exc, "detail", exc))).response()

    def _routes(self) -> list[Route]:
        core, events_v1 = "/{cluster}/api/v1", "/{cluster}/apis/events.k8s.io/v1"
        table: list[tuple[str, _Handler]] = [
            ("/{cluster}/version", self._version),
            (f"{core}/pods", self._list_pods),
            (f"{core}/namespaces/{{ns}}/pods", self._list_pods),
            (f"{core}/namespaces/{{ns}}/pods/{{name}}", self._get_pod),
            (f"{core}/namespaces/{{ns}}/pods/{{name}}/log", self._log),
            (f"{core}/events", self._events),
            (f"{core}/namespaces/{{ns}}/events", self._events),
            (f"{events_v1}/events", self._events),
            (f"{events_v1}/namespaces/{{ns}}/events", self._events),
            (f"{core}/nodes", self._list_nodes),
            (f"{core}/nodes/{{name}}", self._get_node),
            *self.scheduler_routes(),
            ("/{cluster}/{rest:path}", self._unknown),
        ]
        return [Route(path, self._guard(handler), methods=_METHODS) for path, handler in table]

    def _guard(self, handler: _Handler) -> _Handler:
        async def endpoint(request: Request) -> Response:
            try:
                self._check(request)
                return await handler(request)
            except KubeError as exc:
                return exc.response()

        return endpoint

    def _check(self, request: Request) -> None:
        """A Kubernetes view, the bearer token, a served cluster, then the method (GET only)."""
        cluster = str(request.path_params["cluster"])
        if self.view is None:
            raise KubeError(404, f'cluster "{cluster}" not found')
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        expected = self.view.token.encode()
        if scheme.lower() != "bearer" or not hmac.compare_digest(token.strip().encode(), expected):
            raise KubeError(401, "Unauthorized")
        if cluster not in self.clusters:
            raise KubeError(404, f'cluster "{cluster}" not found')
        if request.method != "GET":
            raise KubeError(405, "the server does not allow this method on the requested resource")

    # ------------------------------------------------------------------ handlers
    async def _unknown(self, _request: Request) -> Response:
        raise KubeError(404, "the server could not find the requested resource")

    async def _version(self, _request: Request) -> Response:
        return JSONResponse(KUBE_VERSION)

    def _list(
        self,
        request: Request,
        kind: str,
        items: list[dict[str, Any]],
        fields: Fields,
        convert: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        *,
        api: str = "v1",
    ) -> Response:
        """A `<kind>` list of the selected items, one page of it, each `convert`ed if given."""
        chosen, meta = _page(request, selected(items, request, fields))
        api = "events.k8s.io/v1" if convert is not None else api
        chosen = chosen if convert is None else [convert(item) for item in chosen]
        return JSONResponse({"kind": kind, "apiVersion": api, "metadata": meta, "items": chosen})

    def _in_namespace(self, request: Request, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        namespace = request.path_params.get("ns")
        return [i for i in items if namespace is None or i["metadata"]["namespace"] == namespace]

    def _pod(self, request: Request) -> dict[str, Any]:
        name = str(request.path_params["name"])
        pod = self._pods.get((str(request.path_params["ns"]), name))
        if pod is None:
            raise _not_found("pods", name)
        return pod

    async def _list_pods(self, request: Request) -> Response:
        pods = self._in_namespace(request, self._data.pods)
        return self._list(request, "PodList", pods, _POD_FIELDS)

    async def _get_pod(self, request: Request) -> Response:
        return JSONResponse({"kind": "Pod", "apiVersion": "v1", **self._pod(request)})

    async def _log(self, request: Request) -> Response:
        """The log text of one container, as the real API selects and trims it."""
        pod, name = self._pod(request), str(request.path_params["name"])
        spec = pod.get("spec") or {}
        names = [str(c.get("name")) for c in spec.get("containers") or []]
        init = [str(c.get("name")) for c in spec.get("initContainers") or []]
        container = request.query_params.get("container") or ""
        if not container and len(names) == 1:
            container = names[0]
        elif not container:
            message = f"a container name must be specified for pod {name}, "
            message += f"choose one of: [{' '.join(names)}]"
            if init:
                message += f" or one of the init containers: [{' '.join(init)}]"
            raise KubeError(400, message)
        if container not in names + init:
            raise KubeError(400, f"container {container} is not valid for pod {name}")
        previous = request.query_params.get("previous", "false")
        if previous not in _TRUE | _FALSE:
            raise KubeError(400, f"previous: invalid value {previous!r}: not a boolean")
        logs = self._data.logs.get(f"{request.path_params['ns']}/{name}/{container}")
        if previous in _TRUE:
            text = logs.previous if logs is not None else None
            if text is None:
                message = f'previous terminated container "{container}" in pod "{name}" not found'
                raise KubeError(400, message)
        else:
            text = (logs.current if logs is not None else None) or ""
        return Response(_tail_and_limit(text, request), media_type="text/plain")

    async def _events(self, request: Request) -> Response:
        v1 = "/apis/events.k8s.io/" in request.url.path
        fields = _EVENT_V1_FIELDS if v1 else _EVENT_FIELDS
        events = self._in_namespace(request, self._event_index.narrowed(request, fields))
        return self._list(request, "EventList", events, fields, _to_events_v1 if v1 else None)

    async def _list_nodes(self, request: Request) -> Response:
        return self._list(request, "NodeList", self._data.nodes, _NODE_FIELDS)

    async def _get_node(self, request: Request) -> Response:
        return self._one(request, self._data.nodes, kind="Node", plural="nodes", api="v1")

    def _one(
        self, request: Request, items: list[dict[str, Any]], *, kind: str, plural: str, api: str
    ) -> Response:
        """The item named `{name}` (with its `kind` and `apiVersion`), or 404."""
        name = str(request.path_params["name"])
        found = next((i for i in items if i["metadata"]["name"] == name), None)
        if found is None:
            raise _not_found(plural, name)
        return JSONResponse({"kind": kind, "apiVersion": api, **found})
