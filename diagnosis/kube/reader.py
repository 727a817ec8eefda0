"""The read-only Kubernetes view the pipeline depends on, and the per-cluster directory.

`KubeClient` implements `KubeReader`; `KubeDirectory` hands the pipeline the reader for a
Run:ai cluster, or None when Tier 2 is not configured for it (never a guess at another
cluster's API).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import httpx

from diagnosis.kube.access import KubeAccess
from diagnosis.kube.client import KubeClient
from diagnosis.kube.event_models import KubeEvent
from diagnosis.kube.models import KubeNode, Pod
from diagnosis.kube.scheduling_models import PodGroup, Queue

__all__ = ["KubeConnector", "KubeDirectory", "KubeReader"]


class KubeReader(Protocol):
    """The reads of the skill's Step 4, as API calls. All raise only `diagnosis.errors`."""

    async def get_pod(self, namespace: str, name: str) -> Pod:
        """`kubectl describe pod`: container states, last states, conditions, node."""
        ...

    async def list_pod_events(self, namespace: str, pod_name: str) -> list[KubeEvent]:
        """`kubectl get events --field-selector involvedObject.name=<pod>`."""
        ...

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
        """`kubectl logs [--previous]`, tail and byte capped."""
        ...

    async def get_node(self, name: str) -> KubeNode:
        """`kubectl describe node`: conditions, taints and `spec.unschedulable`."""
        ...

    async def list_node_events(self, name: str) -> list[KubeEvent]:
        """`kubectl describe node`'s events: `NodeNotSchedulable`, `NodeNotReady`, ..."""
        ...

    async def get_podgroup(self, namespace: str, name: str) -> PodGroup:
        """`kubectl get podgroup`: queue, gang minimum and per-pool scheduling conditions."""
        ...

    async def get_queue(self, name: str) -> Queue:
        """`kubectl get queue` (cluster scoped); `NotFound` when the queue does not exist."""
        ...

    async def list_object_events(self, namespace: str, kind: str, name: str) -> list[KubeEvent]:
        """Events about one object (a PodGroup's `Evict`, `NotReady`, ...), annotations kept."""
        ...


class KubeConnector(Protocol):
    """Gives the reader for a Run:ai cluster, or None when that cluster has no Tier 2."""

    def for_cluster(self, cluster_id: str) -> KubeReader | None:
        """The reader for `cluster_id` (may raise `KubeAccessError` for a broken target)."""
        ...


class KubeDirectory:
    """One `KubeClient` per configured cluster, created on first use, closed together.

    `transport`, when given, is what every client sends its requests through (tests and the
    in-process simulator pass an `httpx.ASGITransport`); by default each client builds its own
    network transport from its target's TLS settings. `wrap` is handed to every client
    (`KubeClient`'s `wrap`).
    """

    def __init__(
        self,
        access: KubeAccess,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        wrap: Callable[[httpx.AsyncBaseTransport], httpx.AsyncBaseTransport] | None = None,
    ) -> None:
        self._access = access
        self._transport = transport
        self._wrap = wrap
        self._clients: dict[str, KubeClient] = {}

    def for_cluster(self, cluster_id: str) -> KubeReader | None:
        """See `KubeConnector.for_cluster`."""
        target = self._access.target(cluster_id)
        if target is None:
            return None
        if cluster_id not in self._clients:
            self._clients[cluster_id] = KubeClient(
                target, transport=self._transport, wrap=self._wrap
            )
        return self._clients[cluster_id]

    async def aclose(self) -> None:
        """Close every client created so far."""
        for client in self._clients.values():
            await client.aclose()
        self._clients.clear()
