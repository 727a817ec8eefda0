"""A distributed workload is one workload: the pod that failed first holds the cause.

When one rank dies, the others fail after it: their collectives time out, their peers close
the connection, the launcher stops them. Those exits are consequences. So when two or more
pods of the run being diagnosed failed, their failures are ordered by time (a pod's
failure starts at its own first failure signal, or when its node went down, whichever is
earlier) and the rules look only at the first pod's evidence and at what is about the whole
workload or that pod's node; the finding then names the pod and its rank, and says which
pods failed after it and how long after.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from diagnosis.evidence import Evidence, Signal
from diagnosis.exitcodes import describe_exit_code
from diagnosis.lexicon import SignalKind
from diagnosis.report import EvidenceLine

__all__ = ["FirstFailure", "after", "first_failure"]

#: A pod's own failure: its containers ended, could not start, or it was evicted.
_FAILED = frozenset(
    {
        SignalKind.OOM_KILLED,
        SignalKind.EXIT_CODE,
        SignalKind.INIT_FAILED,
        SignalKind.START_ERROR,
        SignalKind.POD_ERROR,
        SignalKind.IMAGE_PULL,
        SignalKind.MOUNT_FAILED,
        SignalKind.NODE_NOT_READY,
        SignalKind.NODE_EVICTION,
    }
)
#: What only a pod can say; when no pod is named, it is dropped from the first pod's view.
_POD_ONLY = frozenset(
    {
        SignalKind.OOM_KILLED,
        SignalKind.EXIT_CODE,
        SignalKind.INIT_FAILED,
        SignalKind.START_ERROR,
        SignalKind.POD_ERROR,
        SignalKind.CRASHLOOP,
        SignalKind.LOG_ERROR,
        SignalKind.COLLECTIVE,
    }
)
_NODE_DOWN = frozenset({SignalKind.NODE_NOT_READY, SignalKind.NODE_EVICTION})
#: How a consequence is summarised, strongest first.
_SUMMARY_ORDER = (
    SignalKind.OOM_KILLED,
    SignalKind.COLLECTIVE,
    SignalKind.START_ERROR,
    SignalKind.NODE_NOT_READY,
    SignalKind.NODE_EVICTION,
    SignalKind.LOG_ERROR,
    SignalKind.EXIT_CODE,
    SignalKind.POD_ERROR,
)


@dataclass(frozen=True)
class _PodFailure:
    pod: str
    at: datetime
    signals: tuple[Signal, ...]
    source: str  # where its start was read

    @property
    def rank(self) -> int | None:
        """The pod's rank, as its log lines or its environment give it."""
        ranks = [s.rank for s in self.signals if s.rank is not None]
        return ranks[0] if ranks else None


@dataclass(frozen=True)
class FirstFailure:
    """The pod that failed first, the evidence the rules may see, and the pods after it."""

    evidence: Evidence
    first: _PodFailure
    later: tuple[_PodFailure, ...]

    def headline(self) -> str:
        """What the headline adds: which pod (and rank) failed first.

        How many failed after it, and when, is its evidence line (`summary`): line one stays
        short.
        """
        return f" First to fail: {self.first.pod}{_rank(self.first.rank)}."

    def summary(self) -> EvidenceLine:
        """The line saying that the others failed after it, and how long after."""
        noun = "pod" if len(self.later) == 1 else "pods"
        span = sorted(f.at - self.first.at for f in self.later)
        when = after(span[0]) if span[0] == span[-1] else f"{after(span[0])} to {after(span[-1])}"
        theirs = (
            "its exit is a consequence" if len(self.later) == 1 else "their exits are consequences"
        )
        return EvidenceLine(
            text=f"{len(self.later)} other {noun} failed after it, {when} later: {theirs} "
            f"of pod {self.first.pod}'s failure",
            source=self.first.source,
            sources=(self.first.source, *(self._worst(f).source for f in self.later)),
            pod=self.first.pod,
            rank=self.first.rank,
        )

    def consequences(self) -> list[EvidenceLine]:
        """One line per pod that failed after the first: when, and how it ended."""
        return [self._consequence(f, self._worst(f)) for f in self.later]

    @staticmethod
    def _worst(failure: _PodFailure) -> Signal:
        """The signal that says best how a later pod failed."""
        return min(
            failure.signals,
            key=lambda s: _SUMMARY_ORDER.index(s.kind) if s.kind in _SUMMARY_ORDER else 99,
        )

    def _consequence(self, failure: _PodFailure, best: Signal) -> EvidenceLine:
        what = best.text
        if best.kind is SignalKind.EXIT_CODE and best.exit_code is not None:
            what = f"exit code {describe_exit_code(best.exit_code)}"
        later = after(failure.at - self.first.at)
        return EvidenceLine(
            text=f"Pod {failure.pod}{_rank(failure.rank)} failed {later} after it: {what}",
            source=best.source,
            pod=failure.pod,
            rank=failure.rank,
        )


def _rank(rank: int | None) -> str:
    return f" (rank {rank})" if rank is not None else ""


def after(delta: timedelta) -> str:
    """`4 s`, `10 min`, `10 min 2 s`, `1 h 5 min`: how long after, as people say it."""
    seconds = max(0, int(delta.total_seconds()))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    if minutes:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    return f"{secs} s"


def _failed(signal: Signal) -> bool:
    if signal.kind is SignalKind.EXIT_CODE:
        return bool(signal.exit_code)  # a clean exit is no failure
    return signal.kind in _FAILED


def _failures(ev: Evidence) -> list[_PodFailure]:
    """Each pod that failed, when its failure started (its own signal or its node going down)."""
    nodes = {p.name: p.node_name for p in ev.pods or () if p.node_name}
    down: dict[str, datetime] = {}
    down_source: dict[str, str] = {}
    for s in ev.of(*_NODE_DOWN):  # oldest first: the first time each node was seen down
        if s.pod is None and s.detail and s.at is not None and s.detail not in down:
            down[s.detail], down_source[s.detail] = s.at, s.source
    failures = []
    for pod in dict.fromkeys(s.pod for s in ev.signals if s.pod is not None):
        own = tuple(s for s in ev.signals if s.pod == pod)
        dated = sorted((s.at, s.source) for s in own if _failed(s) and s.at is not None)
        if not dated:
            continue
        start, source = dated[0]
        node_down = down.get(nodes.get(pod, ""))
        if node_down is not None and node_down < start:
            start, source = node_down, down_source[nodes[pod]]
        failures.append(_PodFailure(pod, start, own, source))
    return sorted(failures, key=lambda f: (f.at, f.pod))


def first_failure(ev: Evidence) -> FirstFailure | None:
    """The first pod's view of the evidence when two or more pods failed, else None.

    It keeps the first pod's own signals, and the signals about no pod (the workload's
    policy, preemption, nodes) except pod-level kinds that name no pod (a phase message's
    exit code could be any rank's) and node signals about another pod's node.
    """
    failures = _failures(ev)
    if len(failures) < 2:  # noqa: PLR2004 - one pod is not a distributed case
        return None
    first, *later = failures
    node = next((p.node_name for p in ev.pods or () if p.name == first.pod), None)
    kept = tuple(
        s
        for s in ev.signals
        if s.pod == first.pod
        or (
            s.pod is None
            and s.kind not in _POD_ONLY
            and (s.kind not in _NODE_DOWN or s.detail in {None, node})
        )
    )
    return FirstFailure(ev.model_copy(update={"signals": kept}), first, tuple(later))
