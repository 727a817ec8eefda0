"""The deploy files: the Slack manifest asks for exactly what the bot uses; the kustomize base is valid."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from bot.settings import Settings

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"


def test_slack_manifest_is_minimal_and_points_every_surface_at_one_url():
    manifest = yaml.safe_load((DEPLOY / "slack-app-manifest.yaml").read_text())
    scopes = set(manifest["oauth_config"]["scopes"]["bot"])
    assert scopes == {
        "commands",
        "app_mentions:read",
        "chat:write",
        "files:write",
        "channels:history",
        "groups:history",
        "im:history",
        "users:read",
        "users:read.email",
    }
    [command] = manifest["features"]["slash_commands"]
    assert command["command"] == "/runai-why"
    settings = manifest["settings"]
    assert set(settings["event_subscriptions"]["bot_events"]) == {
        "app_mention",
        "message.channels",
        "message.groups",
        "message.im",
    }
    urls = {
        command["url"],
        settings["event_subscriptions"]["request_url"],
        settings["interactivity"]["request_url"],
    }
    assert len(urls) == 1
    assert urls.pop().endswith("/slack/events")
    assert settings["interactivity"]["is_enabled"] is True
    assert settings["socket_mode_enabled"] is False


def test_procfile_runs_the_http_server_and_a_worker():
    procfile = (DEPLOY.parent / "Procfile").read_text().strip().splitlines()
    assert procfile == ["web: runai-why serve --host 0.0.0.0", "worker: runai-why worker"]


# ---------------------------------------------------------------- the kustomize base
# There is no kustomize binary here: these tests do what `kustomize build` relies on (every
# listed file exists and parses; nothing is left out), validate every resource against the
# Kubernetes schemas that kubernetes-validate bundles (offline), and check what kustomize
# would not: selectors that match, a service account that exists, settings that exist.

KUBE = DEPLOY / "kubernetes"
BASE = KUBE / "base"
#: The oldest Kubernetes whose schemas the manifests are checked against (still supported by
#: the major clouds); anything the manifests use must exist there.
KUBERNETES_VERSION = "1.30"
#: Environment variables the pods set that are not runai-why settings.
NOT_SETTINGS = frozenset({"PYTHONDONTWRITEBYTECODE"})
#: The benchmark's bound on one process's peak memory (bench/README.md): a limit below it
#: would OOM-kill a pod the benchmark calls healthy.
PEAK_RSS_BOUND_MIB = 150
WEB = {"app.kubernetes.io/name": "runai-why", "app.kubernetes.io/component": "web"}


def kustomizations() -> list[Path]:
    return sorted(KUBE.glob("**/kustomization.yaml"))


def _yaml(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]


def build(folder: Path) -> list[dict[str, Any]]:
    """The resources `kustomize build folder` starts from: its files and its bases', in order."""
    kustomization = yaml.safe_load((folder / "kustomization.yaml").read_text(encoding="utf-8"))
    docs: list[dict[str, Any]] = []
    for entry in kustomization.get("resources", []):
        target = (folder / entry).resolve()
        docs += build(target) if target.is_dir() else _yaml(target)
    return docs


def _kind(docs: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [d for d in docs if d["kind"] == kind]


def _named(docs: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    [doc] = [d for d in _kind(docs, kind) if d["metadata"]["name"] == name]
    return doc


@pytest.mark.parametrize("path", kustomizations(), ids=lambda p: str(p.parent.relative_to(KUBE)))
def test_every_file_a_kustomization_names_exists_and_parses(path):
    kustomization = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert kustomization["apiVersion"] == "kustomize.config.k8s.io/v1beta1"
    assert kustomization["kind"] == "Kustomization"
    named = [
        *kustomization.get("resources", []),
        *(p["path"] for p in kustomization.get("patches", [])),
    ]
    assert named
    for entry in named:
        target = (path.parent / entry).resolve()
        assert target.exists(), f"{path}: {entry} does not exist"
        assert (target / "kustomization.yaml").exists() if target.is_dir() else _yaml(target)
    assert not kustomization.get("secretGenerator"), "secrets are created by hand, never here"


def test_no_manifest_is_left_out_of_a_kustomization():
    listed = {
        (path.parent / entry).resolve()
        for path in kustomizations()
        for kustomization in [yaml.safe_load(path.read_text(encoding="utf-8"))]
        for entry in [
            *kustomization.get("resources", []),
            *(p["path"] for p in kustomization.get("patches", [])),
        ]
    }
    files = {p.resolve() for p in [*BASE.glob("*.yaml"), *KUBE.glob("overlays/*/*.yaml")]}
    assert files - {p.resolve() for p in kustomizations()} <= listed


@pytest.mark.parametrize(
    "doc",
    [d for path in kustomizations() for d in build(path.parent)]
    + [
        d
        for path in KUBE.glob("overlays/*/*.yaml")
        if path.name != "kustomization.yaml"
        for d in _yaml(path)
    ],
    ids=lambda d: f"{d['kind']}/{d['metadata']['name']}",
)
def test_every_resource_is_valid_against_the_kubernetes_schemas(doc):
    # strict: an unknown or misspelt field fails too, as `kubectl apply --validate=strict` would
    kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)


def test_the_base_has_everything_a_production_install_needs():
    docs = build(BASE)
    kinds = {d["kind"] for d in docs}
    assert kinds == {
        "Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "ConfigMap",
        "Deployment", "Service", "PodDisruptionBudget",
    }  # fmt: skip
    assert not _kind(docs, "Secret"), "secret values never live in the repository"
    namespace = yaml.safe_load((BASE / "kustomization.yaml").read_text())["namespace"]
    assert {d["metadata"]["namespace"] for d in docs if "namespace" in d["metadata"]} == {namespace}


def test_the_service_and_the_budget_select_the_web_pods_only():
    docs = build(KUBE / "overlays" / "split-worker")
    web = _named(docs, "Deployment", "runai-why")
    worker = _named(docs, "Deployment", "runai-why-worker")
    service, budget = (
        _named(docs, "Service", "runai-why"),
        _named(docs, "PodDisruptionBudget", "runai-why"),
    )
    pods = web["spec"]["template"]["metadata"]["labels"]
    assert web["spec"]["selector"]["matchLabels"] == WEB
    assert budget["spec"]["selector"]["matchLabels"] == WEB
    assert service["spec"]["selector"] == WEB
    assert WEB.items() <= pods.items()
    worker_pods = worker["spec"]["template"]["metadata"]["labels"]
    assert worker["spec"]["selector"]["matchLabels"].items() <= worker_pods.items()
    assert not service["spec"]["selector"].items() <= worker_pods.items()
    # the budget leaves one web pod during a drain, so it must be below the replicas
    assert 0 < budget["spec"]["minAvailable"] < web["spec"]["replicas"]
    for constraint in web["spec"]["template"]["spec"]["topologySpreadConstraints"]:
        assert constraint["labelSelector"]["matchLabels"] == WEB


def test_the_web_pods_serve_probes_metrics_and_slack_on_the_configured_ports():
    docs = build(BASE)
    web = _named(docs, "Deployment", "runai-why")
    config = _named(docs, "ConfigMap", "runai-why")["data"]
    template = web["spec"]["template"]
    [container] = template["spec"]["containers"]
    port, metrics = container["ports"]
    assert container["args"][:2] == ["runai-why", "serve"]
    assert str(port["containerPort"]) == config["PORT"]
    # /metrics is scraped on its own port (METRICS_PORT), which the Service does not expose.
    assert (
        str(metrics["containerPort"])
        == config.get("METRICS_PORT", str(Settings.model_fields["metrics_port"].default))
        == template["metadata"]["annotations"]["prometheus.io/port"]
    )
    assert template["metadata"]["annotations"]["prometheus.io/path"] == "/metrics"
    assert template["metadata"]["annotations"]["prometheus.io/scrape"] == "true"
    for probe, path in (
        ("livenessProbe", "/healthz"),
        ("readinessProbe", "/readyz"),
        ("startupProbe", "/healthz"),
    ):
        assert container[probe]["httpGet"] == {"path": path, "port": port["name"]}
    service = _named(docs, "Service", "runai-why")
    assert service["spec"]["ports"][0]["targetPort"] == port["name"]
    # SIGTERM comes after preStop; the grace period must leave the server time to drain
    pre_stop = int(container["lifecycle"]["preStop"]["exec"]["command"][-1])
    assert template["spec"]["terminationGracePeriodSeconds"] >= pre_stop + 20


def test_every_pod_is_locked_down_sized_and_runs_as_an_existing_service_account():
    docs = build(KUBE / "overlays" / "split-worker")
    accounts = {d["metadata"]["name"] for d in _kind(docs, "ServiceAccount")}
    for deployment in _kind(docs, "Deployment"):
        spec = deployment["spec"]["template"]["spec"]
        assert spec["serviceAccountName"] in accounts
        [container] = spec["containers"]
        security = container["securityContext"]
        assert security["allowPrivilegeEscalation"] is False
        assert security["readOnlyRootFilesystem"] is True
        assert security["capabilities"]["drop"] == ["ALL"]
        assert spec["securityContext"]["runAsNonRoot"] is True
        resources = container["resources"]
        assert {"cpu", "memory"} <= resources["requests"].keys()
        assert {"cpu", "memory"} <= resources["limits"].keys()
        limit, request = (_mebibytes(resources[k]["memory"]) for k in ("limits", "requests"))
        assert limit >= request > PEAK_RSS_BOUND_MIB, "sized below the benchmark's bound"


def _mebibytes(quantity: str) -> float:
    units = {"Mi": 1, "Gi": 1024, "M": 1e6 / 2**20, "G": 1e9 / 2**20}
    for suffix, factor in units.items():
        if quantity.endswith(suffix):
            return float(quantity.removesuffix(suffix)) * factor
    return float(quantity) / 2**20


def test_every_environment_variable_the_pods_set_is_a_setting():
    settings = {name.upper() for name in Settings.model_fields}
    docs = build(KUBE / "overlays" / "split-worker")
    config_keys = {
        key
        for path in [BASE / "configmap.yaml", *KUBE.glob("overlays/*/*.yaml")]
        for doc in _yaml(path)
        if doc["kind"] == "ConfigMap"
        for key in doc.get("data", {})
    }
    env = {
        e["name"]
        for deployment in _kind(docs, "Deployment")
        for container in deployment["spec"]["template"]["spec"]["containers"]
        for e in container.get("env", [])
    }
    assert config_keys, "the ConfigMap sets something"
    assert (config_keys | env) - NOT_SETTINGS <= settings
    for deployment in _kind(docs, "Deployment"):
        [container] = deployment["spec"]["template"]["spec"]["containers"]
        assert container["envFrom"] == [{"configMapRef": {"name": "runai-why"}}]


def test_the_example_overlay_sets_the_image_and_merges_the_configuration():
    overlay = yaml.safe_load((KUBE / "overlays" / "example" / "kustomization.yaml").read_text())
    [image] = overlay["images"]
    web = _named(build(BASE), "Deployment", "runai-why")
    assert web["spec"]["template"]["spec"]["containers"][0]["image"].startswith(image["name"] + ":")
    [patch] = overlay["patches"]
    [config] = _yaml(KUBE / "overlays" / "example" / patch["path"])
    assert (config["kind"], config["metadata"]["name"]) == ("ConfigMap", "runai-why")


def test_the_readme_walks_the_deployment_end_to_end():
    readme = (DEPLOY.parent / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Deploy to Kubernetes") :]
    for step in (
        "docker build -f deploy/Dockerfile",
        "kubectl -n runai-why create secret generic runai-why",
        "kubectl apply -k",
        "rollout status",
        "/readyz",
        "/slack/events",
    ):
        assert step in section, step


def test_env_example_names_every_setting():
    text = (DEPLOY / "env.example").read_text(encoding="utf-8")
    named = set(re.findall(r"^#? ?([A-Z][A-Z0-9_]+)=", text, flags=re.MULTILINE))
    assert {name.upper() for name in Settings.model_fields} <= named
