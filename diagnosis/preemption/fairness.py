"""Was it fair: the victim's quota position at the time, broken protections, and recurrence.

The quota position comes from the scheduler's own reclaim line (the victim queue's use and
quota when it decided), else from the project's quota and allocation metrics sampled around
the eviction in the one node pool it ran in (quotas are per pool: metrics for no named pool
would be a sum over pools, and judge nothing); never from today's status. A protection that
should have applied and did not (a non-preemptible victim, a guaranteed runtime not yet over)
is flagged, not explained away.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from diagnosis.lexicon import SignalKind
from diagnosis.moments import utc_text
from diagnosis.pending.figures import gpus
from diagnosis.preemption.evidence import PreemptionEvidence
from diagnosis.preemption.kinds import KindVerdict
from diagnosis.preemption.texts import PreemptionKind
from diagnosis.report import EvidenceLine
from diagnosis.runai.models import Measurement

__all__ = ["METRICS_WINDOW", "count", "over_quota", "protection"]

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


def over_quota(
    ev: PreemptionEvidence, verdict: KindVerdict
) -> tuple[bool | None, EvidenceLine | None]:
    """Whether the victim's project was over its quota when evicted, and the line saying so."""
    said = verdict.eviction.said if verdict.eviction else None
    if said is not None and said.queues:
        line = said.queues[0]
        if line.uses is not None and line.quota is not None:
            text = (
                f"At the eviction the scheduler saw queue {line.queue} using {gpus(line.uses)} "
                f"GPUs with a quota of {gpus(line.quota)} (fair share {gpus(line.fair_share)})"
            )
            source = verdict.eviction.source if verdict.eviction else "get_workload_status"
            return line.uses > line.quota, EvidenceLine(text=text, source=source)
    at = ev.at
    if at is None or not ev.metrics or ev.metrics_pool is None:
        return None, None
    series = {m.type: m for m in ev.metrics}
    quota = _sample(series.get("GPU_QUOTA"), at)
    used = _sample(series.get("GPU_ALLOCATION"), at)
    if quota is None or used is None:
        return None, None
    text = (
        f"Project {ev.workload.project_name} in node pool {ev.metrics_pool}: allocation was "
        f"{gpus(used[0])} GPUs vs quota {gpus(quota[0])} around {utc_text(at, '%H:%MZ')} "
        f"(samples at {utc_text(used[1], '%H:%MZ')})"
    )
    return used[0] > quota[0], EvidenceLine(text=text, source="get_project_metrics")


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
        broken.append(
            f"its guaranteed runtime ran until {utc_text(ends, '%Y-%m-%d %H:%MZ')}{caveat}"
        )
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
