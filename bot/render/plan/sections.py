"""The sections of a report's message, in their one order, each list with its names.

A message is its head (line one, the workload's facts, the headline, the question asked back,
the memory chart), the evidence, the recurrence sentence, the recommendations, the candidates,
what was not measured, and its closing (buttons and notes): `ORDER`. The four lists are
`Section`s: what a renderer titles them, how it counts them ("evidence 3 to 9 of 9", "4 more
evidence lines") and their items, which a renderer translates one by one (`Section.map`).
The head's workload facts (`workload_facts`) and whether it asks a question back
(`asked_back`) are decided here too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Generic, TypeVar

from bot.render.plan.lines import LineKind, Plan, PlanLine, everything
from bot.render.wording import OWNER_LABEL
from diagnosis import Outcome, Report, WorkloadRef

__all__ = [
    "LINE_MAX",
    "ORDER",
    "Fact",
    "FactKind",
    "Layout",
    "Section",
    "Slot",
    "arrange",
    "asked_back",
    "evidence_layout",
    "report_layout",
    "workload_facts",
]

T = TypeVar("T")
U = TypeVar("U")
B = TypeVar("B")

LINE_MAX = 1_000  # one evidence/recommendation/... line as shown, bullet and source included.


class Slot(StrEnum):
    """A place in a message; `ORDER` is the order of them all."""

    HEAD = "head"
    EVIDENCE = "evidence"
    RECURRENCE = "recurrence"
    RECOMMENDATIONS = "recommendations"
    CANDIDATES = "candidates"
    NOT_MEASURED = "not measured"
    CLOSING = "closing"


ORDER = tuple(Slot)


@dataclass(frozen=True)
class Section(Generic[T]):
    """One list of a report: its slot, title, nouns (`evidence line(s)`) and items."""

    slot: Slot
    title: str
    more: tuple[str, str]
    items: tuple[T, ...]

    @property
    def noun(self) -> str:
        """What the list is called in a range: `evidence` in "evidence 3 to 9 of 9"."""
        return self.slot.value

    def map(self, translate: Callable[[T], U]) -> Section[U]:
        """The same section with every item translated (into a platform's format)."""
        return Section(self.slot, self.title, self.more, tuple(map(translate, self.items)))


@dataclass(frozen=True)
class Layout:
    """A report's lists: the planned evidence and gaps, recommendations, candidates."""

    evidence: Section[PlanLine]
    recommendations: Section[str]
    candidates: Section[WorkloadRef]
    not_measured: Section[PlanLine]

    def translate(
        self,
        line: Callable[[PlanLine], B],
        recommendation: Callable[[str], B],
        candidate: Callable[[WorkloadRef], B],
    ) -> list[Section[B]]:
        """The lists in `ORDER`, each item translated; `line` writes evidence and gaps."""
        return [
            self.evidence.map(line),
            self.recommendations.map(recommendation),
            self.candidates.map(candidate),
            self.not_measured.map(line),
        ]


def _evidence(lines: Sequence[PlanLine]) -> Section[PlanLine]:
    shown = tuple(line for line in lines if line.kind is not LineKind.GAP)
    return Section(Slot.EVIDENCE, "Evidence", ("evidence line", "evidence lines"), shown)


def _not_measured(lines: Sequence[PlanLine]) -> Section[PlanLine]:
    gaps = tuple(line for line in lines if line.kind is LineKind.GAP)
    return Section(
        Slot.NOT_MEASURED, "Not measured", ("not-measured item", "not-measured items"), gaps
    )


class FactKind(StrEnum):
    """How a fact's value reads: a name as the API wrote it, a word, or free text."""

    NAME = "name"  # a workload, project or cluster name: Slack shows it as code
    WORD = "word"  # the phase: one line
    TEXT = "text"  # who fixes it


@dataclass(frozen=True)
class Fact:
    """One of the workload's facts in the head: its title, (untrusted) value and kind."""

    title: str
    value: str
    kind: FactKind


def workload_facts(report: Report, cluster_name: str | None) -> tuple[Fact, ...]:
    """The head's facts in order: workload, project, cluster, phase, and who fixes it.

    None without a workload. The cluster is its name when one is known, else its ID.
    """
    w = report.workload
    if w is None:
        return ()
    facts = [
        Fact("Workload", w.name, FactKind.NAME),
        Fact("Project", w.project or "unknown", FactKind.NAME),
        Fact("Cluster", cluster_name or w.cluster_id, FactKind.NAME),
        Fact("Phase", w.phase or "unknown", FactKind.WORD),
    ]
    if report.recovery_owner:
        facts.append(Fact(OWNER_LABEL, report.recovery_owner, FactKind.TEXT))
    return tuple(facts)


def asked_back(report: Report) -> str | None:
    """The question the head shows under the headline, or None.

    A `NEEDS_INPUT` report is itself the question: its text is the message, not a line of it.
    """
    return (
        report.question if report.question and report.outcome is not Outcome.NEEDS_INPUT else None
    )


def report_layout(report: Report, planned: Plan) -> Layout:
    """The answer's lists: the planned lines, every recommendation and candidate."""
    return Layout(
        _evidence(planned.lines),
        Section(Slot.RECOMMENDATIONS, "Recommendation", ("recommendation", "recommendations"),
                tuple(report.recommendations)),
        Section(Slot.CANDIDATES, "Candidates", ("candidate", "candidates"),
                tuple(report.candidates)),
        _not_measured(planned.lines),
    )  # fmt: skip


def evidence_layout(report: Report) -> list[Section[PlanLine]]:
    """Show all evidence: every fact and change, then every gap (`lines.everything`)."""
    lines = everything(report)
    return [_evidence(lines), _not_measured(lines)]


def arrange(parts: Mapping[Slot, Sequence[B]]) -> list[B]:
    """A message's parts, by slot, in `ORDER` (a slot left out has nothing to show)."""
    return [item for slot in ORDER for item in parts.get(slot, ())]
