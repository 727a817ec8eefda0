"""Pasted `kubectl get pods` and `runai` list tables, as printed: each row names one thing only.

A `kubectl get pods` row names a pod (and with `-A` its namespace); a `runai list jobs`
(CLI v1) or `runai workload list` / `runai training list` (CLI v2) row names a workload and
its project. Their other columns (READY `0/1`, AGE `5m`, NODE, IMAGE, USER, GPUs) are never
names nor lookbacks. The headers are the CLIs' own: v1 prints `NAME STATUS AGE NODE IMAGE
TYPE PROJECT USER GPUs Allocated (Requested) PODs Running (Pending) SERVICE URL(S)` (an
empty NODE for a job not yet placed), v2 `Workload Type Status Project Preemptible
Running/Requested Pods GPU Allocation` and a rule line under it. Spaces between columns are
not kept (`markup` joins a line's words), so a row is read word by word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.conversation.understand.found import Found
from bot.conversation.understand.vocabulary import is_common

__all__ = ["read_tables"]

_HEADER = ("name", "ready", "status")
_READY = re.compile(r"^\d++/\d++$")
_AFTER_NAMESPACE = 2  # READY's column when NAMESPACE comes first
_FIRST = frozenset({"name", "workload"})  # how a `runai` list header starts
_HEADER_WORDS = 10  # a `runai` header's STATUS and PROJECT come within its first words
_MAYBE_EMPTY = "node"  # v1 prints no NODE for a job not yet placed
_IMAGE = re.compile(r"[/:]")  # `nvcr.io/nvidia/pytorch:24.01`; a node's name has neither
_RULE = frozenset("─━-=")  # the line v2 prints under its header


@dataclass(frozen=True)
class _Columns:
    """Where a `runai` list's PROJECT stands, and its IMAGE when an empty NODE may shift it."""

    project: int
    image: int | None  # set when NODE stands before PROJECT (v1)


def read_tables(text: str, found: Found) -> str:
    """`text` without its pasted tables; what their rows name goes to `found`.

    Below a `NAME READY STATUS …` header (`NAMESPACE NAME …` with `-A`), a row's pod; below
    a `runai` list header, a row's workload and its project (`Found.add_listed`). A table
    ends at the first line that is no row of it. Linear in the text.
    """
    kept: list[str] = []
    ready = -1  # the READY column of the `kubectl` table being read; -1: not in one
    runai: _Columns | None = None  # the `runai` table being read
    for line in text.split("\n"):
        words = line.split()
        if ready >= 0 and len(words) > ready and _READY.match(words[ready]):
            if ready == _AFTER_NAMESPACE:
                found.set_namespace(words[0])
            found.add_pod(words[ready - 1])
            continue
        if runai is not None and (_rule(words) or _runai_row(words, runai, found)):
            continue
        ready = _ready_column([w.lower() for w in words[:4]])
        runai = _runai_header([w.lower() for w in words[:_HEADER_WORDS]]) if ready < 0 else None
        if ready < 0 and runai is None:
            kept.append(line)
    return "\n".join(kept)


def _ready_column(head: list[str]) -> int:
    """Where READY stands when `head` starts a `kubectl get` header, else -1."""
    if tuple(head[:3]) == _HEADER:
        return 1
    if head[:1] == ["namespace"] and tuple(head[1:4]) == _HEADER:
        return _AFTER_NAMESPACE
    return -1


def _runai_header(head: list[str]) -> _Columns | None:
    """The columns of a `runai` list when `head` starts its header (`NAME STATUS … PROJECT`)."""
    if not head or head[0] not in _FIRST or "status" not in head or "project" not in head:
        return None
    project = head.index("project")
    if _MAYBE_EMPTY not in head[:project]:
        return _Columns(project, None)
    return _Columns(project, head.index("image")) if "image" in head[:project] else None


def _runai_row(words: list[str], columns: _Columns, found: Found) -> bool:
    """Read one row of a `runai` list into `found`; False: the line is no row of it."""
    if len(words) <= columns.project or is_common(words[0]):
        return False
    found.add_listed(words[0], _project(words, columns))
    return True


def _project(words: list[str], columns: _Columns) -> str | None:
    """The row's PROJECT; with an empty NODE possible, only where its IMAGE shows it stands."""
    if columns.image is None:
        return words[columns.project]
    for shift in (0, 1):  # NODE printed; NODE empty (every later cell one word earlier)
        if _IMAGE.search(words[columns.image - shift]):
            return words[columns.project - shift]
    return None  # `ubuntu`: no telling a node from an image, so no telling the project


def _rule(words: list[str]) -> bool:
    return len(words) == 1 and set(words[0]) <= _RULE
