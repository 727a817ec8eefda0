"""What a pushed answer says beside the report: why it came, how often, and a storm's summary."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence

from diagnosis import Report

__all__ = ["fingerprint", "label", "ordinal", "recurrence_note", "source_note", "storm_summary"]


def label(report: Report) -> str:
    """The report's category, or its outcome when it has none (`PREEMPTED`, ...)."""
    if report.category is not None:
        return report.category.value
    return report.outcome.value.upper()


def fingerprint(project: str, report: Report) -> str:
    """Same project, workload name, category and sub-cause: the same failure again."""
    name = report.workload.name if report.workload else ""
    cause = report.subcause or report.policy or ""
    raw = "\x1f".join((project, name, label(report), cause))
    return hashlib.sha256(raw.encode()).hexdigest()[:32]


_TEENS = range(10, 21)  # 11th, 12th, 13th: never 11st
_MAX_MINUTES = 120  # "90 min", then "2 h"
_MAX_HOURS = 48  # "36 h", then "2 d"


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st, ..."""
    suffix = "th" if n % 100 in _TEENS else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _span(seconds: float) -> str:
    minutes = max(1, round(seconds / 60))
    if minutes < _MAX_MINUTES:
        return f"{minutes} min"
    hours = round(minutes / 60)
    return f"{hours} h" if hours < _MAX_HOURS else f"{round(hours / 24)} d"


def recurrence_note(count: int, first_at: float, now: float) -> str:
    """How often it was posted in this thread, and since when: "3rd time in 2 h"."""
    return f"{ordinal(count)} time in {_span(now - first_at)}"


def source_note(source: str, *, project: str, cluster: str, alertname: str = "") -> str:
    """Why nobody asked and it is here anyway: the channel watches the project, or an alert."""
    if source == "alert":
        named = f" {alertname}" if alertname else ""
        return f"Posted for the Alertmanager alert{named} (project {project} on {cluster})."
    return f"Posted because this channel watches project {project} on {cluster}."


def storm_summary(project: str, window: str, reports: Sequence[Report]) -> str:
    """One line for many failures: "12 workloads in nlp failed ...: 9 x NODE_FAILURE on dgx-07"."""
    groups: Counter[str] = Counter()
    for report in reports:
        node = report.details.get("node")
        groups[label(report) + (f" on {node}" if isinstance(node, str) and node else "")] += 1
    parts = ", ".join(f"{n} \N{MULTIPLICATION SIGN} {what}" for what, n in groups.most_common())
    return (
        f"{len(reports)} workloads in {project} failed {window}: {parts}. "
        "Each one's answer is in this thread."
    )
