"""Sentences every renderer words the same way (text, Block Kit, and later Adaptive Cards)."""

from __future__ import annotations

from diagnosis import Report

__all__ = ["OWNER_LABEL", "recurrence_sentence"]

#: The runai-diagnose-failed-workload skill's "Recovery owner" column, as shown to users.
OWNER_LABEL = "Who fixes it"


def recurrence_sentence(report: Report) -> str | None:
    """'History: 3 OOM_KILLED failures in the last 24h (recurring).', or None."""
    recur = report.recurrence
    if recur is None or report.category is None:
        return None
    category = report.category.value
    if recur.count is None:
        return f"History: not measured (history unavailable for the last {recur.lookback})."
    if recur.count == 0:
        return (
            f"History: no {category} failures in the last {recur.lookback}; this one is older "
            "than the lookback (ask with a longer lookback to count it)."
        )
    noun = "failure" if recur.count == 1 else "failures"
    label = "recurring" if recur.recurring else "one-off"
    return f"History: {recur.count} {category} {noun} in the last {recur.lookback} ({label})."
