"""Kubernetes (Tier 2 evidence): which API server, with which credentials, serves each cluster."""

from __future__ import annotations

from pydantic import Field

from bot.config.base import Concern
from diagnosis import KubeAccess

__all__ = ["KubeSettings"]


class KubeSettings(Concern):
    """Kubernetes access per Run:ai cluster (`KUBE_CLUSTERS`); unlisted clusters get no Tier 2."""

    clusters: str | None = Field(
        default=None,
        validation_alias="kube_clusters",
        description=(
            "`KUBE_CLUSTERS`, JSON mapping a Run:ai cluster UUID to its Kubernetes access "
            '(`{"<uuid>": {"mode": "in-cluster"}}`, `kubeconfig` + `path` + `context`, or '
            "`token` + `api_url` + `token_file` [+ `ca_file`]). Clusters not listed get no "
            "Tier 2 evidence, and their reports say so."
        ),
    )
    service_host: str | None = Field(
        default=None,
        validation_alias="kubernetes_service_host",
        description=(
            "`KUBERNETES_SERVICE_HOST`, set by Kubernetes in every pod: the API server of "
            '`"mode": "in-cluster"` entries.'
        ),
    )
    service_port: str | None = Field(
        default=None,
        validation_alias="kubernetes_service_port",
        description="`KUBERNETES_SERVICE_PORT`, set by Kubernetes with the host (default 443).",
    )

    def access(self) -> KubeAccess:
        """`KUBE_CLUSTERS`, parsed; `KubeAccessError` names the cluster whose entry is wrong."""
        pod = {
            "KUBERNETES_SERVICE_HOST": self.service_host,
            "KUBERNETES_SERVICE_PORT": self.service_port,
        }
        return KubeAccess.parse(
            self.clusters, env={name: value for name, value in pod.items() if value is not None}
        )
