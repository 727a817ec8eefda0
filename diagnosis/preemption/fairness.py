"""Was it fair: the victim's quota position at the time, broken protections, and recurrence.

The quota position comes from the scheduler's own reclaim line (the victim queue's use and
quota when it decided), else from the project's quota and allocation metrics sampled around
the eviction in the one node pool it ran in (quotas are per pool: metrics for no named pool
would be a sum over pools, and judge nothing); never from today's status. The reclaim line
names the victim's department's queue instead of its project's when the two workloads'
projects have different departments: that is the department's position, and the project's
own stays unknown. Whether those departments differ is the preemptor's to tell, so a queue
named as neither is judged by it only for whoever may read the preemptor (`seen`). A
protection that should have applied and did not (a non-preemptible victim, a guaranteed
runtime not yet over) is flagged, not explained away.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from diagnosis.lexicon import SignalKind
from diagnosis.moments import utc_text
from diagnosis.pending.figures import DEPARTMENT, PROJECT, Level, gpus
from diagnosis.preemption.evidence import PreemptionEvidence
from diagnosis.preemption.kinds import KindVerdict
from diagnosis.preemption.texts import PreemptionKind, QueueLine
from diagnosis.report import EvidenceLine
from diagnosis.runai.models import Measurement

__all__ = [
    "METRICS_WINDOW",
    "QuotaPosition",
    "count",
    "names",
    "protection",
    "queue_level",
    "quota_position",
]

#: Metric samples this close to the eviction describe "the time of the eviction".
METRICS_WINDOW = timedelta(minutes=15)
_GUARDED = frozenset({PreemptionKind.PRIORITY_PREEMPTION, PreemptionKind.RECLAIM_FAIR_SHARE})


def _sample(series: Measurement | None, at: datetime) -> tuple[float, datetime] | None:
    """The newest sample at or before `at`, within the window."""
    best: tuple[float, datetime] | None = None
    for point in series.values if series else ():
        when = point.timestamp
        if when is None or when > at or at - when > METRICS_WINDOW:
            continue
        try:
            value = float(point.value)
        except ValueError:
            continue
        if best is None or when > best[1]:
            best = (value, when)
    return best


@dataclass(frozen=True)
class QuotaPosition:
    """Whose quota position at the eviction, over it or not, and the line that says so.

    `level` is the project's or its department's, None when the scheduler's queue is neither
    recognisably; `over` is that queue's position (None: not known); `queue` the reclaim
    line's victim queue it was read from (None: from metrics, or not known).
    """

    over: bool | None = None
    level: Level | None = None
    line: EvidenceLine | None = None
    queue: QueueLine | None = None

    @property
    def project(self) -> bool | None:
        """Whether the victim's project itself was over its quota (None: not known)."""
        return self.over if self.level == PROJECT else None


def names(queue: str, unit: str | None, pools: set[str]) -> bool:
    """Whether `queue` is `unit`'s queue: its name, or its name with a node pool's suffix."""
    return bool(unit) and (queue == unit or any(queue == f"{unit}-{pool}" for pool in pools))


def queue_level(ev: PreemptionEvidence, line: QueueLine, *, seen: bool) -> Level | None:
    """Whose queue a reclaim line's victim queue is: the project's or its department's.

    By its name (the project's, or the department's); else by structure: the scheduler gives
    the parent queues when the two projects have different parents (departments). The
    preemptor's department is the preemptor's: structure tells only an answer for whoever
    may read it (`seen`), never anyone else, who would learn from the words whether the two
    departments differ. None when neither tells.
    """
    w = ev.workload
    pools = {*w.current_node_pools, *w.requested_node_pools, *filter(None, [ev.metrics_pool])}
    project = names(line.queue, w.project_name, pools)
    department = names(line.queue, w.department_name, pools)
    if project != department:
        return PROJECT if project else DEPARTMENT
    if not seen:
        return None
    theirs = ev.preemptor_workload.department_id if ev.preemptor_workload else None
    if not (w.department_id and theirs):
        return None
    return DEPARTMENT if theirs != w.department_id else PROJECT


def _whose(level: Level | None, queue: str) -> str:
    if level == DEPARTMENT:
        return f"this workload's department's queue {queue}"
    if level == PROJECT:
        return f"queue {queue}"
    return f"queue {queue} (whether its project's or its department's is not known)"


def quota_position(ev: PreemptionEvidence, verdict: KindVerdict, *, seen: bool) -> QuotaPosition:
    """Whose quota position the evidence gives at the eviction, and whether it was over it.

    `seen`: for whoever may read the preemptor (`queue_level`).
    """
    said = verdict.eviction.said if verdict.eviction else None
    if said is not None and said.queues:
        line = said.queues[0]
        if line.uses is not None and line.quota is not None:
            level = queue_level(ev, line, seen=seen)
            text = (
                f"At the eviction the scheduler saw {_whose(level, line.queue)} using "
                f"{gpus(line.uses)} GPUs with a quota of {gpus(line.quota)} "
                f"(fair share {gpus(line.fair_share)})"
            )
            source = verdict.eviction.source if verdict.eviction else "get_workload_status"
            cited = EvidenceLine(text=text, source=source)
            return QuotaPosition(over=line.uses > line.quota, level=level, line=cited, queue=line)
    at = ev.at
    if at is None or not ev.metrics or ev.metrics_pool is None:
        return QuotaPosition()
    series = {m.type: m for m in ev.metrics}
    quota = _sample(series.get("GPU_QUOTA"), at)
    used = _sample(series.get("GPU_ALLOCATION"), at)
    if quota is None or used is None:
        return QuotaPosition()
    text = (
        f"Project {ev.workload.project_name} in node pool {ev.metrics_pool}: allocation was "
        f"{gpus(used[0])} GPUs vs quota {gpus(quota[0])} around {utc_text(at)} "
        f"(samples at {utc_text(used[1])})"
    )
    cited = EvidenceLine(text=text, source="get_project_metrics")
    return QuotaPosition(over=used[0] > quota[0], level=PROJECT, line=cited)


def protection(ev: PreemptionEvidence, kind: PreemptionKind) -> tuple[bool | None, list[str]]:
    """Whether a protection in force was broken by this eviction, and which."""
    if kind not in _GUARDED:
        return (None if kind is PreemptionKind.UNKNOWN else False), []
    w = ev.workload
    broken: list[str] = []
    movable = ev.victim_preemptibility
    if movable.preemptible is False:
        broken.append(f"it was non-preemptible ({movable.why})")
    ends = w.guaranteed_runtime_ends_at
    if ends is not None and ev.at is not None and ev.at < ends:
        caveat = (
            " (whether it also shields from reclaim is unconfirmed)"
            if kind is PreemptionKind.RECLAIM_FAIR_SHARE
            else ""
        )
        broken.append(f"its guaranteed runtime ran until {utc_text(ends)}{caveat}")
    if broken:
        return True, broken
    return (None if movable.preemptible is None else False), []


def count(ev: PreemptionEvidence) -> int | None:
    """Distinct evictions in the lookback (2 minutes apart at least); None without history."""
    if ev.history is None:
        return None
    moments = sorted(
        s.at for s in ev.signals if s.kind is SignalKind.PREEMPTED and s.at and s.at >= ev.cutoff
    )
    moments += sorted(e.at for e in ev.evictions if e.at and e.at >= ev.cutoff)
    moments.sort()
    distinct: list[datetime] = []
    for moment in moments:
        if not distinct or moment - distinct[-1] > timedelta(minutes=2):
            distinct.append(moment)
    return max(len(distinct), 1)
