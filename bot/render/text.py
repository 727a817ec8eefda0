"""Renders a `Report` as plain text for terminals: category first, as in the skill's example.

The lists and their order are the plan's (`bot.render.plan`); the terminal shows them whole,
with the memory sparkline after the evidence, and counts what only "Show all evidence" has.
Upstream text is untrusted: control characters (terminal escape sequences), zero-width,
bidirectional and other invisible format characters are removed, so a log line cannot
rewrite the screen or hide text from the reader. Nor can it print lines of its own that
look like the report's: a name or an ID is joined onto one line (`_one`), and a line of
evidence, a recommendation or the headline keeps its lines only indented under its first
(`_indented`).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.render import plan
from bot.render.clean import clean, one_line
from bot.render.plan import PlanLine, sources_text
from bot.render.plan.sections import asked_back, evidence_layout, report_layout
from bot.render.sparkline import memory_sparkline
from bot.render.wording import (
    OWNER_LABEL,
    QUESTION_LABEL,
    candidate_facts,
    outcome_words,
    recurrence_sentence,
    verdict_label,
)
from diagnosis import Report

__all__ = ["plan_lines", "render_evidence_text", "render_text", "sanitize"]


def sanitize(text: str) -> str:
    """Drop control, zero-width, bidi and other format characters from untrusted text.

    The same cleaning every front end applies (`bot.render.clean.clean`): one list of what
    is unsafe, for every front end.
    """
    return clean(text)


#: Where the continuation lines of a multi-line upstream text start.
_CONTINUATION = "\n  "


def _one(text: str) -> str:
    """Untrusted text that belongs on one line (a name, an ID, a source), on one line."""
    return one_line(clean(text))


def _indented(text: str) -> str:
    """Untrusted text that may span lines: every line after the first indented, none blank."""
    first, *rest = clean(text).strip("\n").split("\n")
    return _CONTINUATION.join([first, *(line.rstrip() for line in rest if line.strip())])


def _first_line(report: Report) -> str:
    if report.category is not None:
        return f"Category: {report.category.value}"
    verdict = verdict_label(report)
    if verdict is not None:
        return verdict
    name, why = outcome_words(report.outcome)
    return f"Outcome: {name} ({why})" if why else f"Outcome: {name}"


def _head(report: Report, cluster_name: str | None) -> list[str]:
    """Line one, the workload, the headline, the question asked back, who fixes it."""
    lines = [_first_line(report)]
    if report.workload is not None:
        w = report.workload
        cluster = f"{cluster_name} ({w.cluster_id})" if cluster_name else w.cluster_id
        lines.append(
            f"Workload: {_one(w.name)} | Phase: {_one(w.phase or 'unknown')} | "
            f"Project: {_one(w.project or 'unknown')} | Cluster: {_one(cluster)}"
        )
        lines.append(f"Workload ID: {_one(w.id)}")
    if report.headline:
        lines.append(_indented(report.headline))
    if question := asked_back(report):
        lines.append(f"{QUESTION_LABEL}: {_indented(question)}")
    if report.recovery_owner:
        lines.append(f"{OWNER_LABEL}: {_one(report.recovery_owner)}")
    return lines


def plan_lines(lines: Sequence[PlanLine]) -> list[str]:
    """Planned lines as text: `- <text> (source: a, b)`; a gap has no source."""
    out = []
    for line in lines:
        noun = "sources" if len(line.sources) > 1 else "source"
        cited = f" ({noun}: {_one(sources_text(line))})" if line.sources else ""
        out.append(f"- {_indented(line.text)}{cited}")
    return out


def render_text(
    report: Report,
    *,
    cluster_name: str | None = None,
    everything: bool = False,
    more: str | None = None,
) -> str:
    """The report as text, category (or outcome) on line one.

    The answer shows the plan's few lines (`bot.render.plan`); `everything` shows every fact,
    change and gap instead (the `runai-why diagnose` view). `more` says how to see the lines
    left out. `cluster_name` is shown for the cluster, with its ID after it.
    """
    planned = plan.answer(report)
    layout = report_layout(report, planned)
    evidence, gaps = (
        evidence_layout(report) if everything else (layout.evidence, layout.not_measured)
    )
    lines = _head(report, cluster_name)
    if evidence.items:
        lines += ["", "Evidence:", *plan_lines(evidence.items)]
    sparkline = memory_sparkline(report.memory)
    if sparkline:
        lines += ["", sparkline]
    recurrence = recurrence_sentence(report)
    if recurrence:
        lines += ["", _one(recurrence)]
    if layout.recommendations.items:
        lines += ["", "Recommendation:"]
        lines += [f"- {_indented(r)}" for r in layout.recommendations.items]
    if layout.candidates.items:
        lines += ["", "Candidates (diagnose one with --workload-id ID):"]
        lines += [
            f"- {_one(c.name)} ({_one(c.project or '?')}) {_one(candidate_facts(c))}: "
            f"workload ID {_one(c.id)}"
            for c in layout.candidates.items
        ]
    if gaps.items:
        lines += ["", "Not measured:", *plan_lines(gaps.items)]
    if not everything and planned.left_out:
        noun = "line was" if planned.left_out == 1 else "lines were"
        how = f" {more}" if more else ""
        lines += ["", f"({planned.left_out} more {noun} left out to keep it short.{how})"]
    if report.redactions:
        lines += ["", f"({report.redactions} sensitive value(s) redacted)"]
    return sanitize("\n".join(lines))


def render_evidence_text(report: Report) -> str:
    """Every fact, change and gap ("Show all evidence"), as the console shows it."""
    evidence, gaps = evidence_layout(report)
    lines = plan_lines(evidence.items)
    shown = ["All evidence:", *(lines or ["- none"])]
    if gaps.items:
        shown += ["Not measured:", *plan_lines(gaps.items)]
    return sanitize("\n".join(shown))
