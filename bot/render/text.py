"""Renders a `Report` as plain text for terminals: category first, as in the skill's example.

Upstream text is untrusted: control characters (terminal escape sequences), zero-width,
bidirectional and other invisible format characters are removed, so a log line cannot
rewrite the screen or hide text from the reader.
"""

from __future__ import annotations

from bot.render.slack_text import clean
from bot.render.sparkline import memory_sparkline
from bot.render.wording import (
    OWNER_LABEL,
    QUESTION_LABEL,
    candidate_facts,
    outcome_words,
    recurrence_sentence,
    verdict_label,
)
from diagnosis import Outcome, Report

__all__ = ["render_text", "sanitize"]


def sanitize(text: str) -> str:
    """Drop control, zero-width, bidi and other format characters from untrusted text.

    The same cleaning the Slack renderer applies (`bot.render.slack_text.clean`): one list of
    what is unsafe, for every front end.
    """
    return clean(text)


def _first_line(report: Report) -> str:
    if report.category is not None:
        return f"Category: {report.category.value}"
    verdict = verdict_label(report)
    if verdict is not None:
        return verdict
    name, why = outcome_words(report.outcome)
    return f"Outcome: {name} ({why})" if why else f"Outcome: {name}"


def render_text(report: Report, *, cluster_name: str | None = None) -> str:
    """The whole report as text, category (or outcome) on line one.

    `cluster_name` is shown for the cluster, with its ID after it.
    """
    lines = [_first_line(report)]
    if report.workload is not None:
        w = report.workload
        cluster = f"{cluster_name} ({w.cluster_id})" if cluster_name else w.cluster_id
        lines.append(
            f"Workload: {w.name} | Phase: {w.phase or 'unknown'} | "
            f"Project: {w.project or 'unknown'} | Cluster: {cluster}"
        )
        lines.append(f"Workload ID: {w.id}")
    if report.headline:
        lines.append(report.headline)
    if report.question and report.outcome is not Outcome.NEEDS_INPUT:
        lines.append(f"{QUESTION_LABEL}: {report.question}")
    if report.recovery_owner:
        lines.append(f"{OWNER_LABEL}: {report.recovery_owner}")
    if report.evidence:
        lines += ["", "Evidence:"]
        lines += [f"- {e.text} (source: {e.source})" for e in report.evidence]
    sparkline = memory_sparkline(report.memory)
    if sparkline:
        lines += ["", sparkline]
    recurrence = recurrence_sentence(report)
    if recurrence:
        lines += ["", recurrence]
    if report.recommendations:
        lines += ["", "Recommendation:"]
        lines += [f"- {r}" for r in report.recommendations]
    if report.candidates:
        lines += ["", "Candidates (diagnose one with --workload-id ID):"]
        lines += [
            f"- {c.name} ({c.project or '?'}) {candidate_facts(c)}: workload ID {c.id}"
            for c in report.candidates
        ]
    if report.missing and report.outcome is not Outcome.NEEDS_INPUT:
        lines += ["", "Not measured:"]
        lines += [f"- {m}" for m in report.missing]
    if report.redactions:
        lines += ["", f"({report.redactions} sensitive value(s) redacted)"]
    return sanitize("\n".join(lines))
