"""The Pending reasons, what a rule returns (`Verdict`), and how a scheduler statement is cited."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from diagnosis.pending.evidence import Said
from diagnosis.pending.figures import PoolFigures
from diagnosis.report import EvidenceLine

__all__ = ["PendingReason", "Verdict", "cite_said"]


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


class Verdict(BaseModel):
    """One rule's answer for one node pool.

    Attributes:
        reason: the row that matched.
        pool: the node pool it is about (None: not pool-specific).
        headline: one sentence with the key figures.
        lines: the decisive evidence, cited.
        figures: the pool's figures, the scheduler's numbers in place where it gave them.
        missing: what this verdict could not read (for UNKNOWN: what would decide).
    """

    model_config = ConfigDict(frozen=True)

    reason: PendingReason
    pool: str | None
    headline: str
    lines: tuple[EvidenceLine, ...] = ()
    figures: PoolFigures | None = None
    missing: tuple[str, ...] = ()


def cite_said(said: Said) -> EvidenceLine:
    """The evidence line quoting one scheduler statement, with when and where."""
    when = f" at {said.at:%Y-%m-%d %H:%M:%SZ}" if said.at else ""
    origin = said.origin[:1].upper() + said.origin[1:]
    return EvidenceLine(text=f"{origin}{when}: {said.text}", source=said.source)
