"""The category registry: one row per category owns its rule, recovery owner and advice.

k8sgpt's "one analyzer per kind", with fetching and judging kept apart: collection fills the
`Evidence`, a row's rule judges it, the same row says who fixes it and what to do next.
The order is the priority when two rules describe the same termination (first wins);
UNKNOWN is last and is the fallback rather than a rule.
"""

from __future__ import annotations

from diagnosis.report import Category
from diagnosis.rules import crash, image_pull, init, mount, node, oom, policy, unknown
from diagnosis.rules.base import CategoryRow

__all__ = ["REGISTRY", "row"]

REGISTRY: tuple[CategoryRow, ...] = (
    policy.ROW,
    oom.ROW,
    image_pull.ROW,
    init.ROW,
    mount.ROW,
    node.ROW,
    crash.ROW,
    unknown.ROW,
)
_BY_CATEGORY = {r.category: r for r in REGISTRY}


def row(category: Category) -> CategoryRow:
    """The registry row of a category."""
    return _BY_CATEGORY[category]
