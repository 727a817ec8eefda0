"""Words every renderer says the same way: the console, Slack and Teams.

The outcome labels and line one of a message, the recurrence sentence, how a time and a
candidate are shown (and a candidate's button label fitted to each platform's count), the
"N more … in the thread" and "left out" counts, and the `runai-why diagnose …` command that
prints a whole report live here, once.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from datetime import datetime

from bot.render.clean import ELLIPSIS, clean, escaped_len, middle_cut, one_line, utf16_len
from diagnosis import Outcome, Report, WorkloadRef, utc_text

__all__ = [
    "OUTCOME_WORDS",
    "OWNER_LABEL",
    "QUESTION_LABEL",
    "candidate_facts",
    "candidate_labels",
    "cli_command",
    "first_line_label",
    "fit_label",
    "left_out_words",
    "more_words",
    "outcome_words",
    "recurrence_sentence",
    "verdict_label",
    "when",
    "when_drawn",
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


def first_line_label(report: Report) -> str:
    """The category, or the outcome when there is none: what line one of a message says."""
    if report.category is not None:
        return report.category.value
    verdict = verdict_label(report)
    if verdict is not None:
        return verdict
    name, why = outcome_words(report.outcome)
    return f"{name} — {why}" if why else name


def more_words(noun: tuple[str, str], later: int, left_out: int, later_where: str) -> str:
    """`4 more evidence lines in the thread`: a part's items in later messages, and left out.

    `noun` is the singular and plural (`evidence line(s)`), `later_where` where the later
    messages are (`in the thread`, `in the next messages`).
    """
    total = later + left_out
    name = noun[total > 1]
    if not left_out:
        return f"{later} more {name} {later_where}"
    if not later:
        return f"{left_out} more {name} left out (see below)"
    return f"{total} more {name}: {later} {later_where}, {left_out} left out"


def left_out_words(left: int) -> str:
    """The count of lines no message shows: `3 more lines were left out to keep ...`."""
    noun = "line was" if left == 1 else "lines were"
    return f"{left} more {noun} left out to keep the thread short."


def when(moment: datetime | None) -> str:
    """A moment as the answer prints every moment: `2025-11-04 08:52:00Z` (UTC), or `?`.

    The same form as the evidence lines (`utc_text`), so one answer has one time format.
    """
    if moment is None:
        return "?"
    return utc_text(moment)


def when_drawn(moment: datetime | None) -> str:
    """A moment where room is short (a chart's drawn label, a button): `2025-11-04 08:52Z`."""
    if moment is None:
        return "?"
    return utc_text(moment, "%Y-%m-%d %H:%MZ")


def candidate_facts(candidate: WorkloadRef) -> str:
    """`phase Failed · submitted 2025-11-04 00:17:00Z · phase updated 2025-11-04 08:52:00Z`."""
    return (
        f"phase {candidate.phase or '?'} · submitted {when(candidate.submitted_at)} · "
        f"phase updated {when(candidate.phase_updated_at)}"
    )


_SHORT_ID = 8  # characters of a workload ID shown where the rest of a label is the same
#: The most of a workload's name a candidate label carries, in UTF-16 units (a Kubernetes
#: name's 253): every platform's button is shorter, and fits the label its own way.
_NAME_KEPT = 253
#: What follows the workload's name in a candidate label: its phase, when it was submitted,
#: and its ID's start for twins (`candidate_labels`). Read from the label's end, bounded.
_FACTS = re.compile(
    r" · [^·\n]{1,80} · submitted (?:\d\d-\d\d \d\d:\d\dZ|\?)(?: · ID [^·\s]{1,64})?\Z"
)
_FACTS_MAX = 200  # characters: more than the longest `_FACTS` matches


def candidate_labels(candidates: Sequence[WorkloadRef]) -> list[str]:
    """Button labels for picking among candidates: `train-bert · Failed · submitted 11-04 00:17Z`.

    Each names its workload, then what tells it apart: its phase and when it was submitted
    (UTC), and its ID's first characters where two labels would otherwise read the same
    (as many as make them differ). Not sized for any button: each platform fits a label to
    its own (`fit_label`), shortening the name in its middle, never the facts, by its own
    count. So a name with `&`, `<` or `>` loses on Slack what Slack's entities take
    (`&amp;`), and nothing on Teams, which counts the label as written.
    """

    def short(moment: datetime | None) -> str:
        return when_drawn(moment)[5:] if moment is not None else "?"

    facts = [f"{c.phase or '?'} · submitted {short(c.submitted_at)}" for c in candidates]
    plain = [(c.name, f) for c, f in zip(candidates, facts, strict=True)]
    labels = []
    for candidate, fact, key in zip(candidates, facts, plain, strict=True):
        twins = [c.id for c, k in zip(candidates, plain, strict=True) if k == key]
        told = fact + (f" · ID {_distinct_prefix(candidate.id, twins)}" if len(twins) > 1 else "")
        labels.append(f"{middle_cut(one_line(clean(candidate.name)), _NAME_KEPT)} · {told}")
    return labels


def fit_label(label: str, limit: int, *, escaped: bool = False) -> str:
    """A button's label within `limit` UTF-16 units as its platform counts them, cleaned.

    `escaped`: as Slack is sent it (`&` as `&amp;`, `escaped_len`); else as written (Teams,
    whose look-alikes for marks take one unit each). A candidate's label (`candidate_labels`)
    loses the middle of its name, never its facts; any other label is left for the
    renderer to cut as it cuts any text.
    """
    text = one_line(clean(label))
    measure = escaped_len if escaped else utf16_len
    if measure(text) <= limit:
        return text
    tail = text[-_FACTS_MAX:]
    found = _FACTS.search(tail)
    if found is None:
        return text
    told = tail[found.start() :]
    room = limit - measure(told)
    if room <= len(ELLIPSIS) + 1:  # facts alone fill the button: the renderer cuts
        return text
    return middle_cut(text[: len(text) - len(told)], room, escaped=escaped) + told


def _distinct_prefix(own: str, ids: Sequence[str]) -> str:
    """The shortest start of `own` (at least `_SHORT_ID` characters) no other of `ids` shares."""
    others = [i for i in ids if i != own]
    size = _SHORT_ID
    while size < len(own) and any(o.startswith(own[:size]) for o in others):
        size += 1
    return own[:size]


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
