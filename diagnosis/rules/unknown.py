"""UNKNOWN: what was seen, and what evidence would decide, when no rule fires."""

from __future__ import annotations

from diagnosis.evidence import Evidence
from diagnosis.exitcodes import SIGKILL_EXIT, SYSTEM_KILL_CODES, describe_exit_code
from diagnosis.lexicon import SignalKind
from diagnosis.memory import memory_evidence
from diagnosis.report import Category, EvidenceLine
from diagnosis.rules.base import Finding, cite, cite_all, latest

__all__ = ["unknown"]

_INCONCLUSIVE = (
    SignalKind.POD_ERROR,
    SignalKind.CRASHLOOP,
    SignalKind.NODE_EVICTION,
    SignalKind.LOG_ERROR,
)


def unknown(ev: Evidence) -> Finding:
    """The fallback verdict: never more specific than the evidence allows."""
    lines: list[EvidenceLine] = []
    details: dict[str, str | int] = {}
    kills = [s for s in ev.of(SignalKind.EXIT_CODE) if s.exit_code in SYSTEM_KILL_CODES]
    headline = "The available signals do not identify the cause."
    if kills:
        code = kills[-1].exit_code or 0
        details["exit_code"] = code
        lines.append(cite(kills[-1]))
        if code == SIGKILL_EXIT:
            headline = (
                "Exit 137 (SIGKILL), OOM not proven: no OOMKilled, eviction, node or "
                "policy signal explains the kill."
            )
        else:
            headline = (
                f"Exit {describe_exit_code(code)}; no event, history or node signal "
                "says who sent it."
            )
    clean_exits = [s for s in ev.of(SignalKind.EXIT_CODE) if s.exit_code == 0]
    if clean_exits and not kills:
        headline = (
            f"Kubernetes says container {clean_exits[-1].detail or '?'} exited 0, yet Run:ai "
            f"reports {ev.workload.phase or 'a failure'}; no signal explains the failure."
        )
        lines.extend(cite_all(clean_exits))
    lines.extend(cite_all(ev.of(*_INCONCLUSIVE)))
    if ev.metrics_requested:
        _, memory_lines, _ = memory_evidence(ev)
        lines.extend(memory_lines)
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
        details=details,
    )
