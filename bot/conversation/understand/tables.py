"""`kubectl get pods` output pasted as printed: each row names a pod, its other columns nothing."""

from __future__ import annotations

import re

from bot.conversation.understand.found import Found

__all__ = ["read_tables"]

_HEADER = ("name", "ready", "status")
_READY = re.compile(r"^\d++/\d++$")
_AFTER_NAMESPACE = 2  # READY's column when NAMESPACE comes first


def read_tables(text: str, found: Found) -> str:
    """`text` without its `kubectl get` tables; their rows' pods (and namespaces) go to `found`.

    Below a `NAME READY STATUS …` header (`NAMESPACE NAME …` with `-A`), a row's READY
    (`0/1`) is no project/workload pair and its AGE (`5m`) no lookback. Linear in the text.
    """
    kept: list[str] = []
    ready = -1  # the READY column of the table being read; -1: not in a table
    for line in text.split("\n"):
        words = line.split()
        if ready >= 0 and len(words) > ready and _READY.match(words[ready]):
            if ready == _AFTER_NAMESPACE:
                found.set_namespace(words[0])
            found.add_pod(words[ready - 1])
            continue
        ready = _ready_column([w.lower() for w in words[:4]])
        if ready < 0:
            kept.append(line)
    return "\n".join(kept)


def _ready_column(head: list[str]) -> int:
    """Where READY stands when `head` starts a `kubectl get` header, else -1."""
    if tuple(head[:3]) == _HEADER:
        return 1
    if head[:1] == ["namespace"] and tuple(head[1:4]) == _HEADER:
        return _AFTER_NAMESPACE
    return -1
