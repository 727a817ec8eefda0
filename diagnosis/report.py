"""The engine's answer: outcome, category, cited evidence, recurrence, next steps.

A `Report` knows nothing about Slack, consoles or JSON layouts; renderers in `bot/` turn it
into console text, Slack's Block Kit or Teams' Adaptive Cards. Every string in it that came
from upstream has already been through redaction, and is still untrusted text to be escaped
by the renderer.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

from diagnosis.evidence_line import EvidenceLine, merge
from diagnosis.report_facts import PendingFacts, PreemptionFacts
from diagnosis.report_parts import Changes, MemoryFigures, Recurrence, WorkloadRef

__all__ = [
    "REDACTION_MARKER",
    "Category",
    "EvidenceLine",
    "Outcome",
    "Report",
    "WithoutDepartment",
    "count_redactions",
]


class Outcome(StrEnum):
    """How the diagnosis ended. Only `diagnosed` carries a failure category."""

    DIAGNOSED = "diagnosed"
    SUCCEEDED = "succeeded"
    PREEMPTED = "preempted"
    PENDING_SCHEDULING = "pending_scheduling"
    SUSPENDED = "suspended"
    RUNNING_NO_FAILURE = "running_no_failure"
    NOT_TERMINAL = "not_terminal"
    CLUSTER_MISMATCH = "cluster_mismatch"
    NEEDS_INPUT = "needs_input"
    NOT_FOUND = "not_found"


class Category(StrEnum):
    """The skill's root-cause taxonomy. `PREEMPTED` is deliberately not a category."""

    CRASH_APP_ERROR = "CRASH_APP_ERROR"
    OOM_KILLED = "OOM_KILLED"
    IMAGE_PULL_FAILED = "IMAGE_PULL_FAILED"
    INIT_FAILED = "INIT_FAILED"
    DATASOURCE_MOUNT_FAILED = "DATASOURCE_MOUNT_FAILED"
    NODE_FAILURE = "NODE_FAILURE"
    SCHEDULING_POLICY_TERMINATED = "SCHEDULING_POLICY_TERMINATED"
    UNKNOWN = "UNKNOWN"


#: Every redaction leaves one of these in the text it masked (see `diagnosis.redact`).
REDACTION_MARKER = "[REDACTED:"


class Report(BaseModel):
    """The result of one diagnosis.

    Attributes:
        outcome: how the diagnosis ended.
        category: the failure category when `outcome` is `diagnosed`, else None.
        workload: the resolved workload, or None when none was resolved.
        headline: one sentence a human reads first (already redacted).
        evidence: cited observations, strongest first.
        recurrence: occurrences of the category within the lookback.
        memory: request/limit/peak of the killed container when memory was relevant.
        recommendations: next actions, most useful first.
        missing: what could not be measured or fetched (gaps), stated explicitly.
        question: what to ask the user when `outcome` is `needs_input`.
        candidates: workloads to choose from when the name was ambiguous.
        redactions: how many sensitive values were masked in this report. Derived from the
            report's own text (one per redaction marker) unless given explicitly.
        recovery_owner: who normally fixes it; follows the sub-cause (an image-pull DNS
            failure is SRE's, not "registry credentials"). The composer sets it, from the
            category's registry row (`diagnosis.rules.registry`).
        subcause: IMAGE_PULL_FAILED: why the pull failed (`not-found`, `network`, ...).
        policy: SCHEDULING_POLICY_TERMINATED: the policy that stopped it (`idle-timeout`, ...).
        details: every typed detail of the finding (container, exit code, node, volume, ...),
            as plain values; empty when there is no finding.
        pending: `pending_scheduling`: the Pending reason and its figures.
        preemption: `preempted`: the preemption kind, the preemptor and its fairness.
        deciding_missing: the gaps that matter to the verdict (a subset of `missing`): what
            the answer must say was not measured.
        changes: what changed since the last good run the asker may read, when there was one.
        without_department: the same answer without the department's quota and usage it
            read, for anyone it is shown to who may not read that department
            (`diagnosis.pending.visibility`); None when it read no department.
        without_preemptor: the same answer for anyone who may not read the preemptor: nothing
            in it follows from the preemptor's workload (`diagnosis.preemption.visibility`);
            None when it would say the same.
    """

    model_config = ConfigDict(frozen=True)

    outcome: Outcome
    category: Category | None = None
    workload: WorkloadRef | None = None
    headline: str = ""
    evidence: tuple[EvidenceLine, ...] = ()
    recurrence: Recurrence | None = None
    memory: MemoryFigures | None = None
    recommendations: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    question: str | None = None
    candidates: tuple[WorkloadRef, ...] = ()
    redactions: int = 0
    recovery_owner: str | None = None
    subcause: str | None = None
    policy: str | None = None
    details: dict[str, str | int | bool] = {}
    pending: PendingFacts | None = None
    preemption: PreemptionFacts | None = None
    deciding_missing: tuple[str, ...] = ()
    changes: Changes | None = None
    without_department: WithoutDepartment | None = None
    without_preemptor: Report | None = None

    @model_validator(mode="after")
    def _derived(self) -> Report:
        """Fill what follows from the rest: the redaction count."""
        if "redactions" not in self.model_fields_set:
            object.__setattr__(self, "redactions", count_redactions(self))
        return self

    def facts(self) -> tuple[EvidenceLine, ...]:
        """The evidence as people read it: one line per fact, with all its sources."""
        return merge(self.evidence)

    def deciding(self) -> tuple[EvidenceLine, ...]:
        """The facts that decide the verdict, in order (the direct signal, the quantities).

        A report that marks none (an outcome, not a diagnosis) is decided by all its facts.
        """
        facts = self.facts()
        return tuple(f for f in facts if f.deciding) or facts

    def to_json_dict(self, lookback: str) -> dict[str, Any]:
        """The stable JSON contract of `runai-why diagnose --json`.

        Keys are only ever added; an existing key keeps its meaning.
        """
        recurrence = self.recurrence or Recurrence(count=None, lookback=lookback, recurring=False)
        return {
            "outcome": self.outcome.value,
            "category": self.category.value if self.category else None,
            "headline": self.headline,
            "recovery_owner": self.recovery_owner,
            "subcause": self.subcause,
            "policy": self.policy,
            "workload": (
                {
                    "id": self.workload.id,
                    "name": self.workload.name,
                    "project": self.workload.project,
                    "cluster_id": self.workload.cluster_id,
                    "phase": self.workload.phase,
                    "namespace": self.workload.namespace,
                    "kind": self.workload.kind,
                }
                if self.workload
                else None
            ),
            "evidence": [_line(e) for e in self.evidence],
            "facts": [_line(f) for f in self.facts()],
            "recurrence": recurrence.model_dump(),
            "memory": self.memory.model_dump(mode="json") if self.memory else None,
            "recommendations": list(self.recommendations),
            "missing": list(self.missing),
            "question": self.question,
            "candidates": [
                {"id": c.id, "name": c.name, "project": c.project, "phase": c.phase, "kind": c.kind}
                for c in self.candidates
            ],
            "details": dict(self.details),
            "redactions": self.redactions,
            "pending": self.pending.to_json() if self.pending else None,
            "preemption": self.preemption.to_json() if self.preemption else None,
            "missing_deciding": list(self.deciding_missing),
            "changes": self.changes.model_dump(mode="json") if self.changes else None,
        }


class WithoutDepartment(BaseModel):
    """An answer as someone who may not read the department whose figures it shows sees it."""

    model_config = ConfigDict(frozen=True)

    cluster_id: str
    department_id: str
    report: Report


Report.model_rebuild()


def _line(line: EvidenceLine) -> dict[str, Any]:
    """An evidence line in `--json`: its text, every source, and whether it decides."""
    return {
        "text": line.text,
        "source": line.source,
        "sources": list(line.sources),
        "deciding": line.deciding,
        "pod": line.pod,
        "rank": line.rank,
    }


def _texts(report: Report) -> list[str]:
    """Every string of a report that can quote upstream text."""
    texts = [report.headline, *(e.text for e in report.evidence), *report.recommendations]
    if report.changes is not None:
        texts += [t for c in report.changes.items for t in (c.before or "", c.after or "")]
    texts += [*report.missing, report.question or ""]
    for ref in (report.workload, *report.candidates):
        if ref is not None:
            texts += [ref.name, ref.project or "", ref.phase or ""]
    return texts


def count_redactions(report: Report) -> int:
    """How many sensitive values the report masks: one marker per redaction, anywhere in it.

    A text the report carries twice (a question that is also the headline) counts once.
    """
    return sum(text.count(REDACTION_MARKER) for text in dict.fromkeys(_texts(report)))
