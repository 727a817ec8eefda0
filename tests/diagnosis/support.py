"""Doubles and fixtures the diagnosis tests share: an access callback, a share, a scenario."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from pathlib import Path

from bot.app.demo.scenarios import bundled_scenario, request_from_expectation
from diagnosis import Payload, WorkloadAccess

#: How docs/*.md cite a test (`tests/….py::test_name[case]`) and a scenario file.
TEST_REF = re.compile(r"`(tests/[\w/]+\.py)::(\w+)(?:\[([\w.\-]+)\])?`")
SCENARIO_REF = re.compile(r"`(runai_sim/scenarios/[\w.\-]+\.json)`")

#: A node failure with a blast radius: dgx-a100-07 ended other workloads too.
NODE_XID = bundled_scenario("t2-ddp-node-xid")
REQUEST = request_from_expectation(NODE_XID, NODE_XID.expect[0])


class Refusing:
    """Refuses the given (project, kind) pairs; remembers everything it was asked."""

    def __init__(self, *refused: tuple[str, str | None]) -> None:
        self.refused = set(refused)
        self.asked: list[WorkloadAccess] = []

    async def __call__(self, workload: WorkloadAccess) -> bool:
        self.asked.append(workload)
        return (workload.project, workload.kind) not in self.refused


class Memo:
    """A `Share` that keeps every result, and remembers what it was asked (kind, key)."""

    def __init__(self) -> None:
        self.kept: dict[tuple[str, str], str] = {}
        self.asked: list[tuple[str, str]] = []

    async def __call__(
        self, kind: str, key: str, compute: Callable[[], Awaitable[Payload]], /
    ) -> str:
        self.asked.append((kind, key))
        if (kind, key) not in self.kept:
            payload = await compute()
            if not payload.keep:
                return payload.text
            self.kept[kind, key] = payload.text
        return self.kept[kind, key]


def cited_test_problem(root: Path, path: str, name: str, case: str | None) -> str | None:
    """What is wrong with a doc's citation of `path::name[case]`, or None if it holds.

    A case may live in the test module or in a helper module of the tests it imports (a
    table such as `tests/diagnosis/rules/cases.py`).
    """
    source = (root / path).read_text(encoding="utf-8")
    if not re.search(rf"^(?:async )?def {name}\(", source, re.MULTILINE):
        return f"{path} has no {name}"
    if not case:
        return None
    helpers = re.findall(r"^from (tests\.[\w.]+) import", source, re.MULTILINE)
    texts = [source] + [
        (root / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8")
        for module in helpers
        if (root / (module.replace(".", "/") + ".py")).is_file()
    ]
    if any(f'"{case}"' in text for text in texts):
        return None
    return f"{path} has no case {case}"
