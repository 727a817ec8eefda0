"""The engine's answer: outcome, category, cited evidence, recurrence, next steps.

A `Report` knows nothing about Slack, consoles or JSON layouts; renderers in `bot/` turn it
into text or Block Kit. Every string in it that came from upstream has already been through
redaction, and is still untrusted text to be escaped by the renderer.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = [
    "Category",
    "EvidenceLine",
    "MemoryFigures",
    "MemorySample",
    "Outcome",
    "Recurrence",
    "Report",
    "WorkloadRef",
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
    """The seed's root-cause taxonomy. `PREEMPTED` is deliberately not a category."""

    CRASH_APP_ERROR = "CRASH_APP_ERROR"
    OOM_KILLED = "OOM_KILLED"
    IMAGE_PULL_FAILED = "IMAGE_PULL_FAILED"
    INIT_FAILED = "INIT_FAILED"
    DATASOURCE_MOUNT_FAILED = "DATASOURCE_MOUNT_FAILED"
    NODE_FAILURE = "NODE_FAILURE"
    SCHEDULING_POLICY_TERMINATED = "SCHEDULING_POLICY_TERMINATED"
    UNKNOWN = "UNKNOWN"


#: Who normally fixes each category (the seed's "Recovery owner" column).
RECOVERY_OWNER: dict[Category, str] = {
    Category.CRASH_APP_ERROR: "User: fix code or configuration",
    Category.OOM_KILLED: "User: raise memory; administrator: node memory",
    Category.IMAGE_PULL_FAILED: "User: image/tag; administrator: registry credentials",
    Category.INIT_FAILED: "User: fix the init script",
    Category.DATASOURCE_MOUNT_FAILED: "Storage administrator",
    Category.NODE_FAILURE: "Infrastructure/SRE",
    Category.SCHEDULING_POLICY_TERMINATED: "User: account for the policy",
    Category.UNKNOWN: "Undetermined",
}


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


class WorkloadRef(_Model):
    """The workload the report is about, as the control plane described it."""

    id: str
    name: str
    project: str | None
    cluster_id: str
    phase: str | None
    namespace: str | None = None
    submitted_at: datetime | None = None
    phase_updated_at: datetime | None = None


class EvidenceLine(_Model):
    """One quantified, cited observation. `source` is the seed's tool name."""

    text: str
    source: str


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
    bytes: int


class MemoryFigures(_Model):
    """CPU-memory figures in bytes; None means not available, never a guess.

    `series` is the measured usage over the evidence window, oldest first (at each instant
    the highest of the workload's series); empty when nothing with a timestamp was measured.
    """

    request_bytes: int | None
    limit_bytes: int | None
    peak_bytes: int | None
    series: tuple[MemorySample, ...] = ()


class Report(_Model):
    """The result of one diagnosis.

    Attributes:
        outcome: how the diagnosis ended.
        category: the failure category when `outcome` is `diagnosed`, else None.
        workload: the resolved workload, or None when none was resolved.
        headline: one sentence a human reads first (already redacted).
        evidence: cited observations, strongest first.
        recurrence: occurrences of the category within the lookback.
        memory: request/limit/peak when memory was relevant.
        recommendations: next actions, most useful first.
        missing: what could not be measured or fetched (gaps), stated explicitly.
        question: what to ask the user when `outcome` is `needs_input`.
        candidates: workloads to choose from when the name was ambiguous.
        redactions: how many sensitive values were masked in this report.
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

    @property
    def recovery_owner(self) -> str | None:
        """Who normally fixes this category, or None when there is no category."""
        return RECOVERY_OWNER[self.category] if self.category else None

    def to_json_dict(self, lookback: str) -> dict[str, Any]:
        """The stable JSON contract of `runai-why diagnose --json`."""
        recurrence = self.recurrence or Recurrence(count=None, lookback=lookback, recurring=False)
        return {
            "outcome": self.outcome.value,
            "category": self.category.value if self.category else None,
            "workload": (
                {
                    "id": self.workload.id,
                    "name": self.workload.name,
                    "project": self.workload.project,
                    "cluster_id": self.workload.cluster_id,
                    "phase": self.workload.phase,
                }
                if self.workload
                else None
            ),
            "evidence": [{"text": e.text, "source": e.source} for e in self.evidence],
            "recurrence": recurrence.model_dump(),
            "memory": self.memory.model_dump(exclude={"series"}) if self.memory else None,
            "recommendations": list(self.recommendations),
            "missing": list(self.missing),
            "question": self.question,
        }
