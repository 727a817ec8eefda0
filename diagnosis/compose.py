"""Assemble the final `Report` from evidence and the chosen finding (pure)."""

from __future__ import annotations

from diagnosis.evidence import Evidence
from diagnosis.lexicon import SignalKind
from diagnosis.moments import utc_text
from diagnosis.recommend import recommendations
from diagnosis.recurrence import recurrence
from diagnosis.redact import quote
from diagnosis.report import EvidenceLine, Outcome, Report
from diagnosis.resolve import workload_ref
from diagnosis.rules import Finding, row

__all__ = ["TIER2_MISSING", "compose"]

TIER2_MISSING = (
    "container exit codes, termination reasons, restart counts and previous logs "
    "(Kubernetes Tier 2 access is not configured for this cluster)"
)


def _context(ev: Evidence, cited: set[str]) -> list[EvidenceLine]:
    """Quantified context the rules did not already cite: phase, pods, submitted spec."""
    lines: list[EvidenceLine] = []
    w = ev.workload
    when = f" since {utc_text(w.phase_updated_at)}" if w.phase_updated_at else ""
    phase = f"Workload phase {w.phase or 'unknown'}{when}"
    if w.phase_message and not any(w.phase_message[:40] in c for c in cited):
        phase += f"; message: {quote(w.phase_message, 160)}"
    lines.append(EvidenceLine(text=phase, source="get_workload_status"))
    lines.extend(_survived(ev))
    for pod in (ev.pods or ())[:3]:
        if any(f"Pod {pod.name} " in c for c in cited):
            continue
        node = f" on node {pod.node_name}" if pod.node_name else " (not placed on a node)"
        lines.append(
            EvidenceLine(
                text=f"Pod {pod.name}{node}: k8sPhase {pod.k8s_phase or 'unknown'}",
                source="get_workload_pods",
            )
        )
    spec = ev.spec.spec if ev.spec else None
    if spec is not None:
        parts = []
        if spec.restart_policy:
            parts.append(f"restart policy {spec.restart_policy}")
        if spec.backoff_limit is not None:
            parts.append(f"backoffLimit {spec.backoff_limit}")
        if parts:
            lines.append(
                EvidenceLine(text="Submitted " + ", ".join(parts), source="get_workload_spec")
            )
    return lines


def _survived(ev: Evidence) -> list[EvidenceLine]:
    """An eviction it ran again after, as context: the failure diagnosed ended the later run.

    Only a dated one reaches here (an undated eviction, or one not followed by a run, is the
    preemption answer's), so this is never the verdict, only what came before it.
    """
    evicted = [(s.at, s) for s in ev.of(SignalKind.PREEMPTED) if s.at is not None]
    if not evicted:
        return []
    at, newest = max(evicted, key=lambda pair: pair[0])
    text = (
        f"It was preempted at {utc_text(at)} and ran again; the failure above ended the later run"
    )
    return [EvidenceLine(text=text, source=newest.source)]


def compose(ev: Evidence, finding: Finding) -> Report:
    """The `diagnosed` report: category first, cited evidence, recurrence, next steps, gaps.

    Everything category-specific comes from the finding and its registry row: the memory
    figures the rule computed, the recovery owner (which follows the sub-cause), the advice.
    """
    lookback = ev.request.lookback_label()
    recur = recurrence(ev, finding.category, lookback)
    evidence = [line.model_copy(update={"deciding": True}) for line in finding.evidence]
    evidence.extend(finding.context)
    evidence.extend(ev.tier2_lines)
    evidence.extend(_context(ev, {e.text for e in evidence}))
    missing = [g.what for g in ev.gaps]
    missing.extend(finding.missing)
    deciding_missing = list(finding.missing)
    if not ev.tier2:
        missing.append(TIER2_MISSING)
        if row(finding.category).container_evidence:
            deciding_missing.append(TIER2_MISSING)
    details = finding.details
    return Report(
        outcome=Outcome.DIAGNOSED,
        category=finding.category,
        workload=workload_ref(ev.workload),
        headline=finding.headline,
        evidence=tuple(evidence),
        recurrence=recur,
        memory=finding.memory,
        recommendations=tuple(recommendations(ev, finding, recur)),
        missing=tuple(dict.fromkeys(missing)),
        recovery_owner=row(finding.category).owner_of(finding),
        subcause=details.subcause.value if details.subcause else None,
        policy=details.policy.value if details.policy else None,
        details=details.model_dump(mode="json", exclude_defaults=True),
        deciding_missing=tuple(dict.fromkeys(deciding_missing)),
    )
