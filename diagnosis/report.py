"""The engine's answer: outcome, category, cited evidence, recurrence, next steps.

A `Report` knows nothing about Slack, consoles or JSON layouts; renderers in `bot/` turn it
into console text, Slack's Block Kit or Teams' Adaptive Cards. Every string in it that came
from upstream has already been through redaction, and is still untrusted text to be escaped
by the renderer.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_validator

from diagnosis.evidence_line import EvidenceLine, merge
from diagnosis.report_facts import PendingFacts, PreemptionFacts

__all__ = [
    "REDACTION_MARKER",
    "Category",
    "Change",
    "Changes",
    "EvidenceLine",
    "MemoryFigures",
    "MemorySample",
    "Outcome",
    "Recurrence",
    "Report",
    "WorkloadRef",
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


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


class WorkloadRef(_Model):
    """The workload the report is about, as the control plane described it.

    `kind` is its Run:ai `type` (`Training`, `Workspace`, `Inference`, ...), which decides who
    may read it; None when unknown (none given, or a report stored before it was kept).
    """

    id: str
    name: str
    project: str | None
    cluster_id: str
    phase: str | None
    kind: str | None = None
    namespace: str | None = None
    submitted_at: datetime | None = None
    phase_updated_at: datetime | None = None


class Recurrence(_Model):
    """Distinct failure occurrences of the category within the lookback.

    `count` is None when history could not be read (recurrence not measured).
    """

    count: int | None
    lookback: str
    recurring: bool


class MemorySample(_Model):
    """One measured CPU-memory usage sample."""

    at: datetime
    usage_bytes: int


class MemoryFigures(_Model):
    """CPU-memory figures in bytes of one container; None means not available, never a guess.

    `container` names the container they belong to (the one that was killed) when known;
    `samples` is the measured usage series over the evidence window, oldest first (empty
    when none was measured), from which `peak_bytes` is taken. `killed_at` is when the
    container was OOM-killed, as the newest dated OOMKilled signal says (None when no OOM kill
    was reported with a time).
    """

    request_bytes: int | None
    limit_bytes: int | None
    peak_bytes: int | None
    container: str | None = None
    samples: tuple[MemorySample, ...] = ()
    killed_at: datetime | None = None


class Change(_Model):
    """One difference between the failed submission's spec and the last good one's.

    A `value` change has the good run's value in `before` and the failed one's in `after`
    (as shown, redacted; None when the spec did not say). A `set` change (environment
    variable names, data sources) has what was removed in `before`, what was added in `after`.
    """

    what: str
    before: str | None
    after: str | None
    kind: Literal["value", "set"] = "value"

    def describe(self) -> str:
        """`image: nvcr.io/x:1 → nvcr.io/x:2`, or `environment variables: added HF_HOME`."""
        if self.kind == "set":
            parts = [f"added {self.after}"] if self.after else []
            parts += [f"removed {self.before}"] if self.before else []
            return f"{self.what}: {'; '.join(parts)}"
        return f"{self.what}: {self.before or 'not set'} → {self.after or 'not set'}"


class Changes(_Model):
    """What changed since the last good run of the same workload name in the same project.

    Attributes:
        since_id, since_name: the earlier submission compared with (the asker may read it).
        since_at: when it ended (or last changed phase); since_phase: how it ended.
        items: the differences, in a fixed order (image, command, resources, ...); empty
            when the two specs agree on everything compared.
        source: where both specs were read.
        since_cluster_id, since_project, since_kind: what an access check needs about the
            earlier submission (its kind may differ from the failed one's), to show the
            comparison to someone else (`diagnosis.for_viewer`); None when not known.
    """

    since_id: str
    since_name: str
    since_at: datetime | None = None
    since_phase: str | None = None
    items: tuple[Change, ...] = ()
    source: str = "get_workload_spec"
    since_cluster_id: str | None = None
    since_project: str | None = None
    since_kind: str | None = None

    def summary(self) -> str:
        """`Changed since llm-ft on 2025-11-03 (Succeeded): image, CPU-memory limit`."""
        when = f" on {self.since_at:%Y-%m-%d}" if self.since_at else ""
        how = f" ({self.since_phase})" if self.since_phase else ""
        what = ", ".join(dict.fromkeys(c.what for c in self.items)) or "nothing compared differs"
        return f"Changed since {self.since_name}{when}{how}: {what}"


#: Every redaction leaves one of these in the text it masked (see `diagnosis.redact`).
REDACTION_MARKER = "[REDACTED:"


class Report(_Model):
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
    """

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
