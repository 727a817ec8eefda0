"""SCHEDULING_POLICY_TERMINATED: an idle timeout, a maximum duration or a manual stop.

Kubernetes' `DeadlineExceeded` (the pod ran past its `activeDeadlineSeconds`) is a
maximum-duration termination; the deadline is named when the pod spec has it.
"""

from __future__ import annotations

from diagnosis.evidence import Evidence
from diagnosis.lexicon import SignalKind
from diagnosis.report import Category
from diagnosis.rules.base import Finding, cite_all, latest

__all__ = ["POLICY_TEXT", "scheduling_policy_terminated"]

POLICY_TEXT: dict[SignalKind, tuple[str, str]] = {
    SignalKind.IDLE_TIMEOUT: ("idle-timeout", "the idle-GPU timeout policy stopped it"),
    SignalKind.MAX_DURATION: ("max-duration", "it reached its maximum allowed run time"),
    SignalKind.MANUAL_STOP: ("manual-stop", "a person stopped it"),
}


def scheduling_policy_terminated(ev: Evidence) -> Finding | None:
    """An explicit policy or manual-stop message; the newest one names the policy."""
    signals = ev.of(*POLICY_TEXT)
    if not signals:
        return None
    newest = signals[-1]
    policy, text = POLICY_TEXT[newest.kind]
    details: dict[str, str | int] = {"policy": policy}
    if newest.kind is SignalKind.MAX_DURATION:
        deadline = next((s.detail for s in signals if s.detail and s.detail.isdigit()), None)
        if any((s.reason or "").lower() == "deadlineexceeded" for s in signals):
            text = "it was active longer than its deadline, and Kubernetes stopped it"
        if deadline is not None:
            text += f" (activeDeadlineSeconds {deadline} = {_duration(int(deadline))})"
            details["active_deadline_s"] = int(deadline)
    return Finding(
        category=Category.SCHEDULING_POLICY_TERMINATED,
        at=latest(signals),
        headline=f"The workload was terminated on purpose: {text}.",
        evidence=tuple(cite_all(signals)),
        details=details,
    )


def _duration(seconds: int) -> str:
    """`86400` → `24h`, `5400` → `1h30m`, `90` → `90s`."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if secs or not (hours or minutes):
        return f"{seconds}s"
    return (
        f"{hours}h{minutes:02d}m" if hours and minutes else f"{hours}h" if hours else f"{minutes}m"
    )
