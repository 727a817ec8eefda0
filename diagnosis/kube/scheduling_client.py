"""The scheduler's objects through `KubeClient`: a PodGroup, its Queue, and any object's events.

A mixin over the client's GET and event paging, so `client.py` stays about pods and nodes.
Each read names the `kubectl` command that would show the same thing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from diagnosis.http.paths import nonempty, segment
from diagnosis.http.responses import parse_model, safe_url, shape_error
from diagnosis.kube.responses import KubeGet
from diagnosis.kube.scheduling_models import PodGroup, Queue

if TYPE_CHECKING:
    import httpx

    from diagnosis.kube.event_models import KubeEvent

__all__ = ["GET_PODGROUP", "GET_QUEUE", "PODGROUPS", "QUEUES", "SchedulerObjects"]

_NAMED = "a Kubernetes namespace, kind or object name"

GET_PODGROUP = "kubectl get podgroup"
GET_QUEUE = "kubectl get queue"
PODGROUPS = "/apis/scheduling.run.ai/v2alpha2"
QUEUES = "/apis/scheduling.run.ai/v2"


class _Client(KubeGet, Protocol):
    """What the mixin needs of `KubeClient`: its GET and its event paging."""

    async def _object_events(
        self, paths: tuple[str, str], match: dict[str, str]
    ) -> list[KubeEvent]: ...


def _body(response: httpx.Response, operation: str) -> object:
    try:
        return response.json()
    except ValueError as exc:
        raise shape_error(
            "the body is not JSON", operation=operation, url=safe_url(response.request.url)
        ) from exc


class SchedulerObjects:
    """`get_podgroup`, `get_queue` and `list_object_events`."""

    async def get_podgroup(self: _Client, namespace: str, name: str) -> PodGroup:
        """`kubectl get podgroup -o yaml`: spec (queue, minMember) and scheduling conditions."""
        path = (
            f"{PODGROUPS}/namespaces/{segment(namespace, _NAMED)}/podgroups/{segment(name, _NAMED)}"
        )
        response = await self._get(path, operation=GET_PODGROUP)
        url = safe_url(response.request.url)
        return parse_model(PodGroup, _body(response, GET_PODGROUP), operation=GET_PODGROUP, url=url)

    async def get_queue(self: _Client, name: str) -> Queue:
        """`kubectl get queue <name>` (cluster scoped); `NotFound` when it does not exist."""
        response = await self._get(f"{QUEUES}/queues/{segment(name, _NAMED)}", operation=GET_QUEUE)
        url = safe_url(response.request.url)
        return parse_model(Queue, _body(response, GET_QUEUE), operation=GET_QUEUE, url=url)

    async def list_object_events(
        self: _Client, namespace: str, kind: str, name: str
    ) -> list[KubeEvent]:
        """`kubectl get events --field-selector involvedObject.kind=<kind>,...name=<name>`.

        Oldest first, annotations kept (the scheduler's `Evict` events carry the evictor's
        name and action there); the same events.k8s.io/v1 fallback as pod events.
        """
        ns = segment(namespace, _NAMED)
        return await self._object_events(
            (f"/api/v1/namespaces/{ns}/events", f"/apis/events.k8s.io/v1/namespaces/{ns}/events"),
            {"kind": nonempty(kind, _NAMED), "name": nonempty(name, _NAMED)},
        )
