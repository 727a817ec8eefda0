"""Renders a `Report` as plain text for terminals: category first, as in the skill's example.

Upstream text is untrusted: control characters (terminal escape sequences), zero-width,
bidirectional and other invisible format characters are removed, so a log line cannot
rewrite the screen or hide text from the reader.
"""

from __future__ import annotations

from bot.render.slack_text import clean
from bot.render.wording import OWNER_LABEL, recurrence_sentence
from diagnosis import Outcome, Report

__all__ = ["render_text", "sanitize"]


_OUTCOME_LINE: dict[Outcome, str] = {
    Outcome.SUCCEEDED: "Outcome: SUCCEEDED (not a failure)",
    Outcome.PREEMPTED: "Outcome: PREEMPTED (not a failure category)",
    Outcome.PENDING_SCHEDULING: "Outcome: PENDING (scheduling, not a failure)",
    Outcome.SUSPENDED: "Outcome: SUSPENDED (out of scope)",
    Outcome.RUNNING_NO_FAILURE: "Outcome: RUNNING (no failure confirmed)",
    Outcome.NOT_TERMINAL: "Outcome: NOT TERMINAL (no category assigned)",
    Outcome.CLUSTER_MISMATCH: "Outcome: CLUSTER MISMATCH (stopped)",
    Outcome.NEEDS_INPUT: "Outcome: NEED MORE INFORMATION",
    Outcome.NOT_FOUND: "Outcome: NOT FOUND",
}


def sanitize(text: str) -> str:
    """Drop control, zero-width, bidi and other format characters from untrusted text.

    The same cleaning the Slack renderer applies (`bot.render.slack_text.clean`): one list of
    what is unsafe, for every front end.
    """
    return clean(text)


def _first_line(report: Report) -> str:
    if report.category is not None:
        return f"Category: {report.category.value}"
    return _OUTCOME_LINE.get(report.outcome, f"Outcome: {report.outcome.value}")


def render_text(report: Report) -> str:
    """The whole report as text, category (or outcome) on line one."""
    lines = [_first_line(report)]
    if report.workload is not None:
        w = report.workload
        lines.append(
            f"Workload: {w.name} | Phase: {w.phase or 'unknown'} | "
            f"Project: {w.project or 'unknown'} | Cluster: {w.cluster_id}"
        )
    if report.headline:
        lines.append(report.headline)
    if report.recovery_owner:
        lines.append(f"{OWNER_LABEL}: {report.recovery_owner}")
    if report.evidence:
        lines += ["", "Evidence:"]
        lines += [f"- {e.text} (source: {e.source})" for e in report.evidence]
    recurrence = recurrence_sentence(report)
    if recurrence:
        lines += ["", recurrence]
    if report.recommendations:
        lines += ["", "Recommendation:"]
        lines += [f"- {r}" for r in report.recommendations]
    if report.candidates:
        lines += ["", "Candidates:"]
        lines += [
            f"- {c.name} ({c.project or '?'}) phase {c.phase or '?'}: workload ID {c.id}"
            for c in report.candidates
        ]
    if report.missing and report.outcome is not Outcome.NEEDS_INPUT:
        lines += ["", "Not measured:"]
        lines += [f"- {m}" for m in report.missing]
    if report.redactions:
        lines += ["", f"({report.redactions} sensitive value(s) redacted)"]
    return sanitize("\n".join(lines))
