"""SCHEDULING_POLICY_TERMINATED: an idle timeout, a maximum duration or a manual stop."""

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
    return Finding(
        category=Category.SCHEDULING_POLICY_TERMINATED,
        at=latest(signals),
        headline=f"The workload was terminated on purpose: {text}.",
        evidence=tuple(cite_all(signals)),
        details={"policy": policy},
    )
