"""The deploy files: the Slack manifest asks for exactly what the bot uses; the kustomize base is valid."""

from __future__ import annotations

import functools
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from bot.config import ConfigError, Settings
from tests.kustomize import KUBECTL, build, config_map_hash, emulate, kubectl_build

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


def _procfile() -> dict[str, str]:
    lines = (DEPLOY.parent / "Procfile").read_text().strip().splitlines()
    return dict(line.split(": ", 1) for line in lines)


def _as_run(command: str, env: dict[str, str], tmp_path: Path) -> tuple[str, list[str]]:
    """The METRICS_PORT and arguments `command` starts runai-why with, through a shell.

    Procfile runners (honcho, foreman, Heroku) run each line with `sh -c`; here `runai-why`
    is a stand-in on PATH that prints what it was started with.
    """
    stand_in = tmp_path / "runai-why"
    stand_in.write_text('#!/bin/sh\necho "${METRICS_PORT-unset}"; echo "$*"\n')
    stand_in.chmod(0o755)
    path = f"{tmp_path}:/usr/bin:/bin"
    done = subprocess.run(  # noqa: S603 - sh and a line of our Procfile
        ["/bin/sh", "-c", command],
        env={"PATH": path, **env},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    port, args = done.stdout.splitlines()
    return port, args.split()


def test_procfile_runs_web_processes_that_only_take_requests_and_workers_on_every_core(tmp_path):
    procfile = _procfile()
    assert set(procfile) == {"web", "worker"}
    _, web = _as_run(procfile["web"], {}, tmp_path)
    _, worker = _as_run(procfile["worker"], {}, tmp_path)
    everywhere = "0.0.0.0"  # noqa: S104 - Slack and Teams reach it from outside
    assert web == ["serve", "--host", everywhere, "--no-worker", "--web-processes", "auto"]
    assert worker == ["worker", "--processes", "auto"]


@pytest.mark.parametrize(
    "env",
    [{}, {"METRICS_PORT": "9000"}, {"METRICS_PORT": "9000", "WORKER_METRICS_PORT": "9001"}],
    ids=str,
)
def test_procfile_web_and_worker_serve_metrics_on_ports_of_their_own(env, tmp_path):
    """On one host, a second supervisor on the same METRICS_PORT exits "Address in use"."""
    procfile = _procfile()
    default = str(Settings.variables()["METRICS_PORT"].default)
    web, _ = _as_run(procfile["web"], env, tmp_path)
    worker, _ = _as_run(procfile["worker"], env, tmp_path)
    assert web == env.get("METRICS_PORT", "unset")  # unset: the bot's default
    assert worker == env.get("WORKER_METRICS_PORT", "9465")
    assert worker not in {env.get("METRICS_PORT", default), "0"}
    # and WORKER_METRICS_PORT=0 turns the worker's port off, as METRICS_PORT=0 does
    assert _as_run(procfile["worker"], {"WORKER_METRICS_PORT": "0"}, tmp_path)[0] == "0"


# ---------------------------------------------------------------- the kustomize manifests
# What `kubectl kustomize` (and so `kubectl apply -k`) makes of each overlay comes from
# tests/kustomize.py (kubectl's own kustomize where it is installed, offline). Every resource
# is validated against the Kubernetes schemas that kubernetes-validate bundles (offline), and
# these tests check what kustomize would not: selectors that match, a service account that
# exists, settings that exist, each platform's secrets and nothing else, scraped ports.

KUBE = DEPLOY / "kubernetes"
BASE = KUBE / "base"
OVERLAYS = sorted(p.parent for p in KUBE.glob("overlays/*/kustomization.yaml"))
#: The oldest Kubernetes whose schemas the manifests are checked against (still supported by
#: the major clouds); anything the manifests use must exist there.
KUBERNETES_VERSION = "1.30"
#: Environment variables the pods set that are not runai-why settings.
NOT_SETTINGS = frozenset({"PYTHONDONTWRITEBYTECODE"})
#: The benchmark's bound on one process's peak memory (bench/README.md): a limit below it
#: would OOM-kill a pod the benchmark calls healthy.
PEAK_RSS_BOUND_MIB = 150
WEB = {"app.kubernetes.io/name": "runai-why", "app.kubernetes.io/component": "web"}
#: The secrets every pod reads, and those each platform adds (components/<platform>).
COMMON_SECRETS = frozenset({"RUNAI_CLIENT_SECRET", "REDIS_URL"})
SLACK = frozenset({"SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET"})
TEAMS = frozenset({"TEAMS_APP_PASSWORD"})
TEAMS_CONFIG = frozenset({"TEAMS_APP_ID", "TEAMS_TENANT_ID", "TEAMS_PUBLIC_URL"})
PLATFORM_SECRETS = {
    "slack": SLACK,
    "teams": TEAMS,
    "slack-and-teams": SLACK | TEAMS,
    "split-worker": SLACK,
    "namespaced-rbac": SLACK,
}
PLATFORM_COMPONENTS = ("../../components/slack", "../../components/teams")


@functools.cache
def built(folder: Path) -> list[dict[str, Any]]:
    """`build(folder)` of a folder of this repository, once per test process."""
    return build(folder)


def kustomizations() -> list[Path]:
    return sorted(KUBE.glob("**/kustomization.yaml"))


def _yaml(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]


def _kind(docs: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [d for d in docs if d["kind"] == kind]


def _named(docs: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    [doc] = [d for d in _kind(docs, kind) if d["metadata"]["name"] == name]
    return doc


def _config(docs: list[dict[str, Any]]) -> dict[str, Any]:
    """The settings: the base's generated ConfigMap, `runai-why-<hash of its data>`."""
    [config] = [
        d
        for d in _kind(docs, "ConfigMap")
        if re.fullmatch(r"runai-why-[a-z0-9]{10}", d["metadata"]["name"])
    ]
    assert config["metadata"]["name"] == f"runai-why-{config_map_hash(config)}"
    return config


def _pod(deployment: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = deployment["spec"]["template"]["spec"]
    return spec


def _from_secret(deployment: dict[str, Any]) -> set[str]:
    [container] = _pod(deployment)["containers"]
    return {
        e["valueFrom"]["secretKeyRef"]["key"]
        for e in container.get("env", [])
        if "secretKeyRef" in e.get("valueFrom", {})
    }


@pytest.mark.parametrize("path", kustomizations(), ids=lambda p: str(p.parent.relative_to(KUBE)))
def test_every_file_a_kustomization_names_exists_and_parses(path):
    kustomization = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert (kustomization["apiVersion"], kustomization["kind"]) in {
        ("kustomize.config.k8s.io/v1beta1", "Kustomization"),
        ("kustomize.config.k8s.io/v1alpha1", "Component"),
    }
    named = [
        *kustomization.get("resources", []),
        *kustomization.get("components", []),
        *(p["path"] for p in kustomization.get("patches", [])),
    ]
    assert named
    for entry in named:
        target = (path.parent / entry).resolve()
        assert target.exists(), f"{path}: {entry} does not exist"
        assert (target / "kustomization.yaml").exists() if target.is_dir() else _yaml(target)
    for env_file in _env_files(path):
        lines = env_file.read_text(encoding="utf-8").splitlines()
        settings = [line for line in lines if line.strip() and not line.lstrip().startswith("#")]
        assert settings
        assert all(re.fullmatch(r"[A-Z][A-Z0-9_]*=[^\"']*", line) for line in settings), settings
    assert not kustomization.get("secretGenerator"), "secrets are created by hand, never here"


def _env_files(kustomization: Path) -> list[Path]:
    """The env files a kustomization's configMapGenerator reads."""
    spec = yaml.safe_load(kustomization.read_text(encoding="utf-8"))
    return [
        (kustomization.parent / entry).resolve()
        for generator in spec.get("configMapGenerator", [])
        for entry in generator.get("envs", [])
    ]


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
    listed |= {env_file for path in kustomizations() for env_file in _env_files(path)}
    files = {p.resolve() for p in KUBE.glob("*/*/*.yaml")} | set(BASE.glob("*.yaml"))
    files |= set(KUBE.glob("*/*/*.env")) | set(BASE.glob("*.env"))
    files = {p.resolve() for p in files} - {p.resolve() for p in kustomizations()}
    assert files <= listed


@pytest.mark.parametrize(
    "doc",
    [d for folder in [BASE, *OVERLAYS] for d in built(folder)],
    ids=lambda d: f"{d['kind']}/{d['metadata']['name']}",
)
def test_every_resource_is_valid_against_the_kubernetes_schemas(doc):
    # strict: an unknown or misspelt field fails too, as `kubectl apply --validate=strict` would
    kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed: nothing to compare with")
@pytest.mark.parametrize("folder", [BASE, *OVERLAYS], ids=lambda p: p.name)
def test_the_emulated_kustomize_agrees_with_kubectls(folder: Path):
    """Where kubectl is missing, tests/kustomize.py stands in for it: it must agree."""
    assert _keyed(emulate(folder)) == _keyed(kubectl_build(folder))


def _keyed(docs: list[dict[str, Any]]) -> dict[tuple[str, str, str], dict[str, Any]]:
    """Each resource by kind, name and namespace (namespaced RBAC repeats one Role name)."""
    keyed = {
        (d["kind"], d["metadata"]["name"], d["metadata"].get("namespace", "")): d for d in docs
    }
    assert len(keyed) == len(docs), "two resources with one identity"
    return keyed


def test_the_base_has_everything_a_production_install_needs():
    docs = built(BASE)
    kinds = {d["kind"] for d in docs}
    assert kinds == {
        "Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "ConfigMap",
        "Deployment", "Service", "PodDisruptionBudget",
    }  # fmt: skip
    assert not _kind(docs, "Secret"), "secret values never live in the repository"
    namespace = yaml.safe_load((BASE / "kustomization.yaml").read_text())["namespace"]
    assert {d["metadata"]["namespace"] for d in docs if "namespace" in d["metadata"]} == {namespace}


def test_the_service_and_the_budget_select_the_web_pods_only():
    docs = built(KUBE / "overlays" / "split-worker")
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
    for constraint in _pod(web)["topologySpreadConstraints"]:
        assert constraint["labelSelector"]["matchLabels"] == WEB


def test_the_web_pods_serve_probes_and_the_platforms_on_the_configured_ports():
    docs = built(BASE)
    web = _named(docs, "Deployment", "runai-why")
    config = _config(docs)["data"]
    [container] = _pod(web)["containers"]
    port, _ = container["ports"]
    assert container["args"][:2] == ["runai-why", "serve"]
    assert str(port["containerPort"]) == config["PORT"]
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
    assert _pod(web)["terminationGracePeriodSeconds"] >= pre_stop + 20


def test_every_pod_that_diagnoses_serves_its_metrics_and_is_scraped():
    """Web pods and dedicated workers alike: /metrics on METRICS_PORT, annotated for scraping."""
    docs = built(KUBE / "overlays" / "split-worker")
    config = _config(docs)["data"]
    metrics_port = config.get("METRICS_PORT", str(Settings.variables()["METRICS_PORT"].default))
    deployments = _kind(docs, "Deployment")
    assert {d["metadata"]["name"] for d in deployments} == {"runai-why", "runai-why-worker"}
    for deployment in deployments:
        annotations = deployment["spec"]["template"]["metadata"]["annotations"]
        assert annotations["prometheus.io/scrape"] == "true"
        assert annotations["prometheus.io/path"] == "/metrics"
        assert annotations["prometheus.io/port"] == metrics_port
        [container] = _pod(deployment)["containers"]
        assert {"name": "metrics", "containerPort": int(metrics_port), "protocol": "TCP"} in (
            container["ports"]
        )
        assert container["args"][:2] in (["runai-why", "serve"], ["runai-why", "worker"])
        assert container["args"][2:4] == ["--host", "0.0.0.0"]  # noqa: S104 - for the scraper
        # One process per core of the CPU limit, whose supervisor serves /metrics for all.
        flag = "--web-processes" if container["args"][1] == "serve" else "--processes"
        cores = container["resources"]["limits"]["cpu"]
        assert container["args"][4:] == [flag, cores]
    service = _named(docs, "Service", "runai-why")
    assert [p["port"] for p in service["spec"]["ports"]] == [80], "metrics stay off the Service"


@pytest.mark.parametrize("overlay", OVERLAYS, ids=lambda p: p.name)
def test_every_pod_is_locked_down_sized_and_runs_as_an_existing_service_account(overlay: Path):
    docs = built(overlay)
    accounts = {d["metadata"]["name"] for d in _kind(docs, "ServiceAccount")}
    for deployment in _kind(docs, "Deployment"):
        spec = _pod(deployment)
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
        processes = int(container["args"][-1])  # --web-processes N / --processes N
        assert limit >= request > processes * PEAK_RSS_BOUND_MIB, "below the benchmark's bound"


def _mebibytes(quantity: str) -> float:
    units = {"Mi": 1, "Gi": 1024, "M": 1e6 / 2**20, "G": 1e9 / 2**20}
    for suffix, factor in units.items():
        if quantity.endswith(suffix):
            return float(quantity.removesuffix(suffix)) * factor
    return float(quantity) / 2**20


@pytest.mark.parametrize("overlay", OVERLAYS, ids=lambda p: p.name)
def test_every_environment_variable_the_pods_set_is_a_setting(overlay: Path):
    settings = set(Settings.variables())
    docs = built(overlay)
    config = set(_config(docs)["data"])
    env = {
        e["name"]
        for deployment in _kind(docs, "Deployment")
        for container in _pod(deployment)["containers"]
        for e in container.get("env", [])
    }
    assert (config | env) - NOT_SETTINGS <= settings
    for deployment in _kind(docs, "Deployment"):
        [container] = _pod(deployment)["containers"]
        assert container["envFrom"] == [
            {"configMapRef": {"name": _config(docs)["metadata"]["name"]}}
        ]


def test_a_changed_setting_renames_the_config_map_so_apply_rolls_every_pod(tmp_path: Path):
    """Settings are read at start-up: `kubectl apply -k` after an edit must restart the pods.

    The ConfigMap is generated, named by a hash of its data, and every Deployment's envFrom
    follows the name, so an edit of config.yaml changes each pod template (a rollout) and an
    unchanged overlay renders the same name (no restart).
    """
    shutil.copytree(DEPLOY, tmp_path / "deploy")
    overlay = tmp_path / "deploy" / "kubernetes" / "overlays" / "split-worker"

    def rendered() -> tuple[str, dict[str, Any]]:
        docs = build(overlay)
        if KUBECTL:
            assert _keyed(emulate(overlay)) == _keyed(docs)
        templates = {
            d["metadata"]["name"]: d["spec"]["template"] for d in _kind(docs, "Deployment")
        }
        return _config(docs)["metadata"]["name"], templates

    before, templates = rendered()
    assert rendered() == (before, templates)
    config = overlay / "config.yaml"
    config.write_text(config.read_text() + '  LOG_LEVEL: "DEBUG"\n')
    after, changed = rendered()
    assert after != before
    assert changed.keys() == templates.keys() == {"runai-why", "runai-why-worker"}
    for name, template in changed.items():
        [container] = template["spec"]["containers"]
        assert container["envFrom"] == [{"configMapRef": {"name": after}}]
        assert template != templates[name]


@pytest.mark.parametrize("overlay", OVERLAYS, ids=lambda p: p.name)
def test_each_platform_reads_its_own_secrets_and_no_other(overlay: Path):
    """A Teams-only install needs no Slack key in its Secret, and the reverse."""
    docs = built(overlay)
    platform = PLATFORM_SECRETS[overlay.name]
    for deployment in _kind(docs, "Deployment"):
        assert _from_secret(deployment) == COMMON_SECRETS | platform, deployment["metadata"]
    config = set(_config(docs)["data"])
    assert (config >= TEAMS_CONFIG) is bool(platform & TEAMS)
    assert not {k for k in config if k.startswith("SLACK_")}


@pytest.mark.parametrize("overlay", OVERLAYS, ids=lambda p: p.name)
def test_each_overlay_once_filled_in_starts_serve_for_its_platforms(overlay: Path):
    """What a pod of the overlay would see, placeholders filled in: serve's own check passes."""
    docs = built(overlay)
    env = {
        key: value.replace("change-me", "filled-in") for key, value in _config(docs)["data"].items()
    }
    web = _named(docs, "Deployment", "runai-why")
    env |= {key: f"xoxb-{key.lower()}" for key in _from_secret(web)}
    settings = Settings(_env_file=None, **{k.lower(): v for k, v in env.items()})
    slack = settings.serve_secrets(socket_mode=False, runai=True)
    assert (slack is not None) is bool(PLATFORM_SECRETS[overlay.name] & SLACK)
    assert settings.teams.configured is bool(PLATFORM_SECRETS[overlay.name] & TEAMS)
    if PLATFORM_SECRETS[overlay.name] & TEAMS:
        assert settings.teams.public_url == "https://filled-in.example.com"


@pytest.mark.parametrize("folder", [BASE, *OVERLAYS], ids=lambda p: p.name)
def test_an_overlay_applied_unedited_refuses_to_start_naming_runai_url(folder: Path):
    """A forgotten edit of config.yaml is a pod that will not start, not a "ready" bot.

    RUNAI_URL ships as a placeholder that `serve` and `worker` refuse, as deploy/env.example's
    does; every secret is taken as set, so RUNAI_URL is what stops them. TEAMS_PUBLIC_URL's
    placeholder is read as unset (answers show the sparkline), never as a host to link to.
    """
    docs = built(folder)
    env = {k.lower(): v for k, v in _config(docs)["data"].items()}
    web = _named(docs, "Deployment", "runai-why")
    env |= {key.lower(): f"xoxb-{key.lower()}" for key in _from_secret(web)}
    settings = Settings(_env_file=None, **env)
    assert [p.variable for p in settings.runai.problems()] == ["RUNAI_URL"]
    with pytest.raises(ConfigError, match="RUNAI_URL"):  # serve's and worker's runtime alike
        settings.serve_secrets(socket_mode=False, runai=True)
    assert settings.teams.public_url is None


@pytest.mark.parametrize("overlay", OVERLAYS, ids=lambda p: p.name)
def test_every_example_overlay_sets_the_image_and_merges_the_configuration(overlay: Path):
    kustomization = yaml.safe_load((overlay / "kustomization.yaml").read_text())
    base, *own = kustomization["resources"]
    assert base == "../../base"  # in place: these paths stay right
    assert all((overlay / name).is_file() for name in own), "anything else is the overlay's own"
    [image] = kustomization["images"]
    for deployment in _kind(built(overlay), "Deployment"):
        [container] = _pod(deployment)["containers"]
        assert container["image"] == f"{image['newName']}:{image['newTag']}"
    [patch] = kustomization["patches"]
    [config] = _yaml(overlay / patch["path"])
    assert (config["kind"], config["metadata"]["name"]) == ("ConfigMap", "runai-why")
    components = kustomization.get("components", [])
    platforms = [c for c in components if c in PLATFORM_COMPONENTS]
    assert platforms, "every example chooses its platform"
    if "../../components/split-worker" in components:  # the workers need the platform's secrets
        assert components.index("../../components/split-worker") < components.index(platforms[0])


# ---------------------------------------------------------------- the README's commands


def _readme_commands() -> list[list[str]]:
    """The commands of the README's Kubernetes walk-through, one word list each."""
    readme = (DEPLOY.parent / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Deploy to Kubernetes") :]
    block = section[section.index("```sh\n") + 6 : section.index("```\n", section.index("```sh"))]
    joined = block.replace("\\\n", " ")
    commands = [shlex.split(line, comments=True) for line in joined.splitlines()]
    return [words for words in commands if words]


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
        "/api/messages",
    ):
        assert step in section, step


@pytest.mark.parametrize("example", OVERLAYS, ids=lambda p: p.name)
def test_the_readme_kubernetes_commands_work_from_a_copy(tmp_path: Path, example: Path):
    """Steps 2 to 4 on a copy of deploy/: the copied overlay builds, valid, with every key.

    Its pods find every secret key in the README's Secret; the rollout and the port-forward
    find their Deployment and Service. The README copies overlays/slack; each example is
    tried in its place (as the README offers), the commands otherwise run as written.
    """
    shutil.copytree(DEPLOY, tmp_path / "deploy")
    secret_keys: set[str] = set()
    rendered: list[dict[str, Any]] = []
    ran = []
    for command in _readme_commands():
        words = [w.replace("overlays/slack", f"overlays/{example.name}") for w in command]
        match words:
            case ["cp", "-r", source, copy]:
                shutil.copytree(tmp_path / source, tmp_path / copy)
            case ["kubectl", "kustomize", folder] | ["kubectl", "apply", "-k", folder]:
                rendered = build(tmp_path / folder)
                for doc in rendered:
                    kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)
            case ["kubectl", "-n", namespace, "create", "secret", "generic", name, *literals]:
                assert (namespace, name) == ("runai-why", "runai-why")
                secret_keys = {w.split("=", 2)[1] for w in literals}
            case ["kubectl", "-n", namespace, "rollout", "status", deployment]:
                kind, name = deployment.split("/")
                assert (
                    _named(rendered, kind.capitalize(), name)["metadata"]["namespace"] == namespace
                )
            case ["kubectl", "-n", namespace, "port-forward", service, ports, "&"]:
                kind, name = service.split("/")
                ports_of = _named(rendered, kind.capitalize(), name)["spec"]["ports"]
                assert int(ports.split(":")[1]) in [p["port"] for p in ports_of]
            case ["docker", *_] | ["kubectl", "create", "namespace", _] | ["curl", *_]:
                pass  # a registry, a cluster, a pod: nothing of them here
            case ["$EDITOR", *files]:
                assert all((tmp_path / f).is_file() for f in files)
            case _:
                pytest.fail(f"the test does not know the README's command {words}")
        ran.append(words[:2])
    assert ["cp", "-r"] in ran
    assert ["kubectl", "apply"] in ran
    assert rendered, "the README applies an overlay"
    for pods in _kind(rendered, "Deployment"):
        assert _from_secret(pods) <= secret_keys, "the README's Secret lacks a key"
    assert secret_keys == COMMON_SECRETS | SLACK | TEAMS  # and it names nothing else


def _namespaced_section() -> str:
    readme = (KUBE / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Namespaced RBAC") :]
    return section[: section.index("\n## ")]


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```\n", text, flags=re.MULTILINE | re.DOTALL)


def test_the_namespaced_rbac_commands_work_from_a_copy(tmp_path: Path):
    """deploy/kubernetes/README.md's namespaced steps, run on a copy of deploy/ as written.

    The overlay they make builds (valid), renders no cluster-wide reader of pods or logs, and
    reads each named project's namespace; kubectl and the emulation agree on it.
    """
    shutil.copytree(DEPLOY, tmp_path / "deploy")
    [block] = _blocks(_namespaced_section(), "sh")
    rendered: list[dict[str, Any]] = []
    ran = []
    for line in block.splitlines():
        match shlex.split(line, comments=True):
            case []:
                continue
            case ["cp", "-r", source, copy]:
                shutil.copytree(tmp_path / source, tmp_path / copy)
            case ["python3", script, *arguments, ">", output]:
                assert script == "deploy/kubernetes/namespaced/generate.py"
                with (tmp_path / output).open("w", encoding="utf-8") as out:
                    done = subprocess.run(  # noqa: S603 - this interpreter, our script
                        [sys.executable, tmp_path / script, *arguments],
                        stdout=out,
                        check=False,
                    )
                assert done.returncode == 0
            case ["$EDITOR", *files]:
                assert all((tmp_path / f).is_file() for f in files)
            case ["kubectl", "apply", "-k", folder]:
                rendered = build(tmp_path / folder)
                if KUBECTL:
                    assert _keyed(emulate(tmp_path / folder)) == _keyed(rendered)
                for doc in rendered:
                    kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)
            case ["kubectl", "delete", *objects, "--ignore-not-found"]:
                assert sorted(objects) == [
                    "clusterrole/runai-why-reader",
                    "clusterrolebinding/runai-why-reader",
                ]
                assert not {f"{d['kind'].lower()}/{d['metadata']['name']}" for d in rendered} & set(
                    objects
                ), "it deletes what the overlay renders"
            case words:
                pytest.fail(f"the test does not know the README's command {words}")
        ran.append(line.split()[0])
    assert ran == ["cp", "python3", "$EDITOR", "kubectl", "kubectl"]
    roles = [d for d in rendered if d["kind"] == "Role"]
    assert sorted(d["metadata"]["namespace"] for d in roles) == [
        "runai-ml-team",
        "runai-nlp",
        "runai-vision",
    ]
    assert [d["metadata"]["name"] for d in _kind(rendered, "ClusterRole")] == [
        "runai-why-node-reader"
    ]


def test_the_namespaced_rbac_snippet_is_what_the_example_overlay_lists():
    [snippet] = _blocks(_namespaced_section(), "yaml")
    listed = yaml.safe_load(snippet)
    example = yaml.safe_load(
        (KUBE / "overlays" / "namespaced-rbac" / "kustomization.yaml").read_text()
    )
    assert listed["resources"] == example["resources"]
    assert listed["components"] == example["components"]
    assert "namespace" not in example


def test_env_example_names_every_setting():
    text = (DEPLOY / "env.example").read_text(encoding="utf-8")
    named = set(re.findall(r"^#? ?([A-Z][A-Z0-9_]+)=", text, flags=re.MULTILINE))
    assert set(Settings.variables()) <= named
