"""KUBE_CLUSTERS is parsed by the settings, with the pod's own API server for in-cluster entries."""

from __future__ import annotations

import json

import pytest

from bot.config import Settings
from diagnosis import KubeAccessError

CLUSTER = "2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92"
IN_CLUSTER = json.dumps({CLUSTER: {"mode": "in-cluster"}})


def test_no_kube_clusters_is_no_tier_2():
    assert len(Settings(_env_file=None).kube.access()) == 0


#: (KUBERNETES_SERVICE_HOST, KUBERNETES_SERVICE_PORT, the API server of an in-cluster entry)
IN_CLUSTER_HOSTS = [
    ("10.96.0.1", "443", "https://10.96.0.1:443"),
    ("10.96.0.1", None, "https://10.96.0.1:443"),
    ("fd00::1", "6443", "https://[fd00::1]:6443"),
]


@pytest.mark.parametrize(("host", "port", "api_url"), IN_CLUSTER_HOSTS)
def test_in_cluster_entries_use_the_pods_api_server(
    monkeypatch: pytest.MonkeyPatch, host: str, port: str | None, api_url: str
):
    monkeypatch.setenv("KUBE_CLUSTERS", IN_CLUSTER)
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", host)
    if port is None:
        monkeypatch.delenv("KUBERNETES_SERVICE_PORT", raising=False)
    else:
        monkeypatch.setenv("KUBERNETES_SERVICE_PORT", port)
    access = Settings(_env_file=None).kube.access()
    assert access.cluster_ids == (CLUSTER,)
    target = access.target(CLUSTER)
    assert target is not None
    assert target.api_url == api_url


def test_an_in_cluster_entry_outside_a_pod_is_named(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    settings = Settings(_env_file=None, kube_clusters=IN_CLUSTER)
    with pytest.raises(KubeAccessError, match=r"KUBE_CLUSTERS\[.*KUBERNETES_SERVICE_HOST"):
        settings.kube.access()


def test_malformed_kube_clusters_is_named():
    with pytest.raises(KubeAccessError, match="KUBE_CLUSTERS is not valid JSON"):
        Settings(_env_file=None, kube_clusters="{not json").kube.access()
