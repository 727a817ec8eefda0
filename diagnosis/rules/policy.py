"""SCHEDULING_POLICY_TERMINATED: an idle timeout, a maximum duration or a manual stop."""

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
    return Finding(
        category=Category.SCHEDULING_POLICY_TERMINATED,
        at=latest(signals),
        headline=f"The workload was terminated on purpose: {text}.",
        evidence=tuple(cite_all(signals)),
        details=Details(policy=policy),
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
