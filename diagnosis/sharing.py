"""One diagnosis for many askers: the `Share` seam the pipeline calls, and its JSON codecs.

During an outage many people ask about the same workload at once. `diagnose(..., share=...)`
hands the work to the caller's `Share` (the bot: single-flight over Redis, or in memory):
everyone asking for the same key at about the same time gets the one result, and a finished
one may be reused for a short while. The engine stays storage-free: it only turns results
into text (`Payload`) and back. Two kinds are shared:

- `"lookup"`: the resolution's reads (`get_workload`, `list_workloads`), coalesced by their
  arguments (`SharedLookups`), so a storm resolves once; each asker still filters and
  authorizes what came back on its own.
- `"report"`: everything after the asker's access is checked, keyed by the workload's
  state (`report_key`: cluster, ID, phase and `phaseUpdatedAt`, lookback, symptom, Tier 2)
  and by whether the asker may see its department's figures.

Errors the engine raises on purpose (`UpstreamError` and its kinds) travel too, marked not
to be kept: those already waiting get them, nobody later does.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Literal, NamedTuple, Protocol, TypeVar

from pydantic import TypeAdapter

from diagnosis.errors import (
    AuthError,
    NotFound,
    UpstreamError,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from diagnosis.report import Report
from diagnosis.request import DiagnosisRequest
from diagnosis.runai.models import (
    Cluster,
    Event,
    HistoryRecord,
    Measurement,
    Node,
    Pod,
    Workload,
    WorkloadSpec,
)
from diagnosis.runai.reader import RunaiReader
from diagnosis.runai.scheduling_models import (
    DepartmentQuota,
    NodePool,
    ProjectQuota,
    Telemetry,
    WorkloadPriority,
)

__all__ = [
    "Payload",
    "Share",
    "SharedKind",
    "SharedLookups",
    "report_key",
    "shared_lookup",
    "shared_report",
]

SharedKind = Literal["lookup", "report"]
T = TypeVar("T")


class Payload(NamedTuple):
    """A shared result as text; `keep` False: hand it to those waiting, never reuse it."""

    text: str
    keep: bool


class Share(Protocol):
    """Runs `compute` once for everyone asking for `key` of `kind` at about the same time.

    Returns the text of the one `Payload` (computed here, by another task or replica, or
    kept from a recent one). An exception `compute` raises (beyond the errors it encodes
    itself) must never leave the others waiting: they see it too, or compute again.
    """

    async def __call__(
        self, kind: SharedKind, key: str, compute: Callable[[], Awaitable[Payload]], /
    ) -> str:
        """The shared result's text."""
        ...


_ERRORS: dict[str, type[UpstreamError]] = {
    cls.__name__: cls
    for cls in (UpstreamError, AuthError, NotFound, UpstreamTimeout, UpstreamUnavailable)
}


def _error_payload(error: UpstreamError) -> Payload:
    kind = type(error).__name__ if type(error).__name__ in _ERRORS else "UpstreamError"
    fields = {
        "type": kind,
        "message": str(error.args[0]) if error.args else "",
        "operation": error.operation,
        "url": error.url,
        "status": error.status,
    }
    return Payload("E" + json.dumps(fields), keep=False)


def _raise_error(text: str) -> None:
    """Raise the error a payload carries (nothing when it carries a result)."""
    if not text.startswith("E"):
        return
    fields = json.loads(text[1:])
    cls = _ERRORS.get(str(fields["type"]), UpstreamError)
    raise cls(
        str(fields["message"]),
        operation=str(fields["operation"]),
        url=str(fields["url"]),
        status=fields["status"],
    )


async def _shared(
    share: Share,
    kind: SharedKind,
    key: str,
    compute: Callable[[], Awaitable[T]],
    adapter: TypeAdapter[T],
    *,
    keep: bool = True,
) -> T:
    async def encoded() -> Payload:
        try:
            value = await compute()
        except UpstreamError as error:
            return _error_payload(error)
        return Payload("V" + adapter.dump_json(value).decode(), keep=keep)

    text = await share(kind, key, encoded)
    _raise_error(text)
    return adapter.validate_json(text[1:])


_REPORT = TypeAdapter(Report)


def report_key(
    request: DiagnosisRequest, workload: Workload, *, tier2: bool, department: bool = False
) -> str:
    """What makes two reports the same: the workload's state and what was asked about it.

    `department`: whether its department's figures may be read for this asker; askers who
    may not never share a report that read them (nor cause one to be read).
    """
    changed = workload.phase_updated_at.isoformat() if workload.phase_updated_at else "-"
    parts = (
        workload.cluster_id,
        workload.id,
        workload.phase or "-",
        changed,
        str(int(request.lookback.total_seconds())),
        request.symptom.value if request.symptom else "-",
        "tier2" if tier2 else "tier1",
        "department" if department else "-",
    )
    return "|".join(parts)


async def shared_report(share: Share, key: str, compute: Callable[[], Awaitable[Report]]) -> Report:
    """The report for `key`, computed once for everyone asking for it now."""
    return await _shared(share, "report", key, compute, _REPORT)


async def shared_lookup(
    share: Share, key: str, compute: Callable[[], Awaitable[T]], adapter: TypeAdapter[T]
) -> T:
    """A Run:ai read shared by its arguments (`key`), like the resolution's reads.

    Everyone asking it at about the same time gets the one result; each asker still
    authorizes what it uses on its own.
    """
    return await _shared(share, "lookup", key, compute, adapter)


_WORKLOAD = TypeAdapter(Workload)
_WORKLOADS = TypeAdapter(list[Workload])


class SharedLookups:
    """A `RunaiReader` whose resolution reads are shared; every other read passes through.

    Only what the resolution reads before the asker's access is known is shared: a
    workload by ID, the workloads with a name, a project's workloads (near matches).
    """

    def __init__(self, runai: RunaiReader, share: Share) -> None:
        self._runai = runai
        self._share = share

    async def get_workload(self, workload_id: str) -> Workload:
        """See `RunaiReader.get_workload` (shared)."""
        key = f"get_workload|{workload_id}"
        call = self._runai.get_workload
        return await _shared(self._share, "lookup", key, lambda: call(workload_id), _WORKLOAD)

    async def list_workloads(self, *, cluster_id: str, project: str, name: str) -> list[Workload]:
        """See `RunaiReader.list_workloads` (shared)."""

        def call() -> Awaitable[list[Workload]]:
            return self._runai.list_workloads(cluster_id=cluster_id, project=project, name=name)

        key = f"list_workloads|{cluster_id}|{project}|{name}"
        return await _shared(self._share, "lookup", key, call, _WORKLOADS)

    async def list_project_workloads(self, *, cluster_id: str, project: str) -> list[Workload]:
        """See `RunaiReader.list_project_workloads` (shared)."""

        def call() -> Awaitable[list[Workload]]:
            return self._runai.list_project_workloads(cluster_id=cluster_id, project=project)

        key = f"list_project_workloads|{cluster_id}|{project}"
        return await _shared(self._share, "lookup", key, call, _WORKLOADS)

    async def list_events(self, workload_id: str, *, since: datetime) -> list[Event] | None:
        """See `RunaiReader.list_events`."""
        return await self._runai.list_events(workload_id, since=since)

    async def get_workload_spec(self, workload: Workload) -> WorkloadSpec:
        """See `RunaiReader.get_workload_spec`."""
        return await self._runai.get_workload_spec(workload)

    async def list_pods(self, workload_id: str) -> list[Pod]:
        """See `RunaiReader.list_pods`."""
        return await self._runai.list_pods(workload_id)

    async def get_history(self, workload_id: str, *, cutoff: datetime) -> list[HistoryRecord]:
        """See `RunaiReader.get_history`."""
        return await self._runai.get_history(workload_id, cutoff=cutoff)

    async def get_metrics(
        self,
        workload_id: str,
        *,
        metric_types: Sequence[str],
        start: datetime,
        end: datetime,
        samples: int = 200,
    ) -> list[Measurement]:
        """See `RunaiReader.get_metrics`."""
        return await self._runai.get_metrics(
            workload_id, metric_types=metric_types, start=start, end=end, samples=samples
        )

    async def list_clusters(self) -> list[Cluster]:
        """See `RunaiReader.list_clusters`."""
        return await self._runai.list_clusters()

    async def list_nodes(self, *, cluster_id: str, names: Sequence[str]) -> list[Node]:
        """See `RunaiReader.list_nodes`."""
        return await self._runai.list_nodes(cluster_id=cluster_id, names=names)

    async def get_project(self, project_id: str) -> ProjectQuota:
        """See `RunaiReader.get_project`."""
        return await self._runai.get_project(project_id)

    async def get_department(self, department_id: str) -> DepartmentQuota:
        """See `RunaiReader.get_department`."""
        return await self._runai.get_department(department_id)

    async def list_project_quotas(self, *, cluster_id: str) -> list[ProjectQuota]:
        """See `RunaiReader.list_project_quotas`."""
        return await self._runai.list_project_quotas(cluster_id=cluster_id)

    async def list_node_pools(self, *, cluster_id: str) -> list[NodePool]:
        """See `RunaiReader.list_node_pools`."""
        return await self._runai.list_node_pools(cluster_id=cluster_id)

    async def list_pool_nodes(self, *, cluster_id: str, node_pool: str) -> list[Node]:
        """See `RunaiReader.list_pool_nodes`."""
        return await self._runai.list_pool_nodes(cluster_id=cluster_id, node_pool=node_pool)

    async def list_pool_workloads(self, *, cluster_id: str, node_pool: str) -> list[Workload]:
        """See `RunaiReader.list_pool_workloads`."""
        return await self._runai.list_pool_workloads(cluster_id=cluster_id, node_pool=node_pool)

    async def get_node_telemetry(self, *, cluster_id: str, telemetry_type: str) -> Telemetry:
        """See `RunaiReader.get_node_telemetry`."""
        return await self._runai.get_node_telemetry(
            cluster_id=cluster_id, telemetry_type=telemetry_type
        )

    async def list_workload_priorities(self) -> list[WorkloadPriority]:
        """See `RunaiReader.list_workload_priorities`."""
        return await self._runai.list_workload_priorities()

    async def get_project_metrics(
        self,
        project_id: str,
        *,
        metric_types: Sequence[str],
        start: datetime,
        end: datetime,
        node_pool: str | None = None,
        samples: int = 20,
    ) -> list[Measurement]:
        """See `RunaiReader.get_project_metrics`."""
        return await self._runai.get_project_metrics(
            project_id,
            metric_types=metric_types,
            start=start,
            end=end,
            node_pool=node_pool,
            samples=samples,
        )
