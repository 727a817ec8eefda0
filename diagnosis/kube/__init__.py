"""Tier 2: the read-only Kubernetes API client and the per-cluster access configuration.

`KubeAccess` maps Run:ai cluster UUIDs to `KubeTarget`s (in-cluster service account,
kubeconfig context, or explicit API URL plus token file); `KubeClient` reads pods, pod events,
container logs and nodes from one target with plain GET requests.
"""

from __future__ import annotations

from diagnosis.kube.access import KubeAccess
from diagnosis.kube.client import KubeClient
from diagnosis.kube.config import KubeAccessError, KubeTarget
from diagnosis.kube.event_models import KubeEvent
from diagnosis.kube.models import KubeNode, Pod

__all__ = [
    "KubeAccess",
    "KubeAccessError",
    "KubeClient",
    "KubeEvent",
    "KubeNode",
    "KubeTarget",
    "Pod",
]
