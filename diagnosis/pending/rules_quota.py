"""The typed quota rows: over the limit (P4), non-preemptible over quota (P5).

Whose limit or quota (the project's, or the department's when the typed reason's `orgType`
says so) and which resource (GPUs, or the CPU cores or memory the scheduler's text names)
decide the words, and whether the scheduler's numbers are the project's GPU figures: only
then do they replace them; otherwise they are shown as the scheduler's, in their own unit.
"""

from __future__ import annotations

from diagnosis.kube.scheduling_models import quantity_number
from diagnosis.pending.evidence import PendingEvidence, Said
from diagnosis.pending.figures import (
    DEPARTMENT,
    GPUS,
    PROJECT,
    Level,
    PoolFigures,
    gpus,
    preemptible,
    resource,
)
from diagnosis.pending.texts import Saying
from diagnosis.pending.verdict import PendingReason, Verdict, in_pool, known, verdict

__all__ = ["over_limit", "over_quota_non_preemptible"]

R = PendingReason


def _typed(said: list[Said]) -> tuple[Level, Said | None]:
    """Whose quota or limit these statements are about, and the one saying which (`orgType`).

    Only the status's pending scheduling messages carry `orgType`, not the dated event that
    carries the numbers; without one, the project's.
    """
    typed = next((s for s in said if s.org_type), None)
    department = typed is not None and (typed.org_type or "").upper() == "DEPARTMENT"
    return (DEPARTMENT, typed) if department else (PROJECT, None)


def _theirs(said: Said, fig: PoolFigures, level: Level, *names: tuple[str, str]) -> str:
    """The scheduler's figures for a department or another resource, with their unit, as its.

    Never the project's GPU figures under another name: without numbers in the statement,
    only the workload's own GPU request is known.
    """
    unit = said.values.get("unit", resource(said))
    read = [(label, quantity_number(said.values.get(name))) for label, name in names]
    shown = [f"{label} {gpus(value)} {unit}" for label, value in read if value is not None]
    if not shown:
        return known(("requested", fig.requested)) if resource(said) == GPUS else ""
    whose = f" for the {level}" if level == DEPARTMENT else ""
    return f": {', '.join(shown)} (the scheduler's figures{whose})"


def over_limit(ev: PendingEvidence, fig: PoolFigures) -> Verdict | None:
    """P4: the project's (or department's) limit: allocated + requested would exceed it."""
    said = ev.saying(Saying.OVER_LIMIT, pool=fig.pool)
    if not said:
        return None
    (level, typed), unit = _typed(said), resource(said[0])
    f = fig.with_said(said[0], level)
    names = (("limit", "limit"), ("allocated", "allocated"), ("requested", "requested"))
    figures = (
        known(*((label, getattr(f, name)) for label, name in names))
        if (level, unit) == (PROJECT, GPUS)
        else _theirs(said[0], f, level, *names)
    )
    headline = f"Over the {level}'s {unit} limit{in_pool(f)}{figures}."
    cited = (said[0], typed) if typed else (said[0],)
    return verdict(R.OVER_LIMIT, f, headline, *cited, level=level, unit=unit)


def over_quota_non_preemptible(ev: PendingEvidence, fig: PoolFigures) -> Verdict | None:
    """P5: non-preemptible work runs only inside deserved quota, and this would exceed it."""
    said = ev.saying(Saying.NON_PREEMPTIBLE_OVER_QUOTA, pool=fig.pool)
    level, typed = _typed(said)
    f = fig.with_said(said[0], level) if said else fig
    numbers = (f.requested, f.deserved, f.allocated_np)
    over = None not in numbers and (f.allocated_np or 0) + (f.requested or 0) > (f.deserved or 0)
    if not said and not (preemptible(ev) is False and over):
        return None
    names = (
        ("requested", "requested"),
        ("non-preemptible allocated", "allocated_np"),
        ("deserved", "deserved"),
    )
    figures = (
        _theirs(said[0], f, level, *names)
        if said and level == DEPARTMENT
        else known(*((label, getattr(f, name)) for label, name in names))
    )
    headline = f"Non-preemptible and over the {level}'s GPU quota{in_pool(f)}{figures}."
    cited = (*said[:1], typed) if typed else said[:1]
    return verdict(R.NON_PREEMPTIBLE_OVER_QUOTA, f, headline, *cited, level=level)
