"""The reports of a diagnosis that stops before a verdict: a question, no failure, lost events.

`diagnosis.pipeline` and `diagnosis.examine` decide when to stop; these say why, in the
answer's words.
"""

from __future__ import annotations

from diagnosis.evidence import Evidence, Gap, Signal
from diagnosis.lexicon import SignalKind
from diagnosis.redact import quote
from diagnosis.report import EvidenceLine, Outcome, Report
from diagnosis.resolve import workload_ref
from diagnosis.rules.base import cite_all, cite_eviction
from diagnosis.runai.models import Workload

__all__ = ["needs_input", "status_lines", "stop", "unconfirmed"]

_QUESTIONS = {
    "cluster_id": "Which Run:ai cluster? I need its cluster ID; I never guess it, infer it "
    "from a workload ID or search across clusters.",
    "workload_id or workload_name": (
        "Which workload? Give its workload ID, or its name and project."
    ),
    "project": (
        "Which project is the workload in? A workload name is only unique within a project."
    ),
}

_STOP_HEADLINES: dict[Outcome, str] = {
    Outcome.SUCCEEDED: (
        "The workload finished successfully ({phase}); there is no failure to diagnose."
    ),
    Outcome.PENDING_SCHEDULING: "The workload is Pending and waiting to be scheduled; no pod "
    "has failed. This is a scheduling question, not a failure.",
    Outcome.SUSPENDED: (
        "The workload is Suspended (paused, not failed); failure diagnosis does not apply."
    ),
    Outcome.RUNNING_NO_FAILURE: "The workload is Running and nothing confirms a crash loop or "
    "repeated container crashes.",
    Outcome.NOT_TERMINAL: "The workload is {phase}, which is neither a failure nor finished; "
    "no category is assigned.",
}


def needs_input(missing: list[str]) -> Report:
    """Ask for what the request lacks (`missing`: its slot names), one question each."""
    question = " ".join(_QUESTIONS[m] for m in missing)
    return Report(
        outcome=Outcome.NEEDS_INPUT, headline=question, question=question, missing=tuple(missing)
    )


def stop(
    outcome: Outcome,
    workload: Workload,
    lines: list[EvidenceLine],
    missing: tuple[str, ...] = (),
    *,
    headline: str | None = None,
) -> Report:
    """A workload whose phase is no failure to diagnose: say so, with its status lines."""
    headline = headline or _STOP_HEADLINES[outcome].format(phase=workload.phase or "unknown")
    question = None
    if outcome is Outcome.RUNNING_NO_FAILURE:
        question = (
            "Did you mean a past run of this workload? Give that run's workload ID, "
            "or ask again when it fails."
        )
    return Report(
        outcome=outcome,
        workload=workload_ref(workload),
        headline=headline,
        evidence=tuple(lines),
        question=question,
        missing=missing,
    )


def unconfirmed(
    outcome: Outcome, ev: Evidence, events_gap: Gap | None, lines: list[EvidenceLine]
) -> Report:
    """A Pending/Running workload whose events were lost: say what cannot be told apart."""
    why = f" ({events_gap.cause})" if events_gap is not None and events_gap.cause else ""
    phase = ev.workload.phase or "unknown"
    lost = {g.source.split(",")[0].split(" ")[0] for g in ev.gaps}  # `kubectl`, `get_workload_...`
    history_read = ev.history is not None and "get_workload_history" not in lost
    kube_read = ev.tier2 and "kubectl" not in lost  # only what was read in full is cited
    read = [name for name, got in (("History", history_read), ("Kubernetes", kube_read)) if got]
    verb = "show" if len(read) > 1 else "shows"
    found = f" {' and '.join(read)} {verb} no failed pod either." if read else ""
    if outcome is Outcome.PENDING_SCHEDULING:
        text = (
            f"The workload is {phase}, but its events are unavailable{why}, so a scheduling "
            f"wait cannot be told apart from a failed pod.{found}"
        )
    else:
        text = (
            f"The workload is {phase}, but its events are unavailable{why}, so a crash loop "
            f"cannot be excluded.{found.replace('failed pod', 'crash loop')}"
        )
    return stop(outcome, ev.workload, lines, tuple(g.what for g in ev.gaps), headline=text)


def status_lines(workload: Workload, signals: list[Signal]) -> list[EvidenceLine]:
    """The workload's phase, reason and message, then its telling signals, cited.

    Its latest eviction is said, not quoted (`cite_eviction`).
    """
    text = f"Phase {workload.phase or 'unknown'}"
    if workload.phase_reason:
        text += f", reason {quote(workload.phase_reason, 80)}"
    if workload.phase_message:
        text += f": {quote(workload.phase_message, 200)}"
    untold = {SignalKind.RESTARTED, SignalKind.PREEMPTED}
    telling = [s for s in signals if s.kind not in untold]
    evicted = [s for s in signals if s.kind is SignalKind.PREEMPTED]
    newest = [max(evicted, key=lambda s: s.at.timestamp() if s.at else 0.0)] if evicted else []
    return [
        EvidenceLine(text=text, source="get_workload_status"),
        *cite_all(telling),
        *map(cite_eviction, newest),  # the preemption answer's to quote, per asker
    ]
