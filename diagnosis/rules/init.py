"""INIT_FAILED: an init container failed before the main container started."""

from __future__ import annotations

from diagnosis.evidence import Evidence
from diagnosis.exitcodes import describe_exit_code
from diagnosis.lexicon import SignalKind
from diagnosis.report import Category
from diagnosis.rules.base import Finding, cite_all, latest

__all__ = ["init_failed"]


def init_failed(ev: Evidence) -> Finding | None:
    """`Init:Error`, `Init:CrashLoopBackOff` or an init container's non-zero exit."""
    signals = ev.of(SignalKind.INIT_FAILED)
    if not signals:
        return None
    keys = {s.key.rsplit(":", 1)[0] for s in signals}
    exits = [
        s for s in ev.of(SignalKind.EXIT_CODE) if s.key.rsplit(":", 1)[0] in keys and s.exit_code
    ]
    container = next((s.detail for s in reversed(signals) if s.detail), None)
    details: dict[str, str | int] = {"container": container} if container else {}
    who = f"Init container {container}" if container else "An init container"
    headline = f"{who} failed before the main container started"
    if exits:
        details["exit_code"] = exits[-1].exit_code or 0
        headline += f" (exit {describe_exit_code(exits[-1].exit_code or 0)})"
    # The init container's own failing log line (Tier 2 read it): quoted first, never dropped.
    logs = [s for s in ev.of(SignalKind.LOG_ERROR) if s.key.split(":")[1:2] == [container]]
    if logs:
        details["finding"] = logs[-1].detail or "error"
    return Finding(
        category=Category.INIT_FAILED,
        at=latest(signals),
        headline=headline + ".",
        evidence=(*cite_all(logs), *cite_all(signals)),
        details=details,
    )
