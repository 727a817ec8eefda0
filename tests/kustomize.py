"""`kubectl kustomize DIR` for the tests, offline: kubectl's own where it is installed, else ours.

`build(folder)` is what `kubectl kustomize` (and so `kubectl apply -k`) makes of a folder:
with kubectl on PATH it runs it (no cluster is contacted); without it, `emulate` does the
same in Python for what this repository's kustomizations use (resources, components,
strategic-merge patches with or without a target, images, namespace, labels) and refuses
anything else, so a kustomization cannot quietly outgrow it. Where kubectl is installed,
tests/test_deploy.py checks that both agree on every overlay.
"""

from __future__ import annotations

import copy
import shutil
import subprocess
from pathlib import Path
from typing import Any

import yaml

__all__ = ["KUBECTL", "build", "emulate", "kubectl_build"]

Doc = dict[str, Any]
KUBECTL = shutil.which("kubectl")
_KNOWN = {"apiVersion", "kind", "resources", "components", "patches", "images", "namespace"}
_KNOWN |= {"labels"}
_CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding"}


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
    spec = yaml.safe_load((folder / "kustomization.yaml").read_text(encoding="utf-8"))
    unknown = set(spec) - _KNOWN
    assert not unknown, f"{folder}: the emulation does not know {sorted(unknown)}"
    docs: list[Doc] = []
    for entry in spec.get("resources", []):
        target = (folder / entry).resolve()
        docs += emulate(target) if target.is_dir() else _yaml(target)
    for entry in spec.get("components", []):
        component = (folder / entry).resolve()
        assert _yaml(component / "kustomization.yaml")[0]["kind"] == "Component", component
        docs = _apply(component, docs)
    return _transform(folder, spec, _patch(folder, spec, docs))


def _apply(component: Path, docs: list[Doc]) -> list[Doc]:
    spec = yaml.safe_load((component / "kustomization.yaml").read_text(encoding="utf-8"))
    unknown = set(spec) - _KNOWN
    assert not unknown, f"{component}: the emulation does not know {sorted(unknown)}"
    for entry in spec.get("resources", []):
        docs = [*docs, *_yaml(component / entry)]
    return _transform(component, spec, _patch(component, spec, docs))


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
        docs = [_merge(d, body, top=True) if d in hits else d for d in docs]
    return docs


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
