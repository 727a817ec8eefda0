"""Words every renderer says the same way (text, Block Kit, and later Adaptive Cards).

The outcome labels, the recurrence sentence, how a time and a candidate are shown, and the
`runai-why diagnose …` command that prints a whole report live here, once.
"""

from __future__ import annotations

import shlex
from datetime import UTC, datetime

from diagnosis import Outcome, Report, WorkloadRef

__all__ = [
    "OUTCOME_WORDS",
    "OWNER_LABEL",
    "QUESTION_LABEL",
    "candidate_facts",
    "candidate_label",
    "cli_command",
    "outcome_words",
    "recurrence_sentence",
    "verdict_label",
    "when",
]

#: The runai-diagnose-failed-workload skill's "Recovery owner" column, as shown to users.
OWNER_LABEL = "Who fixes it"
#: The title of the question a report asks back (`running_no_failure`: a past run?).
QUESTION_LABEL = "Question"

#: The one table of outcome labels: (name, why it is not a category). Block Kit shows
#: "SUCCEEDED — not a failure", text shows "Outcome: SUCCEEDED (not a failure)".
OUTCOME_WORDS: dict[Outcome, tuple[str, str | None]] = {
    Outcome.SUCCEEDED: ("SUCCEEDED", "not a failure"),
    Outcome.PREEMPTED: ("PREEMPTED", "not a failure"),
    Outcome.PENDING_SCHEDULING: ("PENDING", "scheduling, not a failure"),
    Outcome.SUSPENDED: ("SUSPENDED", "out of scope"),
    Outcome.RUNNING_NO_FAILURE: ("RUNNING", "no failure confirmed"),
    Outcome.NOT_TERMINAL: ("NOT TERMINAL", "no category assigned"),
    Outcome.CLUSTER_MISMATCH: ("CLUSTER MISMATCH", "stopped"),
    Outcome.NEEDS_INPUT: ("NEED MORE INFORMATION", None),
    Outcome.NOT_FOUND: ("NOT FOUND", None),
}


def outcome_words(outcome: Outcome) -> tuple[str, str | None]:
    """The label of an outcome and why it carries no category (None: nothing to add)."""
    return OUTCOME_WORDS.get(outcome, (outcome.value.upper(), None))


def verdict_label(report: Report) -> str | None:
    """Line one of a Pending or preemption answer (`PENDING · NODE_POOL_FULL`), else None.

    Never one of the failure categories: `PENDING`/`PREEMPTED` are outcomes, and the reason
    or kind after the dot is theirs.
    """
    if report.pending is not None:
        return f"PENDING · {report.pending.reason}"
    if report.preemption is not None:
        return f"PREEMPTED · {report.preemption.kind}"
    return None


def when(moment: datetime | None) -> str:
    """A moment as people read it in an incident: `2025-11-04 08:52Z` (UTC), or `?`."""
    if moment is None:
        return "?"
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%MZ")


def candidate_facts(candidate: WorkloadRef) -> str:
    """`phase Failed · submitted 2025-11-04 00:17Z · phase updated 2025-11-04 08:52Z`."""
    return (
        f"phase {candidate.phase or '?'} · submitted {when(candidate.submitted_at)} · "
        f"phase updated {when(candidate.phase_updated_at)}"
    )


def candidate_label(candidate: WorkloadRef) -> str:
    """A short button label for picking a candidate: `Failed · submitted 11-04 00:17Z · …`.

    Candidates share their name (they matched it), so the label says what tells them apart:
    the phase, when each was submitted and when its phase last changed (UTC).
    """

    def short(moment: datetime | None) -> str:
        return when(moment)[5:] if moment is not None else "?"

    return (
        f"{candidate.phase or '?'} · submitted {short(candidate.submitted_at)} · "
        f"updated {short(candidate.phase_updated_at)}"
    )


def cli_command(report: Report, lookback: str | None) -> str | None:
    """The `runai-why diagnose …` line that prints this whole report, or None without IDs."""
    w = report.workload
    if w is None or not w.id or not w.cluster_id:
        return None
    words = ["runai-why", "diagnose", "--cluster-id", w.cluster_id, "--workload-id", w.id]
    if lookback:
        words += ["--lookback", lookback]
    return shlex.join(words)


def recurrence_sentence(report: Report) -> str | None:
    """'History: 3 OOM_KILLED failures in the last 24h (recurring).', or None."""
    recur = report.recurrence
    if recur is None or report.category is None:
        return None
    category = report.category.value
    if recur.count is None:
        return f"History: not measured (history unavailable for the last {recur.lookback})."
    if recur.count == 0:
        return (
            f"History: no {category} failures in the last {recur.lookback}; this one is older "
            "than the lookback (ask with a longer lookback to count it)."
        )
    noun = "failure" if recur.count == 1 else "failures"
    label = "recurring" if recur.recurring else "one-off"
    return f"History: {recur.count} {category} {noun} in the last {recur.lookback} ({label})."
