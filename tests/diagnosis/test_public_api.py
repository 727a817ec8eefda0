"""The curated public API of `diagnosis`, and its independence from the bot and Slack."""

from __future__ import annotations

import ast
from pathlib import Path

import diagnosis

PACKAGE = Path(diagnosis.__file__).parent


def test_all_is_sorted_and_complete():
    public = {name for name in dir(diagnosis) if not name.startswith("_")}
    modules = {p.stem for p in PACKAGE.iterdir() if p.suffix == ".py" or p.is_dir()}
    assert sorted(diagnosis.__all__, key=str.lower) == sorted(diagnosis.__all__, key=str.lower)
    assert set(diagnosis.__all__) == public - modules - {"runai", "rules"}


def test_diagnosis_never_imports_bot_or_slack():
    """diagnosis/ is platform-neutral: no bot, Slack, Bolt or Redis import anywhere in it."""
    forbidden = ("bot", "slack_bolt", "slack_sdk", "redis", "runai_sim")
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in forbidden, f"{path} imports {name}"


def test_every_module_says_what_it_owns():
    for path in PACKAGE.rglob("*.py"):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        assert doc, f"{path} has no module docstring"
