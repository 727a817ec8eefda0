"""The Pending report: one reason on line one, its figures cited, the next action, the gaps."""

from __future__ import annotations

from datetime import timedelta

from diagnosis.kube.collect import namespace_for
from diagnosis.lexicon import SignalKind
from diagnosis.moments import utc_text
from diagnosis.pending.evidence import PendingEvidence
from diagnosis.pending.figures import PoolFigures, gpu_count, gpu_noun, gpus, pool_figures
from diagnosis.pending.table import advice_across, owner
from diagnosis.pending.verdict import PendingReason, Verdict
from diagnosis.report import EvidenceLine, Outcome, Report
from diagnosis.report_facts import PendingFacts
from diagnosis.resolve import workload_ref
from diagnosis.rules.base import cite_eviction

__all__ = ["TIER2_PENDING_MISSING", "compose_pending", "waited"]

TIER2_PENDING_MISSING = (
    "the PodGroup's scheduling conditions, its Queue and the pods' scheduling conditions "
    "(Kubernetes Tier 2 access is not configured for this cluster)"
)
_SCHEDULER = ("get_workload_status", "get_workload_history")
GET_PROJECT = "get_project"
#: The project's figures in a pool, and how the evidence names each.
_LABELS = {
    "deserved": "deserved",
    "limit": "limit",
    "allocated": "allocated",
    "allocated_np": "non-preemptible allocated",
}
_PROJECT_FIGURES = tuple(_LABELS)


def waited(delta: timedelta) -> str:
    """A wait as people say it: `45s`, `39m`, `2h05m`, `3d4h`."""
    seconds = max(0, int(delta.total_seconds()))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    if days:
        return f"{days}d{hours}h" if hours else f"{days}d"
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m" if minutes else f"{seconds}s"


def _figure_lines(ev: PendingEvidence, fig: PoolFigures) -> list[EvidenceLine]:
    lines: list[EvidenceLine] = []
    src = fig.sources
    if fig.requested is not None and src.get("requested") in _SCHEDULER:
        each = f" ({gpus(fig.per_pod)} per pod)" if fig.per_pod not in {None, fig.requested} else ""
        lines.append(
            EvidenceLine(
                text=f"Requested: {gpu_count(fig.requested)}{each}", source=src["requested"]
            )
        )
    project = _project_line(ev, fig)
    if project is not None:
        lines.append(project)
    if fig.pool and (fig.free is not None or fig.total is not None):
        at = f" at {utc_text(fig.capacity_at)}" if fig.capacity_at else ""
        lines.append(
            EvidenceLine(
                text=f"Node pool {fig.pool}: {gpus(fig.free)} of {gpu_count(fig.total)} free{at}",
                source="get_node_telemetry",
            )
        )
    return lines


def _project_line(ev: PendingEvidence, fig: PoolFigures) -> EvidenceLine | None:
    """The project's quota and usage in the pool, as `get_project` gave them.

    Always get_project's own figures, never the scheduler's numbers under this citation:
    where the verdict used the scheduler's (quoted above) and they differ, both are shown,
    so a statement older than a quota change is seen against the figures now.
    """
    now = pool_figures(ev, fig.pool) if fig.pool else fig
    read = [n for n in _PROJECT_FIGURES if now.sources.get(n) == GET_PROJECT]
    if not fig.pool or not (read or now.unlimited):
        return None
    quota = []
    if now.deserved is not None:
        quota.append(f"deserved {gpu_count(now.deserved)}")
    if now.limit is not None or now.unlimited:
        quota.append("limit unlimited" if now.unlimited else f"limit {gpus(now.limit)}")
    if now.weight is not None:
        quota.append(f"over-quota weight {gpus(now.weight)}")
    np = f"{gpus(now.allocated_np)} non-preemptible"
    usage = f"{np} allocated" if now.allocated_np is not None else ""
    if now.allocated is not None:
        usage = f"allocated {gpus(now.allocated)}" + (f" ({np})" if usage else "")
    text = f"Project {ev.project.name if ev.project else '?'} in node pool {fig.pool}: "
    text += "; ".join(part for part in (", ".join(quota), usage) if part)
    if now.project_at:
        text += f" as of {utc_text(now.project_at)}"
    theirs = [
        n
        for n in _PROJECT_FIGURES
        if fig.sources.get(n) not in {None, GET_PROJECT} and getattr(fig, n) != getattr(now, n)
    ]
    if theirs:
        said = ", ".join(f"{_LABELS[n]} {gpus(getattr(fig, n))}" for n in theirs)
        text += f" (the scheduler's statement above: {said})"
    return EvidenceLine(text=text, source=GET_PROJECT)


def _context(ev: PendingEvidence) -> list[EvidenceLine]:
    lines: list[EvidenceLine] = []
    w = ev.workload
    if ev.since is not None:
        text = f"Pending since {utc_text(ev.since)} ({waited(ev.now - ev.since)})"
        if w.total_pending_time_seconds is not None:
            text += f"; {waited(timedelta(seconds=w.total_pending_time_seconds))} Pending in all"
        source = "get_workload_history" if ev.history else "get_workload_status"
        lines.append(EvidenceLine(text=text, source=source))
    before = [s for s in ev.signals if s.kind is SignalKind.PREEMPTED]
    if before:  # the latest eviction, the one that began this wait (never an older one)
        lines.append(cite_eviction(max(before, key=lambda s: s.at.timestamp() if s.at else 0.0)))
    if ev.stale:
        newest = max(ev.stale, key=lambda s: s.at.timestamp() if s.at else 0.0)
        older = ev.since is not None and newest.at is not None and newest.at < ev.since
        why = (
            f"written before it last became Pending ({utc_text(ev.since)})"
            if older and ev.since
            else "a PodGroup condition while some of its pods hold resources"
        )
        noun = "statement" if len(ev.stale) == 1 else "statements"
        lines.append(
            EvidenceLine(
                text=f"Not trusted: {len(ev.stale)} scheduler {noun} ({why}), newest: "
                f"{newest.text}",
                source=newest.source,
            )
        )
    return lines


def _unknown_advice(ev: PendingEvidence) -> list[str]:
    advice: list[str] = []
    if not ev.tier2:
        ns = namespace_for(ev.workload)[0] or "<namespace>"
        advice.append(
            "Configure Kubernetes access (Tier 2) for this cluster: the PodGroup's scheduling "
            f"conditions say why (`kubectl get podgroups -n {ns} -o yaml`)."
        )
    if ev.gaps:
        advice.append("Ask again once the reads listed under Not measured answer.")
    return advice


def _pool_first(ev: PendingEvidence, verdict: Verdict) -> str | None:
    """Ask for a listed pool with room first, when another pool comes before it.

    The scheduler tries the node pools in the order listed, so this is said only of a pool
    listed after another (never of the first), and only when its own verdict names nothing
    that keeps the workload out of it (UNKNOWN): a pool it cannot use is never recommended.
    """
    fig, pool = verdict.figures, verdict.pool
    order, whose = ev.pool_order()
    if pool is None or pool not in order or verdict.reason is not PendingReason.UNKNOWN:
        return None
    if fig is None or fig.free is None or fig.requested is None or fig.free < fig.requested:
        return None
    before = ", ".join(order[: order.index(pool)])
    if not before:
        return None
    room = f"Node pool {pool} has {gpus(fig.free)} free {gpu_noun(fig.free)}, but"
    if whose == "workload":
        return (
            f"{room} the workload lists it after {before} and the scheduler tries its node "
            f"pools in that order: listing {pool} first may start it sooner."
        )
    return (
        f"{room} it comes after {before} in the project's default node pools, which the "
        f"scheduler tries in that order (the workload names none): asking for {pool} first "
        "may start it sooner."
    )


def _of_pool(pool: str | None, gap: str) -> str:
    """Another pool's gap, said to be that pool's unless it already names it."""
    if pool is None or f"node pool {pool}" in gap:
        return gap
    return f"in node pool {pool}: {gap}"


def _source(verdict: Verdict) -> str:
    if verdict.lines:
        return verdict.lines[0].source
    cited = sorted(set(verdict.figures.sources.values())) if verdict.figures else []
    return ", ".join(cited) or "get_workload_status"


def compose_pending(ev: PendingEvidence, best: Verdict, others: list[Verdict]) -> Report:
    """The `pending_scheduling` report for the verdict of highest precedence."""
    fig = best.figures or PoolFigures(pool=best.pool)
    headline = best.headline
    if ev.since is not None:
        headline += f" Pending for {waited(ev.now - ev.since)}."
    evidence = [*best.lines, *_figure_lines(ev, fig), *_context(ev)]
    evidence += [
        EvidenceLine(text=f"Node pool {v.pool}: {v.reason.value}: {v.headline}", source=_source(v))
        for v in others
    ]
    phase = f"Workload phase {ev.workload.phase or 'unknown'}"
    evidence.append(EvidenceLine(text=phase, source="get_workload_status"))
    actions = advice_across(best, others, namespace=namespace_for(ev.workload)[0])
    actions += [text for text in (_pool_first(ev, v) for v in others) if text]
    if best.reason is PendingReason.UNKNOWN:
        actions += _unknown_advice(ev)
    missing = [g.what for g in ev.gaps]
    missing += best.missing
    missing += [_of_pool(v.pool, gap) for v in others for gap in v.missing]
    if not ev.tier2:
        missing.append(TIER2_PENDING_MISSING)
    facts = PendingFacts(
        reason=best.reason.value,
        node_pool=fig.pool,
        requested_gpus=fig.requested,
        deserved_gpus=fig.deserved,
        limit_gpus=fig.limit,
        allocated_gpus=fig.allocated,
        allocated_non_preemptible_gpus=fig.allocated_np,
        pool_free_gpus=fig.free,
        pool_total_gpus=fig.total,
        pending_since=ev.since,
    )
    return Report(
        outcome=Outcome.PENDING_SCHEDULING,
        workload=workload_ref(ev.workload),
        headline=headline,
        evidence=tuple(dict.fromkeys(evidence)),
        recommendations=tuple(actions),
        missing=tuple(dict.fromkeys(missing)),
        recovery_owner=owner(best),
        pending=facts,
    )
