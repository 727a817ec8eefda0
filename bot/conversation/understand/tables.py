"""Pasted `kubectl get pods` and `runai` list tables, as printed: each row names one thing only.

A `kubectl get pods` row names a pod (and with `-A` its namespace); a `runai list jobs`
(CLI v1) or `runai workload list` / `runai training list` (CLI v2) row names a workload and
its project. Their other columns (READY `0/1`, AGE `5m`, NODE, IMAGE, USER, GPUs) are never
names nor lookbacks. The headers are the CLIs' own: v1 prints `NAME STATUS AGE NODE IMAGE
TYPE PROJECT USER GPUs Allocated (Requested) PODs Running (Pending) SERVICE URL(S)` (an
empty NODE for a job not yet placed), v2 `Workload Type Status Project Preemptible
Running/Requested Pods GPU Allocation` and a rule line under it. A line is such a header
only when it is one: every column up to PROJECT in the CLI's order, and after it nothing
but the CLI's later columns (a narrow terminal may wrap the rest onto the next line), so
`Workload training-job-42 status changed to Failed in project ml-team` is a sentence.
A row is one only when its cells fit the header (a STATUS value, v1's AGE, v2's pod
counts): the prose after a table pasted without a code block ends it, a row's GPU figures a
narrow terminal wrapped onto their own line (`0 (0)`) never do. Spaces between
columns are not kept (`markup` joins a line's words), so a row is read word by word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.conversation.understand.found import Found
from bot.conversation.understand.markup import FENCE

__all__ = ["read_tables"]


def _words(words: str) -> tuple[str, ...]:
    return tuple(words.split())


_HEADER = ("name", "ready", "status")
_READY = re.compile(r"^\d++/\d++$")
_AFTER_NAMESPACE = 2  # READY's column when NAMESPACE comes first
#: The headers of the two CLIs, word by word, as `.lower()` reads them.
_V1 = _words(
    "name status age node image type project user gpus allocated (requested) pods running "
    "(pending) service url(s)"
)
_V2 = _words("workload type status project preemptible running/requested pods gpu allocation")
_HEADER_WORDS = len(_V1)  # no header is longer
_IMAGE = re.compile(r"[/:]")  # `nvcr.io/nvidia/pytorch:24.01`; a node's name has neither
_RULE = frozenset("─━-=")  # the line v2 prints under its header
#: What STATUS shows: the workload's phase, or its pods' (`Init:0/1`).
_STATUSES = frozenset(
    _words(
        """pending running succeeded completed complete failed error deleted deleting unknown
        stopped stopping terminating terminated initializing creating containercreating
        crashloopbackoff imagepullbackoff errimagepull preempted evicted resuming suspended
        degraded timedout restarting oomkilled starting queued ready"""
    )
)
_POD_STATE = re.compile(r"^init:\S++$")
_AGE = re.compile(r"^(?:\d++[smhdy])++$|^<invalid>$|^-$")  # `2h`, `3d4h`, `5m30s`
_FIGURE = re.compile(r"^\(\d++(?:\.\d++)?+\)$")  # v1's `(1)`: GPUs requested, PODs pending
_COUNT = re.compile(r"^(?:\d++(?:\.\d++)?+|-)$")  # v1's `0` or `-` before the `(1)`


@dataclass(frozen=True)
class _Columns:
    """A `runai` list: which CLI printed it, where its PROJECT stands, how much header was read."""

    header: tuple[str, ...]  # `_V1` or `_V2`
    project: int
    read: int  # how many of the header's words were on its first line (the rest: wrapped)

    @property
    def v1(self) -> bool:
        return self.header is _V1


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
        if not words or words == [FENCE]:  # ends any table, at once: a message of backticks
            ready, runai = -1, None  # is thousands of fence lines
            kept.append(line)
            continue
        if ready >= 0 and len(words) > ready and _READY.match(words[ready]):
            if ready == _AFTER_NAMESPACE:
                found.set_namespace(words[0])
            found.add_pod(words[ready - 1])
            continue
        if runai is not None and (_rule(words) or _runai_row(words, runai, found)):
            continue
        if runai is not None and _figures(words):
            continue  # a row's `0 (0)` a narrow terminal wrapped onto its own line
        if runai is not None and _wrapped(words, runai):
            runai = _Columns(runai.header, runai.project, len(runai.header))
            continue
        ready = _ready_column([w.lower() for w in words[:4]])
        head = [w.lower() for w in words[: _HEADER_WORDS + 1]]
        runai = _runai_header(head) if ready < 0 else None
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
    """The columns of a `runai` list when `head` is its header's line, else None.

    Every word is the CLI's, in its order and none left out: at least up to PROJECT (a
    narrow terminal wraps the rest onto the next line, `_wrapped`).
    """
    for header in (_V1, _V2):
        project = header.index("project")
        if project < len(head) <= len(header) and tuple(head) == header[: len(head)]:
            return _Columns(header, project, len(head))
    return None


def _wrapped(words: list[str], columns: _Columns) -> bool:
    """Whether `words` go on with a header a narrow terminal wrapped (`Running (Pending) …`)."""
    rest = columns.header[columns.read :]
    return bool(words) and tuple(w.lower() for w in words) == rest[: len(words)]


def _runai_row(words: list[str], columns: _Columns, found: Found) -> bool:
    """Read one row of a `runai` list into `found`; False: the line is no row of it."""
    if not _fits(words, columns):
        return False
    found.add_listed(words[0], _project(words, columns))
    return True


def _fits(words: list[str], columns: _Columns) -> bool:
    """Whether the cells fit the header: a STATUS value, and v1's AGE or v2's pod counts.

    v1: `NAME STATUS AGE [NODE] IMAGE TYPE PROJECT USER - (1) 0 (0)`, its GPU and pod
    figures in brackets, or (a row a narrow terminal wrapped) an IMAGE where it stands;
    v2: `NAME TYPE STATUS PROJECT yes|no 0/2 0.00`.
    """
    if len(words) <= columns.project:
        return False
    if columns.v1:
        image = columns.header.index("image")
        figures = any(_FIGURE.match(w) for w in words[columns.project :])
        shown = any(_IMAGE.search(w) for w in words[image - 1 : image + 1])
        return _status(words[1]) and bool(_AGE.match(words[2])) and (figures or shown)
    counts = any(_READY.match(w) for w in words[columns.project + 1 :])
    return _status(words[2]) and counts


def _status(cell: str) -> bool:
    folded = cell.lower()
    return folded in _STATUSES or bool(_POD_STATE.match(folded))


def _project(words: list[str], columns: _Columns) -> str | None:
    """The row's PROJECT; with v1's possibly empty NODE, only where its IMAGE shows it stands."""
    if not columns.v1:
        return words[columns.project]
    image = columns.header.index("image")
    for shift in (0, 1):  # NODE printed; NODE empty (every later cell one word earlier)
        if _IMAGE.search(words[image - shift]):
            return words[columns.project - shift]
    return None  # `ubuntu`: no telling a node from an image, so no telling the project


def _figures(words: list[str]) -> bool:
    """Whether `words` are only v1's figures (`0 (0)`, `- (1)`): a wrapped row's tail."""
    return bool(words) and all(_FIGURE.match(w) or _COUNT.match(w) for w in words)


def _rule(words: list[str]) -> bool:
    return len(words) == 1 and set(words[0]) <= _RULE
