"""The curated public API of `diagnosis`: what it exports, and the contracts that hold bot/ to it.

The `.importlinter` contracts are checked by `lint-imports` in `dev.py test`; the table below
proves they bite, by running `lint-imports` with the repository's own configuration over a
throwaway copy of the package layout in which one import is changed.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import diagnosis

PACKAGE = Path(diagnosis.__file__).parent
ROOT = PACKAGE.parent
CONFIG = ROOT / ".importlinter"
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
#: The contracts between the packages (each one biting: tests/test_import_contracts.py).
BOUNDARIES = (
    "--contract",
    "bot-uses-the-public-api",
    "--contract",
    "diagnosis-is-platform-neutral",
)


def _imports_from_diagnosis(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of every `import diagnosis…` / `from diagnosis… import …` in a file."""
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] == "diagnosis":
                found.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            found.extend((a.name, []) for a in node.names if a.name.split(".")[0] == "diagnosis")
    return found


def test_all_names_the_public_objects_defined_in_the_package():
    """`__all__` is exactly the package's public names, each defined inside `diagnosis`."""
    modules = {p.stem for p in PACKAGE.iterdir() if p.suffix == ".py" or p.is_dir()}
    public = {n for n in dir(diagnosis) if not n.startswith("_")} - modules
    assert set(diagnosis.__all__) == public
    assert len(diagnosis.__all__) == len(set(diagnosis.__all__)), "an export is listed twice"
    for name in diagnosis.__all__:
        obj = getattr(diagnosis, name)
        home = getattr(obj, "__module__", "diagnosis")
        assert home.split(".")[0] == "diagnosis", f"{name} is re-exported from {home}"


def test_bot_uses_only_exported_names():
    """Every name bot/ takes from diagnosis is in `__all__`, and bot/ never imports a submodule."""
    used: set[str] = set()
    for path in (ROOT / "bot").rglob("*.py"):
        for module, names in _imports_from_diagnosis(path):
            assert module == "diagnosis", f"{path.relative_to(ROOT)} imports {module}"
            used.update(names)
    assert used, "bot/ is expected to use the engine"
    assert used <= set(diagnosis.__all__), used - set(diagnosis.__all__)


def _layout(tmp_path: Path, *, bot: str, engine: str) -> Path:
    """bot/, diagnosis/ (with a `pipeline` and a `kube` submodule) and runai_sim/ stand-ins."""
    files = {
        "bot/__init__.py": "",
        "bot/app.py": bot,
        "diagnosis/__init__.py": "from diagnosis.pipeline import diagnose\n",
        "diagnosis/pipeline.py": f"{engine}\n\ndef diagnose():\n    return None\n",
        "diagnosis/kube/__init__.py": "",
        "diagnosis/kube/reader.py": "",
        "runai_sim/__init__.py": "",
        "runai_sim/app.py": "",
    }
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


CONTRACT_CASES = [
    # bot/app.py, diagnosis/pipeline.py, contracts kept?, text the report must name
    pytest.param("from diagnosis import diagnose", "", True, "", id="public-name"),
    pytest.param(
        "from diagnosis.pipeline import diagnose", "", False, "bot.app -> diagnosis", id="submodule"
    ),
    pytest.param(
        "import diagnosis.kube.reader", "", False, "bot.app -> diagnosis.kube", id="deep-submodule"
    ),
    pytest.param(
        "from diagnosis import kube", "", False, "bot.app -> diagnosis.kube", id="module-by-name"
    ),
    pytest.param("", "import bot.app", False, "diagnosis.pipeline -> bot", id="engine-imports-bot"),
    pytest.param(
        "", "import slack_sdk", False, "diagnosis.pipeline -> slack_sdk", id="engine-imports-slack"
    ),
    pytest.param(
        "",
        "import runai_sim.app",
        False,
        "diagnosis.pipeline -> runai_sim",
        id="engine-imports-sim",
    ),
]


@pytest.mark.parametrize(("bot", "engine", "kept", "named"), CONTRACT_CASES)
def test_import_contracts_bite(tmp_path, bot, engine, kept, named):
    """The repository's `.importlinter` keeps a clean layout and breaks on each bad import."""
    root = _layout(tmp_path, bot=bot, engine=engine)
    env = {**os.environ, "PYTHONPATH": str(root)}
    result = subprocess.run(  # noqa: S603 (our own venv's tool, our own config)
        [str(LINT_IMPORTS), "--no-logo", "--no-cache", *BOUNDARIES, str(CONFIG)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (result.returncode == 0) is kept, (result.stdout, result.stderr)
    assert named in result.stdout


def test_every_module_says_what_it_owns():
    for path in PACKAGE.rglob("*.py"):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        assert doc, f"{path} has no module docstring"
