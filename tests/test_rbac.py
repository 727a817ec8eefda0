"""The Kubernetes manifests grant read-only access to what the bot reads, and no more.

Pods, logs, events and nodes (the failure evidence) and the scheduler's PodGroups and Queues
(why a workload is Pending, who preempted it).

What the kustomize base and every overlay render (`kubectl kustomize`, through
tests/kustomize.py) is checked: any role-like document (whatever its kind) may only
`get`/`list`/`watch` pods, pods/log, events (core and events.k8s.io), nodes, and podgroups
and queues (scheduling.run.ai); bindings may only bind that role to the bot's service
account; the Deployment runs non-root, read-only, as that service account. A table of
deliberately bad manifests proves
the checker catches each way of granting more.
"""

from __future__ import annotations

import functools
import importlib.util
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.kustomize import build

KUBE_DIR = Path(__file__).resolve().parent.parent / "deploy" / "kubernetes"
#: The folders people apply (`kubectl apply -k`): the base and every overlay.
MANIFESTS = sorted([KUBE_DIR / "base", *(p.parent for p in KUBE_DIR.glob("overlays/*/*.yaml"))])
MANIFESTS = sorted(set(MANIFESTS))
#: The overlay with every kind of pod (web and dedicated workers), for the pod checks.
FULLEST = KUBE_DIR / "overlays" / "split-worker"

NAMESPACE = "runai-why"
SERVICE_ACCOUNT = "runai-why"
ROLE = "runai-why-reader"
NODE_ROLE = "runai-why-node-reader"  # the namespaced variant's cluster-wide reads
#: The roles a binding may refer to: the cluster-wide reader, or (namespaced variant) the
#: per-namespace Role of the same name and the ClusterRole of cluster-scoped reads only.
ROLE_REFS = frozenset({("ClusterRole", ROLE), ("Role", ROLE), ("ClusterRole", NODE_ROLE)})
VERBS = frozenset({"get", "list", "watch"})
RESOURCES = frozenset({"pods", "pods/log", "events", "nodes", "podgroups", "queues"})
#: Which API group each allowed resource may be granted from.
GROUPS: Mapping[str, frozenset[str]] = {
    "pods": frozenset({""}),
    "pods/log": frozenset({""}),
    "nodes": frozenset({""}),
    "events": frozenset({"", "events.k8s.io"}),
    "podgroups": frozenset({"scheduling.run.ai"}),
    "queues": frozenset({"scheduling.run.ai"}),
}
DANGEROUS = frozenset(
    {"secrets", "pods/exec", "pods/attach", "pods/portforward", "pods/proxy", "nodes/proxy"}
)
#: What the read-only Kubernetes client actually sends (diagnosis/kube/client.py).
NEEDED = {("", "pods", "get"), ("", "pods/log", "get"), ("", "nodes", "get")}
NEEDED |= {("scheduling.run.ai", "podgroups", "get"), ("scheduling.run.ai", "queues", "get")}
NEEDED_EVENTS = {("", "events", "list"), ("events.k8s.io", "events", "list")}
SECRET_ENV = {"SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "RUNAI_CLIENT_SECRET", "REDIS_URL"}
#: Settings that are secrets: a manifest that writes one inline fails.
NEVER_INLINE = SECRET_ENV | {"SLACK_APP_TOKEN", "TEAMS_APP_PASSWORD", "METRICS_TOKEN"}


# ---------------------------------------------------------------- the checker


def _strings(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def rule_problems(where: str, rule: Mapping[str, Any]) -> list[str]:
    """Why one RBAC rule grants more than read-only access to the four resources."""
    problems: list[str] = []
    groups, resources = _strings(rule.get("apiGroups")), _strings(rule.get("resources"))
    verbs, names = _strings(rule.get("verbs")), _strings(rule.get("resourceNames"))
    if rule.get("nonResourceURLs"):
        problems.append(f"{where}: nonResourceURLs {rule['nonResourceURLs']}")
    for field, values in (
        ("apiGroups", groups),
        ("resources", resources),
        ("verbs", verbs),
        ("resourceNames", names),
    ):
        if any("*" in v for v in values):
            problems.append(f"{where}: wildcard in {field} {values}")
    if not resources or not verbs or not groups:
        problems.append(f"{where}: a rule must name its apiGroups, resources and verbs")
    problems += [f"{where}: verb {v!r} is not read-only" for v in verbs if v not in VERBS]
    for resource in resources:
        if resource in DANGEROUS:
            problems.append(f"{where}: {resource!r} must never be granted")
        elif resource not in RESOURCES:
            problems.append(f"{where}: resource {resource!r} is not needed")
        else:
            problems += [
                f"{where}: {resource!r} from API group {g!r}"
                for g in groups
                if g not in GROUPS[resource]
            ]
    return problems


def binding_problems(where: str, doc: Mapping[str, Any]) -> list[str]:
    """Why a (Cluster)RoleBinding binds more than our role to our service account."""
    problems: list[str] = []
    ref = doc.get("roleRef") or {}
    if (ref.get("kind"), ref.get("name")) not in ROLE_REFS:
        problems.append(f"{where}: binds {ref.get('kind')} {ref.get('name')!r}, not {ROLE}")
    subjects = doc.get("subjects") or []
    if not subjects:
        problems.append(f"{where}: no subjects")
    for subject in subjects:
        who = (subject.get("kind"), subject.get("name"), subject.get("namespace"))
        if who != ("ServiceAccount", SERVICE_ACCOUNT, NAMESPACE):
            problems.append(f"{where}: subject {who} is not the bot's service account")
    return problems


def _containers(spec: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]


def _pod_spec(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    if doc.get("kind") == "Pod":
        return doc.get("spec") or {}
    return ((doc.get("spec") or {}).get("template") or {}).get("spec") or {}


def container_problems(
    name: str, container: Mapping[str, Any], pod: Mapping[str, Any]
) -> list[str]:
    """Why one container is not non-root, unprivileged and read-only, with secrets by reference."""
    security = {**pod, **(container.get("securityContext") or {})}
    capabilities = security.get("capabilities") or {}
    checks = {
        "runAsNonRoot is not true": security.get("runAsNonRoot") is not True,
        "runs as uid 0": security.get("runAsUser") == 0,
        "privileged": bool(security.get("privileged")),
        "allowPrivilegeEscalation is not false": security.get("allowPrivilegeEscalation")
        is not False,
        "the root filesystem is writable": security.get("readOnlyRootFilesystem") is not True,
        "capabilities are not all dropped": "ALL" not in _strings(capabilities.get("drop")),
        "adds capabilities": bool(_strings(capabilities.get("add"))),
    }
    problems = [f"{name}: {what}" for what, failed in checks.items() if failed]
    problems += [
        f"{name}: {env['name']} is written in the manifest"
        for env in container.get("env") or []
        if env.get("name") in NEVER_INLINE and "value" in env
    ]
    return problems


def workload_problems(where: str, doc: Mapping[str, Any]) -> list[str]:
    """Why a Deployment (or other pod owner) does not run locked down as the bot's account."""
    spec = _pod_spec(doc)
    problems: list[str] = []
    if spec.get("serviceAccountName") != SERVICE_ACCOUNT:
        problems.append(f"{where}: serviceAccountName is not {SERVICE_ACCOUNT}")
    problems += [
        f"{where}: {flag}" for flag in ("hostNetwork", "hostPID", "hostIPC") if spec.get(flag)
    ]
    problems += [
        f"{where}: hostPath volume {v.get('name')!r}"
        for v in spec.get("volumes") or []
        if "hostPath" in v
    ]
    pod_security = spec.get("securityContext") or {}
    for container in _containers(spec):
        name = f"{where} container {container.get('name')!r}"
        problems += container_problems(name, container, pod_security)
    return problems


def manifest_problems(docs: Iterable[Mapping[str, Any] | None]) -> list[str]:
    """Everything in these YAML documents that grants or runs with more than read-only."""
    problems: list[str] = []
    for index, doc in enumerate(docs):
        if not doc:
            continue
        kind = str(doc.get("kind"))
        where = f"{kind} {(doc.get('metadata') or {}).get('name')!r} (document {index})"
        if "aggregationRule" in doc:
            problems.append(f"{where}: aggregationRule pulls in other roles' rules")
        # Any document with rules is checked, whatever it calls itself (Role, ClusterRole, ...).
        for n, rule in enumerate(doc.get("rules") or []):
            problems += rule_problems(f"{where} rule {n}", rule)
        if kind.endswith("Binding") or "roleRef" in doc:
            problems += binding_problems(where, doc)
        if kind in {"Deployment", "StatefulSet", "DaemonSet", "Pod", "Job", "CronJob"}:
            problems += workload_problems(where, doc)
    return problems


def grants(docs: Iterable[Mapping[str, Any] | None]) -> set[tuple[str, str, str]]:
    """(apiGroup, resource, verb) triples granted by every rule in the documents."""
    return {
        (group, resource, verb)
        for doc in docs
        if doc
        for rule in doc.get("rules") or []
        for group in _strings(rule.get("apiGroups"))
        for resource in _strings(rule.get("resources"))
        for verb in _strings(rule.get("verbs"))
    }


def load(path: Path) -> list[Mapping[str, Any] | None]:
    return list(yaml.safe_load_all(path.read_text(encoding="utf-8")))


@functools.cache
def rendered(folder: Path) -> list[Mapping[str, Any] | None]:
    return list(build(folder))


def all_docs() -> list[Mapping[str, Any] | None]:
    """Everything the fullest overlay applies (its kinds are the union of every overlay's)."""
    return rendered(FULLEST)


def deployments() -> list[Mapping[str, Any]]:
    return [d for d in all_docs() if d and d["kind"] == "Deployment"]


# ---------------------------------------------------------------- the real manifests


def test_there_are_manifests_to_check():
    kinds = {doc["kind"] for doc in all_docs() if doc}
    assert {"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Deployment", "Service"} <= (
        kinds
    )


@pytest.mark.parametrize("folder", MANIFESTS, ids=lambda p: str(p.relative_to(KUBE_DIR)))
def test_every_manifest_is_read_only(folder):
    assert manifest_problems(rendered(folder)) == []


def test_the_cluster_role_grants_exactly_read_access_to_what_the_bot_reads():
    [role] = [d for d in all_docs() if d and d["kind"] == "ClusterRole"]
    assert role["metadata"]["name"] == ROLE
    granted = grants([role])
    expected = {(g, r, v) for r in RESOURCES for g in GROUPS[r] for v in VERBS}
    assert granted == expected
    assert granted >= NEEDED | NEEDED_EVENTS  # and everything the client sends is allowed


def test_the_service_account_is_bound_and_used():
    docs = [d for d in all_docs() if d]
    [account] = [d for d in docs if d["kind"] == "ServiceAccount"]
    assert (account["metadata"]["name"], account["metadata"]["namespace"]) == (
        SERVICE_ACCOUNT,
        NAMESPACE,
    )
    [binding] = [d for d in docs if d["kind"] == "ClusterRoleBinding"]
    assert binding_problems("binding", binding) == []
    assert {d["metadata"]["name"] for d in deployments()} == {"runai-why", "runai-why-worker"}
    for deployment in deployments():
        spec = _pod_spec(deployment)
        assert spec["serviceAccountName"] == SERVICE_ACCOUNT
        assert spec["automountServiceAccountToken"] is True
        assert deployment["metadata"]["namespace"] == NAMESPACE


@pytest.mark.parametrize("deployment", deployments(), ids=lambda d: d["metadata"]["name"])
def test_each_deployment_runs_non_root_read_only_with_secrets_from_a_secret(deployment):
    assert deployment["spec"]["replicas"] >= 2
    spec = _pod_spec(deployment)
    assert spec["securityContext"]["runAsNonRoot"] is True
    assert spec["securityContext"]["runAsUser"] != 0
    [container] = spec["containers"]
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["resources"]["requests"]
    assert container["resources"]["limits"]["memory"]
    from_secret = {
        e["name"]: e["valueFrom"]["secretKeyRef"]["name"]
        for e in container["env"]
        if "valueFrom" in e and "secretKeyRef" in e["valueFrom"]
    }
    assert from_secret == dict.fromkeys(SECRET_ENV, "runai-why")


def test_the_web_deployment_has_probes_and_says_how_to_turn_on_tier_2():
    [web] = [d for d in deployments() if d["metadata"]["name"] == "runai-why"]
    [container] = _pod_spec(web)["containers"]
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    text = (KUBE_DIR / "base" / "deployment.yaml").read_text(encoding="utf-8")
    assert '{"<cluster uuid>": {"mode": "in-cluster"}}' in text  # how to turn on Tier 2


def test_the_readme_says_what_the_bot_reads_and_never_does():
    readme = (KUBE_DIR / "README.md").read_text(encoding="utf-8")
    assert "kubectl apply" in readme
    for word in ("pods/log", "events", "nodes", "secrets", "exec", "get", "list", "watch"):
        assert word in readme, word


# ---------------------------------------------------------------- the checker catches these

ROLE_HEAD = """
apiVersion: rbac.authorization.k8s.io/v1
kind: {kind}
metadata: {{name: runai-why-reader, namespace: runai-why}}
rules:
"""

BAD_RULES = {
    "create-pods": ('- {apiGroups: [""], resources: [pods], verbs: [get, create]}', "'create'"),
    "delete-pods": ('- {apiGroups: [""], resources: [pods], verbs: [delete]}', "'delete'"),
    "patch-nodes": ('- {apiGroups: [""], resources: [nodes], verbs: [patch]}', "'patch'"),
    "read-secrets": ('- {apiGroups: [""], resources: [secrets], verbs: [get]}', "'secrets'"),
    "exec": ('- {apiGroups: [""], resources: [pods/exec], verbs: [create, get]}', "pods/exec"),
    "attach": ('- {apiGroups: [""], resources: [pods/attach], verbs: [get]}', "pods/attach"),
    "port-forward": (
        '- {apiGroups: [""], resources: [pods/portforward], verbs: [get]}',
        "pods/portforward",
    ),
    "configmaps": ('- {apiGroups: [""], resources: [configmaps], verbs: [get]}', "configmaps"),
    "wildcard-verbs": ('- {apiGroups: [""], resources: [pods], verbs: ["*"]}', "wildcard"),
    "wildcard-resources": ('- {apiGroups: [""], resources: ["*"], verbs: [get]}', "wildcard"),
    "wildcard-subresource": ('- {apiGroups: [""], resources: ["pods/*"], verbs: [get]}', "wild"),
    "wildcard-groups": ('- {apiGroups: ["*"], resources: [pods], verbs: [get]}', "wildcard"),
    "other-group": (
        "- {apiGroups: [apps], resources: [deployments], verbs: [get]}",
        "deployments",
    ),
    "pods-from-apps": ("- {apiGroups: [apps], resources: [pods], verbs: [get]}", "API group"),
    "non-resource-urls": ('- {nonResourceURLs: ["/metrics"], verbs: [get]}', "nonResourceURLs"),
    "escalate": (
        "- {apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles], verbs: [escalate]}",
        "escalate",
    ),
    "impersonate": ('- {apiGroups: [""], resources: [users], verbs: [impersonate]}', "imperson"),
    "empty-verbs": ('- {apiGroups: [""], resources: [pods], verbs: []}', "must name"),
}


@pytest.mark.parametrize("kind", ["ClusterRole", "Role", "SomeFutureRole"])
@pytest.mark.parametrize(("rule", "expected"), BAD_RULES.values(), ids=BAD_RULES.keys())
def test_the_checker_rejects_a_bad_rule(kind, rule, expected):
    good = '- {apiGroups: [""], resources: [pods], verbs: [get, list, watch]}'
    docs = list(yaml.safe_load_all(ROLE_HEAD.format(kind=kind) + good + "\n" + rule))
    problems = manifest_problems(docs)
    assert problems, "the checker let a bad rule through"
    assert any(expected in p for p in problems), problems


BAD_DOCUMENTS = {
    "binding-to-cluster-admin": (
        """
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: runai-why}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: ServiceAccount, name: runai-why, namespace: runai-why}]
""",
        "cluster-admin",
    ),
    "binding-to-a-group": (
        """
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: runai-why, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: runai-why-reader}
subjects: [{kind: Group, name: "system:authenticated"}]
""",
        "system:authenticated",
    ),
    "aggregated-role": (
        """
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: runai-why-reader}
aggregationRule:
  clusterRoleSelectors: [{matchLabels: {rbac.example.com/aggregate-to-view: "true"}}]
rules: []
""",
        "aggregationRule",
    ),
    "deployment-as-root": (
        """
apiVersion: apps/v1
kind: Deployment
metadata: {name: runai-why, namespace: runai-why}
spec:
  template:
    spec:
      serviceAccountName: runai-why
      containers:
        - name: runai-why
          image: x
          securityContext: {runAsUser: 0, allowPrivilegeEscalation: false,
                            readOnlyRootFilesystem: true, capabilities: {drop: [ALL]}}
""",
        "runAsNonRoot",
    ),
    "deployment-default-account": (
        """
apiVersion: apps/v1
kind: Deployment
metadata: {name: runai-why, namespace: runai-why}
spec:
  template:
    spec:
      securityContext: {runAsNonRoot: true, runAsUser: 10001}
      containers:
        - name: runai-why
          image: x
          securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true,
                            capabilities: {drop: [ALL]}}
""",
        "serviceAccountName",
    ),
    "deployment-writable-privileged": (
        """
apiVersion: apps/v1
kind: Deployment
metadata: {name: runai-why, namespace: runai-why}
spec:
  template:
    spec:
      serviceAccountName: runai-why
      securityContext: {runAsNonRoot: true, runAsUser: 10001}
      containers:
        - name: runai-why
          image: x
          securityContext: {privileged: true, capabilities: {drop: [ALL]},
                            allowPrivilegeEscalation: false}
""",
        "privileged",
    ),
    "deployment-secret-inline": (
        """
apiVersion: apps/v1
kind: Deployment
metadata: {name: runai-why, namespace: runai-why}
spec:
  template:
    spec:
      serviceAccountName: runai-why
      securityContext: {runAsNonRoot: true, runAsUser: 10001}
      containers:
        - name: runai-why
          image: x
          env: [{name: SLACK_BOT_TOKEN, value: xoxb-inline}]
          securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true,
                            capabilities: {drop: [ALL]}}
""",
        "SLACK_BOT_TOKEN",
    ),
    "deployment-host-path": (
        """
apiVersion: apps/v1
kind: Deployment
metadata: {name: runai-why, namespace: runai-why}
spec:
  template:
    spec:
      serviceAccountName: runai-why
      securityContext: {runAsNonRoot: true, runAsUser: 10001}
      volumes: [{name: docker, hostPath: {path: /var/run/docker.sock}}]
      containers:
        - name: runai-why
          image: x
          securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true,
                            capabilities: {drop: [ALL]}}
""",
        "hostPath",
    ),
}


@pytest.mark.parametrize(("text", "expected"), BAD_DOCUMENTS.values(), ids=BAD_DOCUMENTS.keys())
def test_the_checker_rejects_a_bad_document(text, expected):
    problems = manifest_problems(list(yaml.safe_load_all(text)))
    assert any(expected in p for p in problems), problems


def test_the_checker_accepts_the_read_only_rules_under_any_role_kind():
    rules = '- {apiGroups: ["", events.k8s.io], resources: [events], verbs: [get, list, watch]}'
    for kind in ("ClusterRole", "Role"):
        assert (
            manifest_problems(list(yaml.safe_load_all(ROLE_HEAD.format(kind=kind) + rules))) == []
        )


# ---------------------------------------------------------------- the namespaced variant

NAMESPACED = KUBE_DIR / "namespaced"
EXAMPLE_PROJECTS = ["ml-team", "vision", "nlp"]


def generator() -> Any:
    spec = importlib.util.spec_from_file_location("rbac_generate", NAMESPACED / "generate.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def namespaced_docs(projects: list[str]) -> list[Mapping[str, Any]]:
    return [doc for doc in yaml.safe_load_all(generator().manifests(projects)) if doc]


def test_the_example_is_what_the_generator_prints():
    example = (NAMESPACED / "example.yaml").read_text(encoding="utf-8")
    assert example == generator().manifests(EXAMPLE_PROJECTS)


@pytest.mark.parametrize(
    "projects", [EXAMPLE_PROJECTS, ["a"], ["team-a=custom-ns", "team-b"]], ids=str
)
def test_the_namespaced_variant_is_read_only(projects):
    assert manifest_problems(namespaced_docs(projects)) == []


def test_the_namespaced_variant_grants_the_same_verbs_and_resources_and_no_more():
    docs = namespaced_docs(EXAMPLE_PROJECTS)
    cluster_wide = grants([d for d in all_docs() if d and d["kind"] == "ClusterRole"])
    assert grants(docs) == cluster_wide
    [node_role] = [d for d in docs if d["kind"] == "ClusterRole"]
    assert node_role["metadata"]["name"] == NODE_ROLE
    cluster_scoped = {"nodes", "queues"}  # nothing namespaced is read cluster-wide
    assert {resource for _, resource, _ in grants([node_role])} == cluster_scoped
    roles = [d for d in docs if d["kind"] == "Role"]
    assert all(not cluster_scoped & {r for _, r, _ in grants([role])} for role in roles)
    assert grants(roles) | grants([node_role]) == cluster_wide


def test_each_project_namespace_gets_one_role_and_one_binding_to_it():
    docs = namespaced_docs(["ml-team", "vision", "team-a=custom-ns", "vision"])
    expected = ["runai-ml-team", "runai-vision", "custom-ns"]
    for kind in ("Role", "RoleBinding"):
        assert [d["metadata"]["namespace"] for d in docs if d["kind"] == kind] == expected
    for binding in (d for d in docs if d["kind"] == "RoleBinding"):
        assert binding["roleRef"] == {
            "apiGroup": "rbac.authorization.k8s.io",
            "kind": "Role",
            "name": ROLE,
        }
        assert binding_problems("binding", binding) == []
    # pods and logs are never readable cluster-wide in this variant
    [cluster_binding] = [d for d in docs if d["kind"] == "ClusterRoleBinding"]
    assert cluster_binding["roleRef"]["name"] == NODE_ROLE
    [account] = [d for d in docs if d["kind"] == "ServiceAccount"]
    assert (account["metadata"]["name"], account["metadata"]["namespace"]) == (
        SERVICE_ACCOUNT,
        NAMESPACE,
    )


@pytest.mark.parametrize(
    "bad", [[], ["Team_A"], ["a" * 60], ["=ns"], ["x=-ns"], ["x=a.b"]], ids=str
)
def test_the_generator_refuses_names_that_are_not_namespaces(bad, capsys):
    assert generator().main(bad) == 2
    assert "generate.py:" in capsys.readouterr().err


def test_the_generator_prints_the_manifests(capsys):
    assert generator().main(["nlp"]) == 0
    assert "namespace: runai-nlp" in capsys.readouterr().out


def test_the_readme_documents_the_trade_off():
    readme = (KUBE_DIR / "README.md").read_text(encoding="utf-8")
    for phrase in ("namespaced/generate.py", "cluster-wide", "RoleBinding", "environment"):
        assert phrase in readme, phrase


# ---------------------------------------------------------------- namespaced, with kustomize
# Where the bot runs, the namespaced variant is an overlay: ../../base with
# components/namespaced-rbac (which deletes the base's cluster-wide reader) and the output of
# `generate.py --overlay` listed next to the base (overlays/namespaced-rbac is the example).

NAMESPACED_OVERLAY = KUBE_DIR / "overlays" / "namespaced-rbac"
PROJECT_NAMESPACES = [f"runai-{project}" for project in EXAMPLE_PROJECTS]


def test_the_example_overlay_lists_what_generate_overlay_prints():
    kustomization = yaml.safe_load((NAMESPACED_OVERLAY / "kustomization.yaml").read_text())
    assert kustomization["resources"] == ["../../base", "rbac-namespaced.yaml"]
    assert "../../components/namespaced-rbac" in kustomization["components"]
    assert "namespace" not in kustomization, "it would move the Roles out of the projects"
    listed = (NAMESPACED_OVERLAY / "rbac-namespaced.yaml").read_text(encoding="utf-8")
    assert listed == generator().manifests(EXAMPLE_PROJECTS, overlay=True)


def test_the_overlay_output_is_the_whole_output_less_what_the_base_has():
    """--overlay leaves out the Namespace and the ServiceAccount (the base's), nothing else."""
    whole = namespaced_docs(EXAMPLE_PROJECTS)
    overlay = list(yaml.safe_load_all(generator().manifests(EXAMPLE_PROJECTS, overlay=True)))
    assert all(overlay)
    assert overlay == [d for d in whole if d["kind"] not in {"Namespace", "ServiceAccount"}]
    base = {(d["kind"], d["metadata"]["name"]) for d in rendered(KUBE_DIR / "base") if d}
    assert {("Namespace", NAMESPACE), ("ServiceAccount", SERVICE_ACCOUNT)} <= base


def test_the_namespaced_overlay_reads_no_pod_or_log_cluster_wide():
    docs = [d for d in rendered(NAMESPACED_OVERLAY) if d]
    assert manifest_problems(docs) == []
    cluster_roles = [d for d in docs if d["kind"] == "ClusterRole"]
    assert [d["metadata"]["name"] for d in cluster_roles] == [NODE_ROLE]  # the reader is gone
    assert {r for _, r, _ in grants(cluster_roles)} == {"nodes", "queues"}
    cluster_bindings = [d for d in docs if d["kind"] == "ClusterRoleBinding"]
    assert [d["roleRef"]["name"] for d in cluster_bindings] == [NODE_ROLE]
    roles = [d for d in docs if d["kind"] == "Role"]
    bindings = [d for d in docs if d["kind"] == "RoleBinding"]
    for namespaced in (roles, bindings):
        assert sorted(d["metadata"]["namespace"] for d in namespaced) == sorted(PROJECT_NAMESPACES)
    for binding in bindings:
        assert binding["roleRef"] == {
            "apiGroup": "rbac.authorization.k8s.io",
            "kind": "Role",
            "name": ROLE,
        }
        assert binding_problems("binding", binding) == []


def test_the_namespaced_overlay_grants_exactly_the_verbs_and_resources_of_the_cluster_wide():
    docs = [d for d in rendered(NAMESPACED_OVERLAY) if d]
    cluster_wide = grants([d for d in all_docs() if d and d["kind"] == "ClusterRole"])
    assert (
        grants(docs)
        == cluster_wide
        == {(g, r, v) for r in RESOURCES for g in GROUPS[r] for v in VERBS}
    )
    assert grants(docs) >= NEEDED | NEEDED_EVENTS
    # in each project namespace, everything the bot reads there; nothing cluster-scoped
    for role in (d for d in docs if d["kind"] == "Role"):
        assert {r for _, r, _ in grants([role])} == {"pods", "pods/log", "events", "podgroups"}


def test_the_namespaced_overlay_runs_the_same_pods_as_the_same_account():
    docs = [d for d in rendered(NAMESPACED_OVERLAY) if d]
    [account] = [d for d in docs if d["kind"] == "ServiceAccount"]
    assert (account["metadata"]["name"], account["metadata"]["namespace"]) == (
        SERVICE_ACCOUNT,
        NAMESPACE,
    )
    [namespace] = [d for d in docs if d["kind"] == "Namespace"]
    assert namespace["metadata"]["name"] == NAMESPACE
    for deployment in (d for d in docs if d["kind"] == "Deployment"):
        assert _pod_spec(deployment)["serviceAccountName"] == SERVICE_ACCOUNT
        assert deployment["metadata"]["namespace"] == NAMESPACE

    def apart_from_rbac(docs: Iterable[Mapping[str, Any] | None]) -> set[tuple[str, str]]:
        """Kinds and names, the ConfigMap's (named by its settings) as one."""
        return {
            (d["kind"], "" if d["kind"] == "ConfigMap" else d["metadata"]["name"])
            for d in docs
            if d and not d["apiVersion"].startswith("rbac.")
        }

    assert apart_from_rbac(docs) == apart_from_rbac(rendered(KUBE_DIR / "overlays" / "slack"))


def test_a_namespace_field_in_the_overlay_would_move_the_roles_as_the_readme_warns(tmp_path):
    """Why the README and the generated file say never to set `namespace:` in this overlay.

    kustomize puts every namespaced resource in that namespace, the generated Roles too: one
    project's Role silently leaves its project; several collide (one name) and the build fails.
    """
    shutil.copytree(KUBE_DIR, tmp_path / "kubernetes")
    overlay = tmp_path / "kubernetes" / "overlays" / "namespaced-rbac"
    kustomization = overlay / "kustomization.yaml"
    kustomization.write_text(kustomization.read_text() + "namespace: runai-why\n")
    with pytest.raises(AssertionError, match="ID conflict"):
        build(overlay)
    one = generator().manifests(["ml-team"], overlay=True)
    (overlay / "rbac-namespaced.yaml").write_text(one, encoding="utf-8")
    moved = [d for d in build(overlay) if d["kind"] in {"Role", "RoleBinding"}]
    assert [d["metadata"]["namespace"] for d in moved] == [NAMESPACE, NAMESPACE]
    readme = (KUBE_DIR / "README.md").read_text(encoding="utf-8")
    assert "`namespace:`" in readme[readme.index("## Namespaced RBAC") :]


def test_the_generator_takes_overlay_anywhere_and_refuses_other_options(capsys):
    assert generator().main(["nlp", "--overlay"]) == 0
    out = capsys.readouterr().out
    assert "namespace: runai-nlp" in out
    assert "\nkind: ServiceAccount" not in out
    assert "\nkind: Namespace" not in out
    assert generator().main(["--namespaced", "nlp"]) == 2
    assert "unknown option '--namespaced'" in capsys.readouterr().err
