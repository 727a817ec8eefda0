"""How a document under docs/ cites a test (`tests/…py::name[id]`) or a scenario file."""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["SCENARIO_REF", "TEST_REF", "cases_source"]

TEST_REF = re.compile(r"`(tests/[\w/]+\.py)::(\w+)(?:\[([\w.\-]+)\])?`")
SCENARIO_REF = re.compile(r"`(runai_sim/scenarios/[\w.\-]+\.json)`")

#: A test module's import of a helper module under tests/ (where its case tables may live).
_HELPER_IMPORT = re.compile(r"^from (tests(?:\.\w+)+) import", re.MULTILINE)


def cases_source(root: Path, path: str) -> str:
    """The cited test module's text, then that of the helper modules it imports from tests/.

    A case id may be in a table the test imports (`tests/diagnosis/rules/cases.py`).
    """
    source = (root / path).read_text(encoding="utf-8")
    helpers = (root / (name.replace(".", "/") + ".py") for name in _HELPER_IMPORT.findall(source))
    return "\n".join([source, *(h.read_text(encoding="utf-8") for h in helpers if h.is_file())])
