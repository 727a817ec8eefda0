"""`kubectl kustomize DIR` for the tests, offline: kubectl's own where it is installed, else ours.

`build(folder)` is what `kubectl kustomize` (and so `kubectl apply -k`) makes of a folder:
with kubectl on PATH it runs it (no cluster is contacted); without it, `emulate` does the
same in Python for what this repository's kustomizations use (resources, components,
strategic-merge patches with or without a target, `$patch: delete` of a whole resource,
images, namespace, labels, and ConfigMaps generated from env files or literals, named with
kustomize's hash of their data) and refuses anything else, so a kustomization cannot
quietly outgrow it. Where kubectl is installed, tests/test_deploy.py checks that both agree
on every overlay.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import yaml

__all__ = ["KUBECTL", "build", "config_map_hash", "emulate", "kubectl_build"]

Doc = dict[str, Any]
KUBECTL = shutil.which("kubectl")
_KNOWN = {"apiVersion", "kind", "resources", "components", "patches", "images", "namespace"}
_KNOWN |= {"labels", "configMapGenerator"}
_CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding"}
#: Marks a ConfigMap a generator made, until `emulate` names it with its hash (the key is
#: not a Kubernetes field, so no patch sets or removes it).
_GENERATED = "(generated)"
_ENV_NAME = re.compile(r"^[-._a-zA-Z][-._a-zA-Z0-9]*$")  # kustomize's env-file key check


def build(folder: Path) -> list[Doc]:
    """The resources `kubectl kustomize folder` prints."""
    return kubectl_build(folder) if KUBECTL else emulate(folder)


def kubectl_build(folder: Path) -> list[Doc]:
    """What kubectl's own kustomize prints (offline: it reads files and prints YAML)."""
    assert KUBECTL is not None
    done = subprocess.run(  # noqa: S603 - kubectl, a fixed subcommand, a folder of ours
        [KUBECTL, "kustomize", str(folder)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, f"kubectl kustomize {folder}: {done.stderr}"
    return [d for d in yaml.safe_load_all(done.stdout) if d]


def _yaml(path: Path) -> list[Doc]:
    return [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]


def emulate(folder: Path) -> list[Doc]:
    """This repository's subset of kustomize, in Python."""
    return _named_by_hash(_build(folder))


def _build(folder: Path) -> list[Doc]:
    spec = yaml.safe_load((folder / "kustomization.yaml").read_text(encoding="utf-8"))
    unknown = set(spec) - _KNOWN
    assert not unknown, f"{folder}: the emulation does not know {sorted(unknown)}"
    docs: list[Doc] = []
    for entry in spec.get("resources", []):
        target = (folder / entry).resolve()
        docs += _build(target) if target.is_dir() else _yaml(target)
    for entry in spec.get("components", []):
        component = (folder / entry).resolve()
        assert _yaml(component / "kustomization.yaml")[0]["kind"] == "Component", component
        docs = _apply(component, docs)
    docs += _generate(folder, spec)  # kustomize runs the generators after the components
    return _unique(folder, _transform(folder, spec, _patch(folder, spec, docs)))


def _unique(folder: Path, docs: list[Doc]) -> list[Doc]:
    """Two resources of one kind, name and namespace: kustomize refuses them ("ID conflict")."""
    ids = [(d["kind"], d["metadata"]["name"], d["metadata"].get("namespace")) for d in docs]
    twice = sorted({i for i in ids if ids.count(i) > 1}, key=str)
    assert not twice, f"{folder}: ID conflict: {twice}"
    return docs


def _apply(component: Path, docs: list[Doc]) -> list[Doc]:
    spec = yaml.safe_load((component / "kustomization.yaml").read_text(encoding="utf-8"))
    unknown = set(spec) - _KNOWN
    assert not unknown, f"{component}: the emulation does not know {sorted(unknown)}"
    for entry in spec.get("resources", []):
        docs = [*docs, *_yaml(component / entry)]
    docs = [*docs, *_generate(component, spec)]
    return _transform(component, spec, _patch(component, spec, docs))


def _generate(folder: Path, spec: Doc) -> list[Doc]:
    """configMapGenerator: a new ConfigMap from env files and literals (behavior: create)."""
    made: list[Doc] = []
    for generator in spec.get("configMapGenerator", []):
        known = {"name", "envs", "literals", "options"}
        assert set(generator) <= known, f"{folder}: configMapGenerator {generator}"
        assert set(generator.get("options", {})) <= {"labels"}, f"{folder}: {generator}"
        lines = [
            line
            for entry in generator.get("envs", [])
            for line in (folder / entry).read_text(encoding="utf-8").splitlines()
        ]
        data: dict[str, str] = {}
        for line in [*lines, *generator.get("literals", [])]:
            text = line.lstrip()
            if not text or text.startswith("#"):
                continue
            key, equals, value = text.partition("=")
            assert equals, f"{folder}: {line!r} takes its value from the environment"
            assert _ENV_NAME.match(key), f"{folder}: {key!r} is not a variable name"
            data[key] = value
        metadata: Doc = {"name": generator["name"]}
        if generator.get("options", {}).get("labels"):
            metadata["labels"] = dict(generator["options"]["labels"])
        made.append(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": data}
            | {_GENERATED: True}
        )
    return made


def _named_by_hash(docs: list[Doc]) -> list[Doc]:
    """Generated ConfigMaps get `-<hash of their final data>`; what refers to them follows."""
    renamed: dict[tuple[str | None, str], str] = {}
    for doc in docs:
        if doc.pop(_GENERATED, False):
            name, namespace = doc["metadata"]["name"], doc["metadata"].get("namespace")
            doc["metadata"]["name"] = f"{name}-{config_map_hash(doc)}"
            renamed[namespace, name] = doc["metadata"]["name"]
    for doc in docs:
        namespace = doc["metadata"].get("namespace")
        pod = doc.get("spec", {}).get("template", {}).get("spec", {})
        refs = [
            *(e["configMapRef"] for c in _containers(doc) for e in c.get("envFrom", [])),
            *(
                e["valueFrom"]["configMapKeyRef"]
                for c in _containers(doc)
                for e in c.get("env", [])
                if "configMapKeyRef" in e.get("valueFrom", {})
            ),
            *(v["configMap"] for v in pod.get("volumes", []) if "configMap" in v),
        ]
        for ref in refs:
            ref["name"] = renamed.get((namespace, ref["name"]), ref["name"])
    return docs


def config_map_hash(doc: Doc) -> str:
    """The name suffix kustomize gives a ConfigMap: sha256 of its data, as Go's json encodes it.

    kustomize (api/hasher) means to hash the kind, the name and the data, but looks the name
    up by a path it never finds, so the name hashed is always "" (checked against kubectl).
    """
    data = doc.get("data") or {}
    assert all(isinstance(v, str) for v in data.values()), f"data must be strings: {data}"
    assert "binaryData" not in doc, doc["metadata"]
    encoded = json.dumps(
        {"data": data, "kind": "ConfigMap", "name": ""},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    for char, escaped in {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}.items():
        encoded = encoded.replace(char, escaped)  # Go's json.Marshal escapes HTML
    encoded = encoded.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    digest = hashlib.sha256(encoded.encode("utf-8")).hexdigest()[:10]
    return digest.translate(str.maketrans("013ae", "ghkmt"))


def _patch(folder: Path, spec: Doc, docs: list[Doc]) -> list[Doc]:
    for patch in spec.get("patches", []):
        assert set(patch) <= {"path", "target"}, f"{folder}: {patch}"
        [body] = _yaml(folder / patch["path"])
        target = patch.get("target") or {
            "kind": body["kind"],
            "name": body["metadata"]["name"],
        }
        hits = [d for d in docs if _selected(d, target)]
        assert hits, f"{folder}: patch {patch['path']} matches nothing"
        if body.get("$patch") == "delete":  # a strategic-merge deletion of the whole resource
            assert set(body) == {"$patch", "apiVersion", "kind", "metadata"}, body
            docs = [d for d in docs if d not in hits]
            continue
        assert not _directives(body), f"{folder}: the emulation does not know {_directives(body)}"
        docs = [_merge(d, body, top=True) if d in hits else d for d in docs]
    return docs


def _directives(value: Any) -> set[str]:
    """The strategic-merge directives (`$patch`, `$setElementOrder/...`) anywhere in a patch."""
    if isinstance(value, dict):
        return {k for k in value if k.startswith("$")}.union(*map(_directives, value.values()))
    if isinstance(value, list):
        return set().union(*map(_directives, value))
    return set()


def _selected(doc: Doc, target: Doc) -> bool:
    assert set(target) <= {"kind", "name", "labelSelector"}, target
    labels = doc["metadata"].get("labels", {})
    wanted = dict(p.split("=", 1) for p in target.get("labelSelector", "").split(",") if p)
    return (
        target.get("kind", doc["kind"]) == doc["kind"]
        and target.get("name", doc["metadata"]["name"]) == doc["metadata"]["name"]
        and wanted.items() <= labels.items()
    )


def _merge(into: Any, patch: Any, *, top: bool = False) -> Any:
    """A strategic merge: maps key by key, lists of named maps by `name` (new ones first)."""
    if isinstance(into, dict) and isinstance(patch, dict):
        merged = copy.deepcopy(into)
        for key, value in patch.items():
            if top and key in {"apiVersion", "kind", "metadata"}:
                continue  # a targeted patch never renames what it patches
            merged[key] = _merge(into[key], value) if key in into else copy.deepcopy(value)
        return merged
    named = isinstance(into, list) and isinstance(patch, list)
    if named and all(isinstance(i, dict) and "name" in i for i in [*into, *patch]):
        old = {i["name"]: i for i in into}
        new = [copy.deepcopy(p) for p in patch if p["name"] not in old]
        updates = {p["name"]: p for p in patch}
        return new + [_merge(i, updates[i["name"]]) if i["name"] in updates else i for i in into]
    return copy.deepcopy(patch)


def _transform(folder: Path, spec: Doc, docs: list[Doc]) -> list[Doc]:
    docs = copy.deepcopy(docs)
    for doc in docs:
        if "namespace" in spec and doc["kind"] not in _CLUSTER_SCOPED:
            doc["metadata"]["namespace"] = spec["namespace"]
        for group in spec.get("labels", []):
            assert set(group) == {"pairs"}, f"{folder}: labels {group}"
            doc["metadata"].setdefault("labels", {}).update(group["pairs"])
        for container in _containers(doc):
            for image in spec.get("images", []):
                name, _, tag = container["image"].partition(":")
                if name == image["name"]:
                    new = image.get("newName", name)
                    container["image"] = f"{new}:{image.get('newTag', tag)}"
    return docs


def _containers(doc: Doc) -> list[Doc]:
    pod = doc.get("spec", {}).get("template", {}).get("spec", {})
    return [*pod.get("initContainers", []), *pod.get("containers", [])]
