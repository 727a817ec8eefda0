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

__all__ = ["Evidence", "Gap", "Restarts", "Signal"]


class Gap(BaseModel):
    """Something that could not be measured, and why (`events unavailable: HTTP 503`).

    `cause` is the short reason a headline can quote (`HTTP 403`, `a malformed response`).
    """

    model_config = ConfigDict(frozen=True)

    source: str
    what: str
    cause: str = ""


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
        pod: the pod it is about, when the upstream object says (a pod's state, an event
            about a pod, a pod's log); None for the workload, a node or an unnamed pod.
        rank: the distributed rank it is about, when a log line or the pod says.
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
    pod: str | None = None
    rank: int | None = None


class Restarts(BaseModel):
    """One container's terminations as `kubectl describe pod` shows them (for recurrence).

    Attributes:
        pod, container: which container.
        restart_count: `restartCount`; every restart followed one termination.
        last_terminated: it has a `lastState.terminated`: an earlier run whose log is
            `kubectl logs --previous`.
        waiting_or_terminated: the container is not running now, so its latest termination
            (`lastState`, or `state` when it never restarted) has no restart after it yet.
        final: the container is terminated for good (not waiting to restart): its latest
            termination is the workload's, shared with the other pods that ended with it.
        last_finished_at: when the latest termination happened.
        pod_started_at: the pod's `status.startTime`; restarts before it cannot exist.
        key: the prefix of this container's signal keys (`k8s:<pod>:<container>:`).
        source: the citation (`kubectl describe pod, namespace ...`).
    """

    model_config = ConfigDict(frozen=True)

    pod: str
    container: str
    restart_count: int
    waiting_or_terminated: bool
    last_terminated: bool = False
    last_finished_at: datetime | None
    pod_started_at: datetime | None
    key: str
    source: str
    final: bool = False

    @property
    def terminations(self) -> int:
        """How many times the container terminated in this pod."""
        return self.restart_count + (1 if self.waiting_or_terminated else 0)


class Evidence(BaseModel):
    """Everything known about one workload when classification starts.

    `tier2` says whether Kubernetes access was configured for the cluster (its signals are
    in `signals`, its context lines in `tier2_lines`, its failures in `gaps`), and
    `container_memory` maps a container name to its memory (request, limit, cited source)
    from the Kubernetes pod spec, init containers included; `restarts` has each failed
    container's termination count, for recurrence inside a crash loop.
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
    restarts: tuple[Restarts, ...] = ()

    def of(self, *kinds: SignalKind) -> list[Signal]:
        """Signals of the given kinds, oldest first (undated ones last)."""
        found = [s for s in self.signals if s.kind in kinds]
        return sorted(found, key=lambda s: (s.at is None, s.at or self.now))
