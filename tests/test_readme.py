"""The README and docs/ write every command to type from a clone in a form that runs there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.app.cli_parser import build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _fenced_lines(text: str) -> list[str]:
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)
    return [line.strip() for block in blocks for line in block.splitlines()]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
def test_no_code_block_runs_a_runai_why_a_newcomer_does_not_have(document: Path):
    """`runai-why` is on no PATH after a clone: blocks say `python3 dev.py run ...`."""
    commands = "|".join([*build_parser().subcommands, "--version", "--help"])
    runs = re.compile(rf"^(\S*/bin/)?runai-why\s+({commands})\b")
    bare = [
        line for line in _fenced_lines(document.read_text(encoding="utf-8")) if runs.match(line)
    ]
    assert bare == []


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
def test_every_dev_py_run_names_a_real_command(document: Path):
    commands = set(build_parser().subcommands) | {"--version", "--help"}
    ran = re.findall(r"python3 dev\.py run\s+(\S+)", document.read_text(encoding="utf-8"))
    assert all(word.strip("`).,") in commands | {"ARGS"} for word in ran), ran


def test_the_readme_says_how_commands_are_written_and_how_to_activate():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = readme[readme.index("## Quick start") : readme.index("## In Slack")]
    assert "`python3 dev.py run ARGS` is `runai-why ARGS`" in quick_start
    assert ". .venv/bin/activate" in quick_start
