"""One identifier as one URL path segment: escaped, and never empty or a dot segment.

Every Run:ai and Kubernetes path built from an identifier (a workload ID, a namespace, a pod
or node name, a project ID) goes through `segment`. Escaping keeps a `/` or `?` in a name
from starting another segment or a query; refusing `.` and `..` keeps a name from climbing a
level, since URL normalisation resolves dot segments (RFC 3986 §5.2.4) and the request would
then read another resource than the one named.
"""

from __future__ import annotations

from urllib.parse import quote

from diagnosis.errors import InvalidRequest

__all__ = ["nonempty", "segment"]

_DOT_SEGMENTS = frozenset({".", ".."})


def nonempty(value: str, what: str) -> str:
    """`value`, unless it is empty or blank (`InvalidRequest` naming `what`)."""
    if not value or not value.strip():
        raise InvalidRequest(f"{what} must not be empty")
    return value


def segment(value: str, what: str) -> str:
    """`value` escaped as exactly one path segment; `InvalidRequest` for an unusable one."""
    if nonempty(value, what) in _DOT_SEGMENTS:
        raise InvalidRequest(f"{what} must not be {value!r}")
    return quote(value, safe="")
