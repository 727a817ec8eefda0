"""The answer's lines, the same on every platform: which lines, in which order, what is left.

An incident channel has little vertical room. The answer shows the few lines that decide the
verdict (the report's deciding facts: the direct signal, the quantities, the failing log
line), what changed since the last good run, and the gaps that matter: at most
`MAX_SHOWN` lines. Everything else (every fact with all its sources, every gap) is one click
away, and "Show all evidence" shows all of it. Slack, Teams, the console and the terminal
lay these lines out in their own way, but never choose them: this module does. It knows
nothing about Block Kit, Adaptive Cards or terminals, and speaks only of `diagnosis` types.
Where the lines go in a message, and what overflows, is `bot.render.plan.sections`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from diagnosis import EvidenceLine, Outcome, Report

__all__ = ["MAX_SHOWN", "LineKind", "Plan", "PlanLine", "answer", "everything", "sources_text"]

#: Lines the answer shows at most: about six, so that it fits one screen.
MAX_SHOWN = 6
#: Of those, at most this many are gaps (the ones that matter come first).
_MAX_GAPS = 2


class LineKind(StrEnum):
    """What a planned line is; renderers style each kind their own way."""

    FACT = "fact"  # a cited observation
    LOG = "log"  # a quoted log line: shown exactly as the container wrote it
    CHANGE = "change"  # what differs from the last good run
    GAP = "gap"  # something that could not be measured


@dataclass(frozen=True)
class PlanLine:
    """One line to show: its kind, its (untrusted) text and every source that reported it."""

    kind: LineKind
    text: str
    sources: tuple[str, ...] = ()


@dataclass(frozen=True)
class Plan:
    """The answer's lines in order, and how many lines only "Show all evidence" has."""

    lines: tuple[PlanLine, ...]
    left_out: int

    @property
    def evidence(self) -> tuple[PlanLine, ...]:
        """The facts and changes shown, in order (a renderer's "Evidence" part)."""
        return tuple(line for line in self.lines if line.kind is not LineKind.GAP)

    @property
    def gaps(self) -> tuple[PlanLine, ...]:
        """The gaps shown, in order (a renderer's "Not measured" part)."""
        return tuple(line for line in self.lines if line.kind is LineKind.GAP)


def sources_text(line: PlanLine) -> str:
    """`get_workload_status; kubectl describe pod, namespace x` (a source may hold a comma)."""
    return "; ".join(line.sources)


def _fact(line: EvidenceLine) -> PlanLine:
    kind = LineKind.LOG if "logs" in line.source else LineKind.FACT
    return PlanLine(kind, line.text, line.sources)


def _gaps(report: Report, texts: tuple[str, ...]) -> list[PlanLine]:
    if report.outcome is Outcome.NEEDS_INPUT:
        return []  # its "missing" names the question's slots, not evidence
    return [PlanLine(LineKind.GAP, text) for text in texts]


def _changes(report: Report) -> list[PlanLine]:
    """What changed since the last good run: its one-line summary first, then each change."""
    if report.changes is None or not report.changes.items:
        return []
    source = (report.changes.source,)
    summary = PlanLine(LineKind.CHANGE, report.changes.summary(), source)
    items = (PlanLine(LineKind.CHANGE, c.describe(), source) for c in report.changes.items)
    return [summary, *items]


#: `Event at 2025-11-04 09:05:59Z: ` before a quote: the same words at another time are a repeat.
_ORIGIN = re.compile(r"^[^:]{0,120}? at \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ: ")


def _words(text: str) -> str:
    return " ".join(_ORIGIN.sub("", text).lower().split())


def _reports(report: Report) -> list[PlanLine]:
    """Each fact, then every other wording of it (`also: …`), so that nothing is hidden.

    A report in the same words as one already shown (the same event seen again later, or
    by another source) adds nothing to read: its source is on the fact's line already.
    """
    members: dict[str, list[EvidenceLine]] = {}
    for line in report.evidence:
        members.setdefault(line.fact or "", []).append(line)
    out: list[PlanLine] = []
    for fact in report.facts():
        out.append(_fact(fact))
        seen = {_words(fact.text)}
        for other in members.get(fact.fact or "\0", ()):
            if (words := _words(other.text)) not in seen:
                seen.add(words)
                also = _fact(other)
                out.append(PlanLine(also.kind, f"also: {other.text}", (other.source,)))
    return out


def everything(report: Report) -> tuple[PlanLine, ...]:
    """Every line behind the answer, for "Show all evidence".

    Every fact (and each of its other wordings), every change and every gap.
    """
    return (*_reports(report), *_changes(report), *_gaps(report, report.missing))


def answer(report: Report) -> Plan:
    """The few lines the answer shows, and how many more "Show all evidence" has.

    The gaps that matter come first in the budget (at most two), then the one-line summary
    of what changed, then the deciding facts in the report's order. A report that marks no
    gap as deciding but decides by all its lines (an outcome, not a diagnosis) shows its
    gaps too.
    """
    deciding = report.deciding()
    marked = any(f.deciding for f in report.facts())
    texts = report.deciding_missing or (() if marked else report.missing)
    gaps = _gaps(report, texts)[:_MAX_GAPS]
    change = _changes(report)[:1]
    room = max(MAX_SHOWN - len(gaps) - len(change), 1)
    facts = [_fact(f) for f in deciding[:room]]
    lines = (*facts, *change, *gaps)
    return Plan(lines, len(everything(report)) - len(lines))
