"""The Pending reasons, what a rule returns (`Verdict`), and how its evidence is written."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from diagnosis.moments import utc_text
from diagnosis.pending.evidence import Said
from diagnosis.pending.figures import GPUS, PROJECT, Level, PoolFigures, gpus
from diagnosis.report import EvidenceLine

__all__ = [
    "Doubt",
    "PendingReason",
    "Verdict",
    "cannot_tell",
    "cite_said",
    "in_pool",
    "known",
    "verdict",
]


class PendingReason(StrEnum):
    """Why a workload is Pending: one identifier per row of the precedence table."""

    NOT_WAITING_ON_SCHEDULER = "NOT_WAITING_ON_SCHEDULER"
    QUEUE_MISSING = "QUEUE_MISSING"
    HELD_NOT_READY = "HELD_NOT_READY"
    OVER_LIMIT = "OVER_LIMIT"
    NON_PREEMPTIBLE_OVER_QUOTA = "NON_PREEMPTIBLE_OVER_QUOTA"
    PVC_UNBOUND = "PVC_UNBOUND"
    NODE_CONSTRAINT_MISMATCH = "NODE_CONSTRAINT_MISMATCH"
    REQUEST_EXCEEDS_LARGEST_NODE = "REQUEST_EXCEEDS_LARGEST_NODE"
    GPU_TYPE_OR_FRACTION_UNAVAILABLE = "GPU_TYPE_OR_FRACTION_UNAVAILABLE"
    GANG_MIN_MEMBER_NOT_MET = "GANG_MIN_MEMBER_NOT_MET"
    PREEMPTION_DELAYED = "PREEMPTION_DELAYED"
    PROJECT_OVER_QUOTA = "PROJECT_OVER_QUOTA"
    NODE_POOL_FULL = "NODE_POOL_FULL"
    UNKNOWN = "UNKNOWN"


class Doubt(StrEnum):
    """What read now disagrees with the scheduler's typed statement (flagged, never "fixed")."""

    #: It says non-preemptible, but the workload reads preemptible.
    PREEMPTIBLE = "preemptible"
    #: It says over quota, but the project's figures now leave room for the request.
    QUOTA_NOW_COVERS = "quota_now_covers"


class Verdict(BaseModel):
    """One rule's answer for one node pool.

    Attributes:
        reason: the row that matched.
        pool: the node pool it is about (None: not pool-specific).
        headline: one sentence with the key figures.
        lines: the decisive evidence, cited.
        figures: the pool's figures, the scheduler's numbers in place where it gave them.
        missing: what this verdict could not read (for UNKNOWN: what would decide).
        level, resource: whose quota or limit it is about, and in what (the advice's words).
        doubts: what read now disagrees with the statement it rests on (the advice changes).
        actions: next actions only this verdict knows (which constraint, which claims, whom
            to ask): in place of its row's actions, after its word on waiting (after the
            advice for its doubts, when it has some).
    """

    model_config = ConfigDict(frozen=True)

    reason: PendingReason
    pool: str | None
    headline: str
    lines: tuple[EvidenceLine, ...] = ()
    figures: PoolFigures | None = None
    missing: tuple[str, ...] = ()
    level: Level = PROJECT
    resource: str = GPUS
    doubts: tuple[Doubt, ...] = ()
    actions: tuple[str, ...] = ()


def cite_said(said: Said) -> EvidenceLine:
    """The evidence line quoting one scheduler statement, with when and where."""
    when = f" at {utc_text(said.at)}" if said.at else ""
    origin = said.origin[:1].upper() + said.origin[1:]
    return EvidenceLine(text=f"{origin}{when}: {said.text}", source=said.source)


def verdict(
    reason: PendingReason,
    fig: PoolFigures,
    headline: str,
    *said: Said,
    lines: tuple[EvidenceLine, ...] = (),
    level: Level = PROJECT,
    unit: str = GPUS,
    doubts: tuple[Doubt, ...] = (),
    missing: tuple[str, ...] = (),
) -> Verdict:
    """The verdict citing the scheduler statements `said`, then the other `lines`."""
    cited = tuple(cite_said(s) for n, s in enumerate(said) if s not in said[:n])
    return Verdict(
        reason=reason,
        pool=fig.pool,
        headline=headline,
        lines=cited + lines,
        figures=fig,
        level=level,
        resource=unit,
        doubts=doubts,
        missing=missing,
    )


def in_pool(fig: PoolFigures) -> str:
    """` in node pool default`, or nothing when no pool is named."""
    return f" in node pool {fig.pool}" if fig.pool else ""


def known(*figures: tuple[str, float | None]) -> str:
    """`: limit 8, allocated 6, requested 4` with only the figures that were read."""
    shown = [f"{label} {gpus(value)}" for label, value in figures if value is not None]
    return f": {', '.join(shown)}" if shown else ""


def cannot_tell(fig: PoolFigures, *, decided_by_gaps: bool) -> str:
    """The UNKNOWN headline; what would decide is named in full under Not measured, not here.

    Those gaps are sentences of their own (a taint and where it is, two moments too far
    apart): in the headline they made line one run past two lines of a channel.
    """
    said = f"Why it is waiting{in_pool(fig)} cannot be told from what was read"
    return f"{said}; what would decide it is under Not measured." if decided_by_gaps else f"{said}."
