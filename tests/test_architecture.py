"""The architecture holds: no import cycle, no module over the ceiling, tests that mirror it.

grimp (import-linter's graph) reads every import statement of a module, the ones inside
functions too; imports under `if TYPE_CHECKING:` are left out, as they never run. The ast
scan below checks that every deferred import really is in that graph, so a cycle hidden
behind an import inside a function is found like any other. The rooms themselves, and which
package may use Slack's and Teams' libraries, are import-linter contracts (`.importlinter`,
run by `python3 dev.py test`); docs/architecture.md explains them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bot", "diagnosis", "runai_sim")
#: The hard ceiling of a module's length (the guide: about 50-300 lines, never over 400).
MAX_LINES = 400


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


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_over_the_ceiling(package):
    long = {
        str(path.relative_to(ROOT)): lines
        for path in (ROOT / package).rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


#: Test folders that hold data, not tests of a package of that name.
UNMIRRORED = {"tests/runai_sim/data"}


def test_tests_mirror_the_packages():
    """tests/<package>/<room>/ exists only where <package>/<room> (a package or module) does."""
    stray = []
    for package in (*PACKAGES, "bench"):
        for folder in (ROOT / "tests" / package).rglob("*"):
            if not folder.is_dir() or folder.name == "__pycache__":
                continue
            relative = folder.relative_to(ROOT)
            source = relative.relative_to("tests")
            mirrored = (ROOT / source).is_dir() or (ROOT / source).with_suffix(".py").is_file()
            if not mirrored and str(relative) not in UNMIRRORED:
                stray.append(str(relative))
    assert stray == []


def _imported_test_modules() -> list[tuple[str, str]]:
    found = []
    for path in (ROOT / "tests").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.module.startswith("tests.")
            ):
                last = node.module.rsplit(".", 1)[-1]
                if last.startswith("test_") or last == "conftest":
                    found.append((str(path.relative_to(ROOT)), node.module))
    return sorted(found)


def test_test_helpers_live_in_helper_modules():
    """Nothing imports a test module or a conftest.py: what tests share is a helper module."""
    assert _imported_test_modules() == []
