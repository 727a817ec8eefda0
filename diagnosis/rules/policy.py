"""SCHEDULING_POLICY_TERMINATED: an idle timeout, a maximum duration or a manual stop.

Kubernetes' `DeadlineExceeded` (the pod ran past its `activeDeadlineSeconds`) is a
maximum-duration termination; the deadline is named when the pod spec has it.
"""

from __future__ import annotations

from diagnosis.evidence import Evidence
from diagnosis.lexicon import SignalKind
from diagnosis.report import Category
from diagnosis.rules.base import CategoryRow, Details, Finding, Policy, cite_all, latest

__all__ = ["POLICY_TEXT", "ROW", "scheduling_policy_terminated"]

POLICY_TEXT: dict[SignalKind, tuple[Policy, str]] = {
    SignalKind.IDLE_TIMEOUT: (Policy.IDLE_TIMEOUT, "the idle-GPU timeout policy stopped it"),
    SignalKind.MAX_DURATION: (Policy.MAX_DURATION, "it reached its maximum allowed run time"),
    SignalKind.MANUAL_STOP: (Policy.MANUAL_STOP, "a person stopped it"),
}


def scheduling_policy_terminated(ev: Evidence) -> Finding | None:
    """An explicit policy or manual-stop message; the newest one names the policy."""
    signals = ev.of(*POLICY_TEXT)
    if not signals:
        return None
    newest = signals[-1]
    policy, text = POLICY_TEXT[newest.kind]
    deadline = None
    if newest.kind is SignalKind.MAX_DURATION:
        seconds = next((s.detail for s in signals if s.detail and s.detail.isdigit()), None)
        if any((s.reason or "").lower() == "deadlineexceeded" for s in signals):
            text = "it was active longer than its deadline, and Kubernetes stopped it"
        if seconds is not None:
            deadline = f"activeDeadlineSeconds {seconds} = {_duration(int(seconds))}"
            text += f" ({deadline})"
    return Finding(
        category=Category.SCHEDULING_POLICY_TERMINATED,
        at=latest(signals),
        headline=f"The workload was terminated on purpose: {text}.",
        evidence=tuple(cite_all(signals)),
        details=Details(policy=policy, deadline=deadline),
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


def _advise(_: Evidence, finding: Finding) -> list[str]:
    deadline = f" ({finding.details.deadline})" if finding.details.deadline else ""
    match finding.details.policy:
        case Policy.IDLE_TIMEOUT:
            return [
                "The idle-GPU timeout stopped it. Keep the GPU busy or use a training "
                "workload for batch work; ask an administrator only if the timeout was "
                "unintended."
            ]
        case Policy.MAX_DURATION:
            return [
                f"It hit the maximum run time{deadline}. Checkpoint and resume in shorter "
                "runs; ask an administrator to review the time limit only if it is wrong."
            ]
        case Policy.MANUAL_STOP:
            return [
                "Someone stopped it on purpose. Check with the person or automation named "
                "in the event before resubmitting."
            ]
        case None:
            return ["Identify the policy that stopped it."]


ROW = CategoryRow(
    category=Category.SCHEDULING_POLICY_TERMINATED,
    rule=scheduling_policy_terminated,
    owner="User: account for the policy",
    advise=_advise,
)
