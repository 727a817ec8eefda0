"""The collected evidence for one workload: raw upstream objects, extracted signals, gaps.

Collection fills it; classification only reads it. A `None` collection means "could not be
fetched" (and a `Gap` says why), never "there was nothing": an empty tuple is the only way
to say that the upstream answered with nothing.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from diagnosis.lexicon import SignalKind
from diagnosis.report import EvidenceLine
from diagnosis.request import DiagnosisRequest
from diagnosis.runai.models import (
    Event,
    HistoryRecord,
    Measurement,
    Node,
    Pod,
    Workload,
    WorkloadSpec,
)

__all__ = ["Evidence", "Gap", "Signal"]


class Gap(BaseModel):
    """Something that could not be measured, and why (`events unavailable: HTTP 503`)."""

    model_config = ConfigDict(frozen=True)

    source: str
    what: str


class Signal(BaseModel):
    """One named observation, cited and timestamped.

    Attributes:
        kind: what was observed.
        at: when, if the upstream said; None when it did not.
        source: the skill's tool name that returned it (`get_workload_status`, ...).
        origin: where inside that response (`event`, `condition`, `phase message`, `pod`).
        reason: the upstream reason field, when there is one.
        text: the (redacted, shortened) upstream text that carries the signal.
        exit_code: for `EXIT_CODE` signals.
        detail: a sub-cause or object name (pull sub-cause, volume, node, container).
        key: identity used to count one upstream fact once (e.g. the event id).
    """

    model_config = ConfigDict(frozen=True)

    kind: SignalKind
    at: datetime | None
    source: str
    origin: str
    reason: str | None = None
    text: str = ""
    exit_code: int | None = None
    detail: str | None = None
    key: str = ""


class Evidence(BaseModel):
    """Everything known about one workload when classification starts.

    `tier2` says whether Kubernetes access was configured for the cluster (its signals are
    in `signals`, its context lines in `tier2_lines`, its failures in `gaps`), and
    `container_memory` maps a container name to its memory (request, limit, cited source)
    from the Kubernetes pod spec, init containers included.
    """

    model_config = ConfigDict(frozen=True)

    request: DiagnosisRequest
    now: datetime
    cutoff: datetime
    workload: Workload
    events: tuple[Event, ...] | None = None
    spec: WorkloadSpec | None = None
    pods: tuple[Pod, ...] | None = None
    history: tuple[HistoryRecord, ...] | None = None
    metrics: tuple[Measurement, ...] | None = None
    metrics_requested: bool = False
    nodes: tuple[Node, ...] | None = None
    signals: tuple[Signal, ...] = ()
    gaps: tuple[Gap, ...] = ()
    tier2: bool = False
    tier2_lines: tuple[EvidenceLine, ...] = ()
    container_memory: dict[str, tuple[str | None, str | None, str]] = {}

    def of(self, *kinds: SignalKind) -> list[Signal]:
        """Signals of the given kinds, oldest first (undated ones last)."""
        found = [s for s in self.signals if s.kind in kinds]
        return sorted(found, key=lambda s: (s.at is None, s.at or self.now))
