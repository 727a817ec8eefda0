"""UNKNOWN: what was seen, and what evidence would decide, when no rule may decide."""

from __future__ import annotations

from diagnosis.evidence import Evidence
from diagnosis.exitcodes import SIGKILL_EXIT, SYSTEM_KILL_CODES, describe_exit_code
from diagnosis.lexicon import SignalKind
from diagnosis.memory import memory_evidence
from diagnosis.report import Category, EvidenceLine
from diagnosis.report_parts import MemoryFigures
from diagnosis.rules.advice import DESCRIBE, describe_pod, get_events, kubectl_logs, ran
from diagnosis.rules.base import CategoryRow, Details, Finding, cite, cite_all, latest

__all__ = ["ROW", "STOPPED_UNEXCLUDED", "preemption_not_excluded", "unknown"]

_INCONCLUSIVE = (
    SignalKind.POD_ERROR,
    SignalKind.CRASHLOOP,
    SignalKind.NODE_EVICTION,
    SignalKind.LOG_ERROR,
    SignalKind.START_ERROR,
    SignalKind.COLLECTIVE,
    SignalKind.GPU_XID,
)
STOPPED_UNEXCLUDED = "preemption could not be excluded: events and history are both unavailable"


def unknown(ev: Evidence) -> Finding:
    """The fallback verdict: never more specific than the evidence allows."""
    lines: list[EvidenceLine] = []
    kills = [s for s in ev.of(SignalKind.EXIT_CODE) if s.exit_code in SYSTEM_KILL_CODES]
    headline = "The available signals do not identify the cause."
    code = kills[-1].exit_code if kills else None
    container = kills[-1].detail if kills else None
    if kills:
        lines.append(cite(kills[-1]))
        if code == SIGKILL_EXIT:
            headline = (
                "Exit 137 (SIGKILL), OOM not proven: no OOMKilled, eviction, node or "
                "policy signal explains the kill."
            )
        else:
            headline = (
                f"Exit {describe_exit_code(code or 0)}; no event, history or node signal "
                "says who sent it."
            )
    clean_exits = [s for s in ev.of(SignalKind.EXIT_CODE) if s.exit_code == 0]
    if clean_exits and not kills:
        headline = (
            f"Kubernetes says container {clean_exits[-1].detail or '?'} exited 0, yet Run:ai "
            f"reports {ev.workload.phase or 'a failure'}; no signal explains the failure."
        )
        lines.extend(cite_all(clean_exits))
    seen = cite_all(ev.of(*_INCONCLUSIVE))  # what was seen: it supports, it does not decide
    if not lines:  # ...unless it is all there is: then it is what the answer rests on
        lines, seen = seen, []
    memory: MemoryFigures | None = None
    missing: tuple[str, ...] = ()
    if ev.metrics_requested:
        init = any(s.kind is SignalKind.INIT_FAILED and s.detail == container for s in ev.signals)
        figures = memory_evidence(ev, container, init=init and container is not None)
        lines.extend(figures.lines)
        memory, missing = figures.figures, tuple(figures.missing)
    if not lines:
        lines.append(
            EvidenceLine(
                text=f"Phase {ev.workload.phase or 'unknown'} with no reason, condition, event "
                "or history entry naming a cause",
                source="get_workload_status",
            )
        )
    return Finding(
        category=Category.UNKNOWN,
        at=latest(kills),
        headline=headline,
        evidence=tuple(lines),
        details=Details(exit_code=code, container=container),
        memory=memory,
        missing=missing,
        context=tuple(seen),
    )


def preemption_not_excluded(ev: Evidence, finding: Finding) -> Finding | None:
    """A Stopped workload whose events and history are both lost: preemption cannot be ruled out.

    The skill continues a Stopped workload only once preemption is excluded; with neither
    events nor history there is nothing to exclude it with, so no category is assigned.
    """
    if (ev.workload.phase or "").lower() != "stopped" or ev.events is not None:
        return None
    if ev.history is not None:
        return None
    return Finding(
        category=Category.UNKNOWN,
        at=finding.at,
        headline="The workload was Stopped, but with events and history both unavailable "
        "a preemption cannot be excluded, so no category is assigned.",
        evidence=finding.evidence,
        missing=(*finding.missing, STOPPED_UNEXCLUDED),
        context=finding.context,
    )


def _advise(ev: Evidence, finding: Finding) -> list[str]:
    if STOPPED_UNEXCLUDED in finding.missing:
        return [
            "Ask again when the control plane answers for events and history: until then a "
            "preemption cannot be told apart from a failure, so nothing should be changed yet."
        ]
    if not ev.tier2:
        return [
            "Collect container-level evidence (exit code, termination reason, log, "
            f"pod events): {describe_pod(ev)}, "
            f"{kubectl_logs(ev, finding.details.container)} and {get_events(ev)}."
        ]
    if not ran(ev, DESCRIBE):
        return [
            "The Kubernetes reads failed (see what could not be measured); retry them, or ask "
            f"an administrator to run {describe_pod(ev)} and {get_events(ev)}."
        ]
    if finding.details.exit_code == SIGKILL_EXIT:
        return [
            "Kubernetes evidence does not say who sent SIGKILL either: check liveness probes "
            "and the termination grace period, then ask SRE for the node's kernel and kubelet "
            "logs around the termination time."
        ]
    return [
        "Kubernetes evidence does not name a cause either: ask SRE for the node's kubelet and "
        "kernel logs around the termination time, and rerun with more logging."
    ]


ROW = CategoryRow(
    category=Category.UNKNOWN,
    rule=None,
    owner="Undetermined",
    advise=_advise,
    container_evidence=True,
)
