"""The import contracts in `.importlinter` bite: each catches the import it exists to forbid.

Each case writes empty stand-ins of a contract's modules into a scratch folder, adds one
import, and runs `lint-imports` on that contract alone.
"""

from __future__ import annotations

import configparser
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / ".importlinter"
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _section(contract: str) -> configparser.SectionProxy:
    config = configparser.ConfigParser()
    config.read(CONFIG, encoding="utf-8")
    return config[f"importlinter:contract:{contract}"]


def _layered(contract: str) -> tuple[str, list[str]]:
    """A layers contract's container and its modules, top first."""
    section = _section(contract)
    names = section["layers"].replace("|", ":").replace("\n", ":").split(":")
    return section["containers"].strip(), [n.strip() for n in names if n.strip()]


def _lint(
    tmp_path: Path, contract: str, modules: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """`lint-imports --contract contract` over stand-ins: dotted module name -> its source."""
    for name in ("bot", "diagnosis", "runai_sim", "slack_sdk", "slack_bolt", "microsoft_teams"):
        (tmp_path / name).mkdir(exist_ok=True)
        (tmp_path / name / "__init__.py").write_text("", encoding="utf-8")
    for name, source in modules.items():
        path = tmp_path.joinpath(*name.split(".")).with_suffix(".py")
        path.write_text(source, encoding="utf-8")
    return subprocess.run(  # noqa: S603 (our own venv's tool, our own config)
        [str(LINT_IMPORTS), "--no-logo", "--no-cache", "--contract", contract, str(CONFIG)],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


LAYER_CASES = [
    # (contract, (importer, imported) added to empty stand-ins, kept?)
    pytest.param("diagnosis-layers", None, True, id="diagnosis-clean"),
    pytest.param("diagnosis-layers", ("report", "rules"), False, id="model-imports-rules"),
    pytest.param("diagnosis-layers", ("rules", "kube"), False, id="rules-import-a-collector"),
    pytest.param("diagnosis-layers", ("evidence", "pipeline"), False, id="evidence-up"),
    pytest.param("diagnosis-layers", ("pipeline", "report"), True, id="diagnosis-downwards"),
    pytest.param("bot-layers", None, True, id="bot-clean"),
    pytest.param("bot-layers", ("slack", "teams"), False, id="slack-imports-teams"),
    pytest.param("bot-layers", ("teams", "app"), False, id="front-end-imports-composition"),
    pytest.param("bot-layers", ("conversation", "work"), False, id="engine-imports-queue"),
    pytest.param("bot-layers", ("render", "authz"), False, id="render-imports-authz"),
    pytest.param("bot-layers", ("config", "ops"), False, id="config-imports-ops"),
    pytest.param("bot-layers", ("app", "errors"), True, id="bot-downwards"),
]


@pytest.mark.parametrize(("contract", "edge", "kept"), LAYER_CASES)
def test_the_layers_bite(tmp_path, contract, edge, kept):
    container, names = _layered(contract)
    modules = {
        f"{container}.{name}": (
            f"import {container}.{edge[1]}\n" if edge and edge[0] == name else ""
        )
        for name in names
    }
    result = _lint(tmp_path, contract, modules)
    assert (result.returncode == 0) is kept, (result.stdout, result.stderr)
    if not kept:
        assert f"{container}.{edge[0]} -> {container}.{edge[1]}" in result.stdout


LIBRARY_CASES = [
    # (contract, the room that imports, the library, kept?)
    pytest.param("slack-libraries-in-the-slack-package", "slack", "slack_sdk", True, id="slack"),
    pytest.param("slack-libraries-in-the-slack-package", "render", "slack_sdk", False, id="sdk"),
    pytest.param("slack-libraries-in-the-slack-package", "app", "slack_bolt", False, id="bolt"),
    pytest.param(
        "teams-library-in-the-teams-package", "teams", "microsoft_teams", True, id="teams"
    ),
    pytest.param("teams-library-in-the-teams-package", "push", "microsoft_teams", False, id="ms"),
]


@pytest.mark.parametrize(("contract", "room", "library", "kept"), LIBRARY_CASES)
def test_platform_libraries_stay_in_their_package(tmp_path, contract, room, library, kept):
    section = _section(contract)
    rooms = {m.strip().split(".")[1] for m in section["source_modules"].split() if m.strip()}
    modules = {f"bot.{name}": "" for name in rooms | {"slack", "teams"}}
    modules[f"bot.{room}"] = f"import {library}\n"
    result = _lint(tmp_path, contract, modules)
    assert (result.returncode == 0) is kept, (result.stdout, result.stderr)
