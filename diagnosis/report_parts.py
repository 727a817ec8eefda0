"""What a `Report` carries about its workload: the reference, recurrence, memory, changes.

Each is a frozen value the engine fills and `bot/` renders; `diagnosis.report` holds the
`Report` itself, its outcomes and categories, and its JSON.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

from diagnosis.moments import utc_text

__all__ = [
    "Change",
    "Changes",
    "MemoryFigures",
    "MemorySample",
    "Recurrence",
    "WorkloadRef",
]


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

    `configured_read` says whether the container's configured request and limit were read
    (from the pod spec, the Run:ai spec, its pods or the workload record): only then is a
    None `request_bytes` or `limit_bytes` "not set"; otherwise it was not read, and what it
    is stays unknown. `container` names the container they belong to (the one that was
    killed) when known; `samples` is the measured usage series over the evidence window,
    oldest first (empty when none was measured), from which `peak_bytes` is taken.
    `killed_at` is when the container was OOM-killed, as the newest dated OOMKilled signal
    says (None when no OOM kill was reported with a time).
    """

    request_bytes: int | None
    limit_bytes: int | None
    peak_bytes: int | None
    container: str | None = None
    samples: tuple[MemorySample, ...] = ()
    killed_at: datetime | None = None
    configured_read: bool = False


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
        when = f" on {utc_text(self.since_at, '%Y-%m-%d')}" if self.since_at else ""
        how = f" ({self.since_phase})" if self.since_phase else ""
        what = ", ".join(dict.fromkeys(c.what for c in self.items)) or "nothing compared differs"
        return f"Changed since {self.since_name}{when}{how}: {what}"
