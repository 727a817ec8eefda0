"""diagnosis/ and runai_sim/: no import cycle (deferred ones too), layers that bite, short modules.

grimp (import-linter's graph) reads every import statement of a module, the ones inside
functions too; imports under `if TYPE_CHECKING:` are left out, as they never run. The ast scan
below checks that every deferred import really is in that graph, so a cycle hidden behind an
import inside a function is found like any other.
"""

from __future__ import annotations

import ast
import configparser
import os
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

import diagnosis

ROOT = Path(diagnosis.__file__).parent.parent
CONFIG = ROOT / ".importlinter"
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
PACKAGES = ("diagnosis", "runai_sim")


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(*PACKAGES, exclude_type_checking_imports=True)


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _deferred(package: str) -> list[tuple[str, str]]:
    """(importer, imported) for every absolute import inside a function of the package."""
    found = []
    for path in (ROOT / package).rglob("*.py"):
        for func in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(func):
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    found.append((_module(path), node.module))
                elif isinstance(node, ast.Import):
                    found.extend((_module(path), a.name) for a in node.names)
    return [(a, b) for a, b in found if b.split(".")[0] in PACKAGES]


@pytest.mark.parametrize("package", PACKAGES)
def test_deferred_imports_are_in_the_graph(graph, package):
    for importer, imported in _deferred(package):
        assert graph.direct_import_exists(importer=importer, imported=imported), (
            importer,
            imported,
        )


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle(graph, package):
    """No module imports, directly or through others, a module that imports it."""
    cycles = []
    for importer in sorted(graph.find_children(package) | graph.find_descendants(package)):
        for imported in graph.find_modules_directly_imported_by(importer):
            if imported.split(".")[0] in PACKAGES:
                back = graph.find_shortest_chain(importer=imported, imported=importer)
                if back is not None:
                    cycles.append((importer, *back))
    assert not cycles, cycles


def _layers() -> list[list[str]]:
    """The `diagnosis-layers` contract's layers, top first, each a list of module names."""
    config = configparser.ConfigParser()
    config.read(CONFIG, encoding="utf-8")
    text = config["importlinter:contract:diagnosis-layers"]["layers"]
    return [line.replace("|", ":").split(":") for line in text.split("\n") if line.strip()]


LAYER_CASES = [
    # (importer, imported) added to a layout of empty modules, contract kept?
    pytest.param(None, True, id="clean"),
    pytest.param(("report", "rules"), False, id="model-imports-rules"),
    pytest.param(("rules", "kube"), False, id="rules-import-a-collector"),
    pytest.param(("evidence", "pipeline"), False, id="evidence-imports-the-pipeline"),
    pytest.param(("pipeline", "report"), True, id="downwards"),
]


@pytest.mark.parametrize(("edge", "kept"), LAYER_CASES)
def test_the_layers_bite(tmp_path, edge, kept):
    """The layers contract, over empty stand-ins of its modules, catches an upward import."""
    modules = [m.strip() for layer in _layers() for m in layer]
    for name in ("diagnosis", "bot", "runai_sim"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("", encoding="utf-8")
    for name in modules:
        text = f"import diagnosis.{edge[1]}\n" if edge and edge[0] == name else ""
        (tmp_path / "diagnosis" / f"{name}.py").write_text(text, encoding="utf-8")
    result = subprocess.run(  # noqa: S603 (our own venv's tool, our own config)
        [
            str(LINT_IMPORTS),
            "--no-logo",
            "--no-cache",
            "--contract",
            "diagnosis-layers",
            str(CONFIG),
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (result.returncode == 0) is kept, (result.stdout, result.stderr)
    if not kept:
        assert f"diagnosis.{edge[0]} -> diagnosis.{edge[1]}" in result.stdout


#: The hard ceiling of a module's length (the guide: about 50-300 lines, never over 400).
MAX_LINES = 400


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_over_the_ceiling(package):
    long = {
        str(path.relative_to(ROOT)): lines
        for path in (ROOT / package).rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}
