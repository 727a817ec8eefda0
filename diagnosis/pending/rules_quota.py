"""The typed quota rows: over the limit (P4), non-preemptible over quota (P5).

Whose limit or quota (the project's, or the department's when the typed reason's `orgType`
or its queue says so: `withheld.level_of`) and which resource (GPUs, or the CPU cores or
memory the scheduler's text names) decide the words, and whether the scheduler's numbers
are the project's GPU figures: only then do they replace them; otherwise they are shown as
the scheduler's, in their own unit.
"""

from __future__ import annotations

from diagnosis.kube.scheduling_models import quantity_number
from diagnosis.pending.department import department_named
from diagnosis.pending.evidence import PendingEvidence, Said
from diagnosis.pending.figures import (
    DEPARTMENT,
    GET_PROJECT,
    GPUS,
    PROJECT,
    STATUS,
    Level,
    PoolFigures,
    gpus,
    preemptible,
    resource,
)
from diagnosis.pending.texts import Saying
from diagnosis.pending.verdict import Doubt, PendingReason, Verdict, in_pool, known, verdict
from diagnosis.pending.withheld import level_of
from diagnosis.preemptibility import preemptibility
from diagnosis.report import EvidenceLine

__all__ = ["over_limit", "over_quota_non_preemptible"]

R = PendingReason


def _theirs(said: Said, fig: PoolFigures, level: Level, *names: tuple[str, str]) -> str:
    """The scheduler's figures for a department or another resource, with their unit, as its.

    Never the project's GPU figures under another name: without numbers in the statement,
    only the workload's own GPU request is known. A statement cut for someone who may not read
    the department (`withheld`) keeps only that request, and says the rest is not shown.
    """
    unit = said.values.get("unit", resource(said))
    read = [(label, quantity_number(said.values.get(name))) for label, name in names]
    shown = [f"{label} {gpus(value)} {unit}" for label, value in read if value is not None]
    if said.withheld:
        asked = f": {', '.join(shown)}" if shown else _request(said, fig)
        return f"{asked} (the {level}'s figures: not shown here)"
    if not shown:
        return _request(said, fig)
    whose = f" for the {level}" if level == DEPARTMENT else ""
    return f": {', '.join(shown)} (the scheduler's figures{whose})"


def _request(said: Said, fig: PoolFigures) -> str:
    """`: requested 4`, the workload's own GPUs, where the statement measures GPUs."""
    return known(("requested", fig.requested)) if resource(said) == GPUS else ""


def _not_shown(ev: PendingEvidence, said: list[Said], fig: PoolFigures) -> tuple[str, ...]:
    """The department's figures a cut statement stated, named as not shown (never a figure)."""
    if not any(s.withheld for s in said):
        return ()
    return (
        f"{department_named(ev)}'s limit, usage and quota{in_pool(fig)} as the scheduler "
        "stated them (not shown to you: they sum other projects', and your Run:ai access "
        "does not include reading that department)",
    )


def over_limit(ev: PendingEvidence, fig: PoolFigures) -> Verdict | None:
    """P4: the project's (or department's) limit: allocated + requested would exceed it."""
    said = ev.saying(Saying.OVER_LIMIT, pool=fig.pool)
    if not said:
        return None
    (level, typed), unit = level_of(ev, said), resource(said[0])
    f = fig.with_said(said[0], level)
    names = (("limit", "limit"), ("allocated", "allocated"), ("requested", "requested"))
    figures = (
        known(*((label, getattr(f, name)) for label, name in names))
        if (level, unit) == (PROJECT, GPUS)
        else _theirs(said[0], f, level, *names)
    )
    headline = f"Over the {level}'s {unit} limit{in_pool(f)}{figures}."
    cited = (said[0], typed) if typed else (said[0],)
    missing = _not_shown(ev, said, f)
    return verdict(R.OVER_LIMIT, f, headline, *cited, level=level, unit=unit, missing=missing)


def over_quota_non_preemptible(ev: PendingEvidence, fig: PoolFigures) -> Verdict | None:
    """P5: non-preemptible work runs only inside deserved quota, and this would exceed it.

    The scheduler's statement is cross-checked against what was read now: a workload that
    reads preemptible, or project figures that now leave room (a quota raised since), are
    flagged as doubts, never explained away.
    """
    said = ev.saying(Saying.NON_PREEMPTIBLE_OVER_QUOTA, pool=fig.pool)
    level, typed = level_of(ev, said)
    f = fig.with_said(said[0], level) if said else fig
    numbers = (f.requested, f.deserved, f.allocated_np)
    over = None not in numbers and (f.allocated_np or 0) + (f.requested or 0) > (f.deserved or 0)
    if not said and not (preemptible(ev) is False and over):
        return None
    doubts, why, lines = _doubts(ev, said[0], fig, f.requested, level) if said else ((), [], ())
    names = (
        ("requested", "requested"),
        ("non-preemptible allocated", "allocated_np"),
        ("deserved", "deserved"),
    )
    quota = f"over the {level}'s GPU quota{in_pool(f)}"
    if doubts:  # both sides' figures are the evidence's: the statement, and what was read now
        yet = ", and ".join(why)
        headline = f"The scheduler says it is non-preemptible and {quota}; yet {yet}."
    elif said and level == DEPARTMENT:
        headline = f"Non-preemptible and {quota}{_theirs(said[0], f, level, *names)}."
    else:
        figures = known(*((label, getattr(f, name)) for label, name in names))
        headline = f"Non-preemptible and {quota}{figures}."
    cited = (*said[:1], typed) if typed else said[:1]
    return verdict(
        R.NON_PREEMPTIBLE_OVER_QUOTA,
        f,
        headline,
        *cited,
        lines=lines,
        level=level,
        doubts=doubts,
        missing=_not_shown(ev, said, f) or _unread(said[0] if said else None, f, level),
    )


def _doubts(
    ev: PendingEvidence, said: Said, now: PoolFigures, requested: float | None, level: Level
) -> tuple[tuple[Doubt, ...], list[str], tuple[EvidenceLine, ...]]:
    """What read now disagrees with a typed non-preemptible-over-quota statement.

    The doubts, the headline's words for them, and the evidence lines with what was read:
    why the workload reads preemptible (the project's figures now are its own line already).
    `now` are the project's figures as get_project gave them; they count against the
    statement only when not older than it (a status message has no time: it may lag).
    """
    doubts: list[Doubt] = []
    words: list[str] = []
    lines: list[EvidenceLine] = []
    movable = preemptibility(ev.workload)
    if movable.preemptible is True:
        doubts.append(Doubt.PREEMPTIBLE)
        words.append("the workload reads preemptible")
        lines.append(
            EvidenceLine(text=f"The workload reads preemptible ({movable.why})", source=STATUS)
        )
    older = now.project_at is not None and said.at is not None and now.project_at < said.at
    read = (
        level == PROJECT
        and requested is not None
        and now.deserved is not None
        and now.allocated_np is not None
        and not older
    )
    if read and (now.allocated_np or 0.0) + (requested or 0.0) <= (now.deserved or 0.0):
        doubts.append(Doubt.QUOTA_NOW_COVERS)
        words.append("the project's figures now leave room for it")
    return tuple(doubts), words, tuple(lines)


def _unread(said: Said | None, f: PoolFigures, level: Level) -> tuple[str, ...]:
    """The figures P5 reports that neither the scheduler nor get_project gave: named, never 0.

    A project's figure names get_project, the read that should have given it: the scheduler's
    statement (quoted above) may state one in words its numbers are not read from.
    """
    where = in_pool(f)
    read = f" (no {GET_PROJECT} figure for this pool)" if level == PROJECT else ""
    labels = {
        "requested": "the workload's GPU request",
        "deserved": f"the {level}'s deserved GPUs{where}{read}",
        "allocated_np": f"the {level}'s non-preemptible GPUs allocated{where}{read}",
    }
    if level == DEPARTMENT:  # only the scheduler's statement carries a department's figures
        given = said.values if said is not None and resource(said) == GPUS else {}
        return tuple(
            label
            for name, label in labels.items()
            if quantity_number(given.get(name)) is None
            and (name != "requested" or f.requested is None)
        )
    return tuple(label for name, label in labels.items() if getattr(f, name) is None)
