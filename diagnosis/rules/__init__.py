"""`classify`: run every registry row's rule and pick the verdict (strongest direct signal).

A rule looks at the collected `Evidence` and returns a `Finding` or None; rules never do
I/O. When several rules fire, the failure that happened last is the one being asked about;
rules whose decisive signals fall within `SAME_TERMINATION` of it describe the same
termination, and among those the registry order decides.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from diagnosis.distributed import first_failure
from diagnosis.evidence import Evidence
from diagnosis.report import Category
from diagnosis.rules.base import CategoryRow, Details, Finding, Rule
from diagnosis.rules.registry import REGISTRY, row
from diagnosis.rules.unknown import preemption_not_excluded, unknown

__all__ = [
    "REGISTRY",
    "RULES",
    "SAME_TERMINATION",
    "CategoryRow",
    "Details",
    "Finding",
    "classify",
    "row",
]

#: The rules in priority order, as (category, rule) pairs (UNKNOWN, the fallback, excluded).
RULES: tuple[tuple[Category, Rule], ...] = tuple(
    (r.category, r.rule) for r in REGISTRY if r.rule is not None
)

SAME_TERMINATION = timedelta(minutes=10)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _pick(ev: Evidence) -> Finding:
    findings = [f for _, rule in RULES if (f := rule(ev)) is not None]
    if not findings:
        return unknown(ev)
    newest = max(f.at or _EPOCH for f in findings)
    for finding in findings:  # in registry order
        if newest - (finding.at or _EPOCH) <= SAME_TERMINATION:
            return finding
    raise AssertionError("unreachable: the newest finding is within its own window")


def classify(ev: Evidence) -> Finding:
    """The verdict; `UNKNOWN` when no rule fires or a Stopped workload's preemption is open.

    When several pods failed, the first one's evidence decides (`diagnosis.distributed`):
    the finding names that pod and its rank, and cites the pods that failed after it.
    """
    first = first_failure(ev)
    if first is None:
        finding = _pick(ev)
    else:
        found = _pick(first.evidence)
        finding = found.model_copy(
            update={
                "headline": found.headline + first.headline(),
                "evidence": (*found.evidence, first.summary()),
                "context": (*found.context, *first.consequences()),
                "details": found.details.model_copy(
                    update={"pod": first.first.pod, "rank": first.first.rank}
                ),
            }
        )
    return preemption_not_excluded(ev, finding) or finding
