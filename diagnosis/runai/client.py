"""`RunaiClient`: the read-only HTTP implementation of `RunaiReader`."""

from __future__ import annotations

import contextlib
from datetime import datetime
from typing import TYPE_CHECKING, Any, Self

import httpx

from diagnosis.errors import NotFound
from diagnosis.http.client import CookielessClient
from diagnosis.http.limit import NO_LIMIT, CallLimiter, LimitedTransport
from diagnosis.http.paths import segment
from diagnosis.http.responses import (
    json_member,
    parse_model,
    parse_models,
    safe_url,
    shape_error,
)
from diagnosis.http.transport import ReadOnlyTransport, RetryTransport, network_transport
from diagnosis.runai.access_client import AccessReads
from diagnosis.runai.auth import TOKEN_PATH, RunaiTokenAuth
from diagnosis.runai.history_client import HistoryReads
from diagnosis.runai.models import (
    Cluster,
    Node,
    Pod,
    Workload,
    WorkloadSpec,
)
from diagnosis.runai.scheduling_client import SchedulingReads
from diagnosis.runai.session import MAX_PAGES, PAGE_SIZE, WORKLOAD_ID, Paging, Params, iso
from diagnosis.runai.session import get as _get

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping, Sequence

    from diagnosis.runai.config import RunaiConfig
    from diagnosis.runai.reader import RunaiReader

    def _satisfies_reader(client: RunaiClient) -> RunaiReader:
        return client  # mypy proves RunaiClient structurally implements RunaiReader


__all__ = [
    "FALLBACK_SPEC_KINDS",
    "MAX_PAGES",
    "NEAR_MATCH_LIMIT",
    "SPEC_KIND_PATHS",
    "RunaiClient",
]

SPEC_KIND_PATHS: Mapping[str, str] = {
    "training": "trainings",
    "train": "trainings",
    "workspace": "workspaces",
    "interactive": "workspaces",
    "inference": "inferences",
    "distributed": "distributed",
    "distributedinference": "distributed-inferences",
}
"""Workload `type` (lower-cased, letters and digits only) → `/api/v1/workloads/<kind>/{id}`."""

FALLBACK_SPEC_KINDS = ("trainings", "workspaces", "inferences", "distributed")
"""Kind paths tried in turn, 404 meaning "not this kind", when the `type` is not recognised."""

_V2_KIND = "v2"
#: A spec body names its workload or carries its `spec`; one with none of these is not a spec.
_SPEC_MEMBERS = frozenset({"workloadId", "id", "name", "spec"})
NEAR_MATCH_LIMIT = 500
"""Workloads of a project read (newest first) to suggest near matches for a name."""


class RunaiClient(SchedulingReads, AccessReads, HistoryReads, Paging):
    """Reads workloads, events, specs, pods, history, metrics, clusters and nodes from Run:ai.

    The scheduling reads (project quotas, node pools, telemetry, priorities) come from
    `SchedulingReads`; the access-model reads (access rules, users, roles, projects,
    departments), which per-user authorization asks, from `AccessReads`; a workload's events,
    history and metrics from `HistoryReads`.

    Satisfies `RunaiReader`. Requests flow AsyncClient → `RunaiTokenAuth` → `RetryTransport`
    → `ReadOnlyTransport` → `transport`, so nothing but GET (and the token POST) can leave.
    Raises only `diagnosis.errors` exceptions (plus `ReadOnlyViolation`, a `DiagnosisError`).

    Args:
        config: control-plane URL, credentials, timeout, retry and refresh settings.
        transport: what actually sends requests (default `network_transport()`);
            tests pass an `httpx.MockTransport`.
        clock: wall clock in epoch seconds (token expiry, `Retry-After` dates).
        sleep: awaitable sleep used between retries (default `asyncio.sleep`).
        logger: structlog-style logger (default `structlog.get_logger()` per module).
        limiter: bounds concurrent requests (every attempt, the token POST included), e.g.
            across replicas; default `NO_LIMIT`.
    """

    def __init__(
        self,
        config: RunaiConfig,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Callable[[], float] | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        logger: Any = None,
        limiter: CallLimiter = NO_LIMIT,
    ) -> None:
        base = httpx.URL(config.url)
        token_path = base.path.rstrip("/") + TOKEN_PATH
        limited = LimitedTransport(transport or network_transport(), limiter)
        guarded = ReadOnlyTransport(limited, token_path=token_path, name="the Run:ai client")
        retrying = RetryTransport(
            guarded,
            retries=config.retries,
            backoff_s=config.backoff_s,
            max_backoff_s=config.max_backoff_s,
            sleep=sleep,
            clock=clock,
            logger=logger,
        )
        self._auth = RunaiTokenAuth(
            token_url=base.copy_with(path=token_path, query=None),
            client_id=config.client_id,
            client_secret=config.client_secret,
            refresh_margin_s=config.token_refresh_margin_s,
            clock=clock,
            logger=logger,
        )
        self._http = CookielessClient(
            base_url=config.url,
            timeout=httpx.Timeout(config.timeout_s),
            transport=retrying,
            auth=self._auth,
            headers={"Accept": "application/json", "User-Agent": "runai-why"},
        )

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        await self._http.aclose()

    async def list_workloads(self, *, cluster_id: str, project: str, name: str) -> list[Workload]:
        """`list_workloads`: exact name/cluster/project matches, newest `phaseUpdatedAt` first."""
        params: Params = {
            "filterBy": f"name=={name},clusterId=={cluster_id},projectName=={project}",
            "sortBy": "phaseUpdatedAt",
            "sortOrder": "desc",
            "limit": PAGE_SIZE,
        }
        found = await self._collect(
            "list_workloads", "/api/v1/workloads", params, key="workloads", model=Workload
        )
        return [
            w
            for w in found
            if w.name == name and w.project_name == project and w.cluster_id == cluster_id
        ]

    async def list_project_workloads(self, *, cluster_id: str, project: str) -> list[Workload]:
        """The project's newest workloads on one cluster (one page of `NEAR_MATCH_LIMIT`)."""
        params: Params = {
            "filterBy": f"clusterId=={cluster_id},projectName=={project}",
            "sortBy": "phaseUpdatedAt",
            "sortOrder": "desc",
            "limit": NEAR_MATCH_LIMIT,
        }
        operation = "list_workloads"
        body, url = await _get(self._http, "/api/v1/workloads", operation=operation, params=params)
        raw = json_member(body, "workloads", operation=operation, url=url)
        found = [] if raw is None else parse_models(Workload, raw, operation=operation, url=url)
        return [w for w in found if w.project_name == project and w.cluster_id == cluster_id]

    async def list_changed_workloads(
        self, *, cluster_id: str, project: str, since: datetime
    ) -> list[Workload]:
        """Workloads of one project on one cluster whose phase changed at or after `since`.

        Oldest change first (`sortBy=phaseUpdatedAt`), every page: what a watch polls.
        """
        params: Params = {
            "filterBy": (
                f"clusterId=={cluster_id},projectName=={project},phaseUpdatedAt>={iso(since)}"
            ),
            "sortBy": "phaseUpdatedAt",
            "sortOrder": "asc",
            "limit": PAGE_SIZE,
        }
        found = await self._collect(
            "list_workloads", "/api/v1/workloads", params, key="workloads", model=Workload
        )
        return [w for w in found if w.project_name == project and w.cluster_id == cluster_id]

    async def get_workload(self, workload_id: str) -> Workload:
        """`get_workload_status`: `GET /api/v1/workloads/{id}`."""
        path = f"/api/v1/workloads/{segment(workload_id, WORKLOAD_ID)}"
        body, url = await _get(self._http, path, operation="get_workload_status")
        return parse_model(Workload, body, operation="get_workload_status", url=url)

    async def get_workload_spec(self, workload: Workload) -> WorkloadSpec:
        """`get_workload_spec`: the kind-specific spec, `kind_path` set to the kind that served it.

        The kind comes from `workload.type` (`SPEC_KIND_PATHS`); `sourceApi == WorkloadsV2` uses
        `/api/v2/workloads/{id}` (kind ``"v2"``). An unrecognised type tries
        `FALLBACK_SPEC_KINDS` in turn; `NotFound` when none of them has the workload.
        """
        workload_segment = segment(workload.id, WORKLOAD_ID)
        if (workload.source_api or "").casefold() == "workloadsv2":
            return await self._spec(f"/api/v2/workloads/{workload_segment}", _V2_KIND)
        normalised = "".join(c for c in (workload.type or "").casefold() if c.isalnum())
        kind = SPEC_KIND_PATHS.get(normalised)
        if kind is not None:
            return await self._spec(f"/api/v1/workloads/{kind}/{workload_segment}", kind)
        for kind in FALLBACK_SPEC_KINDS:
            with contextlib.suppress(NotFound):
                return await self._spec(f"/api/v1/workloads/{kind}/{workload_segment}", kind)
        raise NotFound(
            f"no spec endpoint ({', '.join(FALLBACK_SPEC_KINDS)}) knows type {workload.type!r}",
            operation="get_workload_spec",
            url=safe_url(self._http.base_url.join(f"api/v1/workloads/*/{workload_segment}")),
            status=404,
        )

    async def list_pods(self, workload_id: str) -> list[Pod]:
        """`get_workload_pods`: every page of `GET /api/v1/workloads/{id}/pods`."""
        path = f"/api/v1/workloads/{segment(workload_id, WORKLOAD_ID)}/pods"
        params: Params = {"limit": PAGE_SIZE}
        return await self._collect("get_workload_pods", path, params, key="pods", model=Pod)

    async def list_node_pods(
        self, *, cluster_id: str, node: str, start: datetime, end: datetime
    ) -> list[Pod]:
        """The pods of every workload that ran on `node` and ended between `start` and `end`.

        `GET /api/v1/workloads/pods` filtered by cluster, node and `completedAt`, with
        `verbosity=full` (each pod names its workload and project). Pods of other nodes or
        clusters, should the server ignore the filter, are dropped.
        """
        params: Params = {
            "filterBy": f"clusterId=={cluster_id},nodeName=={node},"
            f"completedAt>={iso(start)},completedAt<={iso(end)}",
            "verbosity": "full",
            "limit": PAGE_SIZE,
        }
        pods = await self._collect(
            "get_workload_pods", "/api/v1/workloads/pods", params, key="pods", model=Pod
        )
        return [p for p in pods if p.node_name == node and p.cluster_id in {None, cluster_id}]

    async def list_clusters(self) -> list[Cluster]:
        """`GET /api/v1/clusters` (a bare JSON array)."""
        body, url = await _get(self._http, "/api/v1/clusters", operation="list_clusters")
        return parse_models(Cluster, body, operation="list_clusters", url=url)

    async def list_nodes(self, *, cluster_id: str, names: Sequence[str]) -> list[Node]:
        """`GET /api/v1/nodes` for the cluster; only nodes named in `names` are returned."""
        wanted = set(names)
        if not wanted:
            return []
        filter_by = f"clusterUuid=={cluster_id}"
        if len(wanted) == 1:
            filter_by += f",name=={next(iter(wanted))}"
        params: Params = {"filterBy": filter_by, "limit": PAGE_SIZE}
        nodes = await self._collect("list_nodes", "/api/v1/nodes", params, key="nodes", model=Node)
        return [n for n in nodes if n.name in wanted and n.cluster_uuid in {None, cluster_id}]

    async def _spec(self, path: str, kind: str) -> WorkloadSpec:
        body, url = await _get(self._http, path, operation="get_workload_spec")
        if isinstance(body, dict) and not _SPEC_MEMBERS & body.keys():
            # `{}` or a Kubernetes `Status`: nothing of a workload's spec, not "an empty spec"
            raise shape_error(
                "no `spec` or workload member", operation="get_workload_spec", url=url
            )
        spec = parse_model(WorkloadSpec, body, operation="get_workload_spec", url=url)
        return spec.model_copy(update={"kind_path": kind})
