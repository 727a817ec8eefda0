"""The simulator's state and ASGI app: request log, faults, latency, auth and the endpoints."""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar, get_args
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from runai_sim import filters
from runai_sim.access import AccessAPI
from runai_sim.control import CONTROL_PREFIX, WorkloadControl
from runai_sim.faults import FaultRule, FaultSet, delay, error_body, fault_response
from runai_sim.kube import KUBE_PREFIX, KubeAPI, is_kube_path, kube_fault_response
from runai_sim.pods import list_all_pods
from runai_sim.scenario import Scenario
from runai_sim.scenario_parts import Kind
from runai_sim.scheduling import SchedulingAPI
from runai_sim.tokens import TokenIssuer
from runai_sim.workloads import WorkloadEndpoints

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["TOKEN_PATHS", "RecordedRequest", "RequestObserver", "Simulator"]

TOKEN_PATHS = frozenset({"/api/v1/token", "/api/v2/token"})
_Handler = Callable[[Request], Awaitable[Response]]


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the simulator saw it (the Authorization value is redacted)."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    status: int
    time: datetime


#: Called with (simulator, request) for every request any simulator records; see `observe`.
RequestObserver = Callable[["Simulator", RecordedRequest], None]


def _error(status: int, details: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse(error_body(status, details), status, dict(headers or {}))


class Simulator(WorkloadEndpoints):
    """A simulated Run:ai control plane serving one scenario; `app` is its ASGI application.

    `token_ttl_s` is the lifetime of issued tokens; `clock` returns Unix seconds (default
    `time.time`) and drives token issue and expiry. `control` serves the loopback-only
    control endpoint (`runai_sim.control`); `workloads` changes the world from Python the same
    way. Safe to drive from another thread.
    """

    _observers: ClassVar[list[RequestObserver]] = []

    def __init__(
        self,
        scenario: Scenario,
        *,
        token_ttl_s: float = 3600,
        clock: Callable[[], float] | None = None,
        control: bool = False,
    ) -> None:
        self.scenario = scenario
        self._clock = clock or time.time
        self._lock = threading.Lock()
        self._control = control
        self.workloads = WorkloadControl(scenario, self._lock)
        """Add, replace or remove workload entries while serving (as the control endpoint)."""
        self._tokens = TokenIssuer(scenario.credentials, ttl_s=token_ttl_s, clock=self._clock)
        self._log: list[RecordedRequest] = []
        self._faults = FaultSet(scenario.faults)
        self._kube = KubeAPI(scenario.kubernetes, [str(c["uuid"]) for c in scenario.clusters])
        self._router = Starlette(
            routes=self._routes(),
            exception_handlers={
                HTTPException: self._http_error,  # type: ignore[dict-item]
            },
        )

    @classmethod
    def observe(cls, observer: RequestObserver) -> Callable[[], None]:
        """Call `observer` for every request that any simulator records, until undone.

        For auditors that must see all traffic without knowing which simulators exist (the
        test suite's read-only audit). Returns the function that removes the observer.
        """
        cls._observers.append(observer)
        return lambda: cls._observers.remove(observer)

    # ------------------------------------------------------------------ public state
    @property
    def app(self) -> ASGIApp:
        """The ASGI app: request log, latency, faults and auth in front of the endpoints."""
        return self._gate

    @property
    def kube_token(self) -> str | None:
        """The bearer token of the fake Kubernetes API; None without a `kubernetes` key."""
        return self._kube.token

    @property
    def kube_clusters(self) -> list[str]:
        """Cluster UUIDs whose Kubernetes API is served at `<base_url>/k8s/<uuid>`."""
        return list(self._kube.clusters)

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request received so far, oldest first."""
        with self._lock:
            return list(self._log)

    def clear_requests(self) -> None:
        """Forget the recorded requests."""
        with self._lock:
            self._log.clear()

    def add_fault(self, rule: FaultRule | Mapping[str, Any]) -> FaultRule:
        """Add a fault rule at runtime (after the scenario's rules); returns the parsed rule."""
        return self._faults.add(rule)

    def clear_faults(self) -> None:
        """Remove every fault rule, including the scenario's."""
        self._faults.clear()

    @property
    def token_ttl_s(self) -> float:
        """Lifetime of the tokens issued from now on."""
        return self._tokens.ttl_s

    @token_ttl_s.setter
    def token_ttl_s(self, value: float) -> None:
        self._tokens.ttl_s = value

    def revoke_tokens(self) -> None:
        """Invalidate every token issued so far (clients then get 401 and must re-authenticate)."""
        self._tokens.revoke()

    def issue_token(self, client_id: str) -> str:
        """Issue a JWT access token for `client_id` valid for `token_ttl_s` from now."""
        return self._tokens.issue(client_id)

    # ------------------------------------------------------------------ gate
    async def _gate(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._router(scope, receive, send)
            return
        arrived = datetime.fromtimestamp(self._clock(), UTC)
        method, path = str(scope["method"]), str(scope["path"])
        request = Request(scope)
        rule = self._faults.take(method, path)
        extra = [] if rule is None or rule.replaces_response else list(rule.headers.items())
        status = 0

        async def tracking_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                added = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in extra]
                message = {**message, "headers": [*message.get("headers", []), *added]}
            await send(message)

        try:
            held_ms = self.scenario.latency_ms + (rule.latency_ms if rule is not None else 0)
            if held_ms:
                held = await delay(held_ms / 1000, receive)
                if held is None:
                    return  # the client went away while it waited
                receive = held
            response: ASGIApp = self._router
            kube = is_kube_path(path)  # the Kubernetes API checks its own token
            if rule is not None and rule.replaces_response:
                response = kube_fault_response(rule) if kube else fault_response(rule)
            elif (
                not kube
                and path not in TOKEN_PATHS
                and not (self._control and path.startswith(CONTROL_PREFIX))
                and (problem := self._tokens.problem(request))
            ):
                response = _error(401, problem, {"WWW-Authenticate": "Bearer"})
            await response(scope, receive, tracking_send)
        finally:
            self._record(request, status, arrived)

    def _record(self, request: Request, status: int, arrived: datetime) -> None:
        headers: dict[str, str] = {}
        for key, raw in request.headers.items():
            value = raw.split(" ", 1)[0] + " <redacted>" if key == "authorization" else raw
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        query = parse_qs(request.url.query, keep_blank_values=True)
        entry = RecordedRequest(request.method, request.url.path, query, headers, status, arrived)
        with self._lock:
            self._log.append(entry)
        for observer in list(self._observers):
            observer(self, entry)

    async def _http_error(self, _request: Request, exc: HTTPException) -> Response:
        return _error(exc.status_code, str(exc.detail), exc.headers)

    # ------------------------------------------------------------------ routing
    def _routes(self) -> list[Route | Mount]:
        def get(path: str, handler: _Handler) -> Route:
            async def guarded(request: Request) -> Response:
                try:
                    return await handler(request)
                except filters.QueryError as exc:
                    return JSONResponse(
                        {"code": 400, "message": exc.message, "details": exc.details}, 400
                    )

            return Route(path, guarded, methods=["GET"])

        kinds: tuple[Kind, ...] = get_args(Kind)
        v1 = "/api/v1/workloads"
        access = AccessAPI(self.scenario)
        return [
            Route("/api/v1/token", self._tokens.token_v1, methods=["POST"]),
            Route("/api/v2/token", self._tokens.token_v2, methods=["POST"]),
            get(v1, self._list_workloads),
            get(f"{v1}/count", self._count_workloads),
            get(f"{v1}/pods", lambda request: list_all_pods(self.scenario, request)),
            *[
                get(f"{v1}/{kind}/{{workload_id}}", self._spec(kind))
                for kind in kinds
                if kind != "v2"
            ],
            get("/api/v2/workloads/{workload_id}", self._spec("v2")),
            get(f"{v1}/{{workload_id}}", self._get_workload),
            get(f"{v1}/{{workload_id}}/pods", self._pods),
            get(f"{v1}/{{workload_id}}/events", self._events),
            get(f"{v1}/{{workload_id}}/history", self._history),
            get(f"{v1}/{{workload_id}}/metrics", self._metrics),
            get("/api/v1/clusters", self._clusters),
            get("/api/v1/clusters/{cluster_uuid}", self._cluster),
            get("/api/v1/nodes", self._nodes),
            *access.routes(get),
            *SchedulingAPI(self.scenario, access.projects, access.departments).routes(get),
            Mount(KUBE_PREFIX, app=self._kube.app),
            *(self.workloads.routes() if self._control else []),
        ]
