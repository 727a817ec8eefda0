"""The scheduler's objects in the fake Kubernetes API: PodGroups (namespaced) and Queues.

Served from the scenario's `kubernetes.podgroups` and `kubernetes.queues` under
`/apis/scheduling.run.ai/v2alpha2` and `/apis/scheduling.run.ai/v2`, with the same selectors,
paging and errors as the core objects (`runai_sim.kube.KubeAPI`, which mixes this in).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

    from runai_sim.scenario_parts import KubernetesView

__all__ = ["PODGROUP_API", "QUEUE_API", "SchedulerObjects"]

PODGROUP_API = "scheduling.run.ai/v2alpha2"
QUEUE_API = "scheduling.run.ai/v2"
_META_FIELDS = {
    "metadata.name": ("metadata", "name"),
    "metadata.namespace": ("metadata", "namespace"),
}
_Handler = Callable[["Request"], Awaitable["Response"]]


class _Host(Protocol):
    """What the mixin uses of `KubeAPI` (and of itself)."""

    _data: KubernetesView

    def _list(
        self,
        request: Request,
        kind: str,
        items: list[dict[str, Any]],
        fields: Mapping[str, tuple[str, ...]],
        convert: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        *,
        api: str = "v1",
    ) -> Response: ...

    def _in_namespace(
        self, request: Request, items: list[dict[str, Any]]
    ) -> list[dict[str, Any]]: ...

    def _one(
        self, request: Request, items: list[dict[str, Any]], *, kind: str, plural: str, api: str
    ) -> Response: ...

    async def _podgroups(self, request: Request) -> Response: ...
    async def _podgroup(self, request: Request) -> Response: ...
    async def _queues(self, request: Request) -> Response: ...
    async def _queue(self, request: Request) -> Response: ...


class SchedulerObjects:
    """List and get PodGroups and Queues (a mixin of `KubeAPI`)."""

    def scheduler_routes(self: _Host) -> list[tuple[str, _Handler]]:
        """(path, handler) pairs, relative to `/k8s`, for `KubeAPI`'s route table."""
        groups, queues = f"/{{cluster}}/apis/{PODGROUP_API}", f"/{{cluster}}/apis/{QUEUE_API}"
        return [
            (f"{groups}/podgroups", self._podgroups),
            (f"{groups}/namespaces/{{ns}}/podgroups", self._podgroups),
            (f"{groups}/namespaces/{{ns}}/podgroups/{{name}}", self._podgroup),
            (f"{queues}/queues", self._queues),
            (f"{queues}/queues/{{name}}", self._queue),
        ]

    async def _podgroups(self: _Host, request: Request) -> Response:
        groups = self._in_namespace(request, self._data.podgroups)
        return self._list(request, "PodGroupList", groups, _META_FIELDS, api=PODGROUP_API)

    async def _podgroup(self: _Host, request: Request) -> Response:
        groups = self._in_namespace(request, self._data.podgroups)
        plural = "podgroups.scheduling.run.ai"
        return self._one(request, groups, kind="PodGroup", plural=plural, api=PODGROUP_API)

    async def _queues(self: _Host, request: Request) -> Response:
        return self._list(request, "QueueList", self._data.queues, _META_FIELDS, api=QUEUE_API)

    async def _queue(self: _Host, request: Request) -> Response:
        plural = "queues.scheduling.run.ai"
        return self._one(request, self._data.queues, kind="Queue", plural=plural, api=QUEUE_API)
