"""Whose limit or quota a typed statement is about, and the evidence with a department's cut out.

The scheduler checks a workload's queue and then its department's for both typed reasons
(`OverLimit`, `NonPreemptibleOverQuota`); a statement at the department level carries the
department's limit, usage and quota (its text, a PodGroup condition's `queueDetails`), which
sum other projects'. Its level is its `orgType` (only the status's pending scheduling
messages carry one: the first of them decides for every statement of its kind about that
node pool), else, for a statement without one, whether its text names the workload's
department's queue (the department's name, not the project's). Someone who may not read
that department gets the evidence `without_department`: the department's quota and usage
unread, and every department-level statement, current or not trusted, kept for its reason
and the workload's own request only: its numbers dropped, its words in a stand-in.
"""

from __future__ import annotations

from collections.abc import Iterable

from diagnosis.pending.evidence import PendingEvidence, Said
from diagnosis.pending.figures import DEPARTMENT, PROJECT, Level
from diagnosis.pending.texts import Saying

__all__ = [
    "LEVELLED",
    "department_said",
    "level_of",
    "names_department",
    "speaks_of_department",
    "stand_in",
    "without_department",
]

#: The typed reasons the scheduler checks at the project's level and then the department's.
LEVELLED = {
    Saying.OVER_LIMIT: "OverLimit",
    Saying.NON_PREEMPTIBLE_OVER_QUOTA: "NonPreemptibleOverQuota",
}
#: What a department-level statement keeps: the workload's own request, what it measures.
_KEPT = ("requested", "resource", "unit")


def _named(value: str | None) -> str:
    return (value or "").strip().casefold()


def names_department(ev: PendingEvidence, said: Said) -> bool:
    """Whether `said` names the workload's department's queue (by name, not the project's)."""
    queue = _named(said.values.get("queue"))
    department = _named(ev.department.name if ev.department else ev.workload.department_name)
    project = _named(ev.project.name if ev.project else ev.workload.project_name)
    return bool(queue) and queue == department and queue != project


def level_of(ev: PendingEvidence, said: list[Said]) -> tuple[Level, Said | None]:
    """Whose quota or limit these statements (of one kind, one pool, as `saying` orders them) are.

    With the statement saying so by its `orgType` when one does (cited with the rest); else
    the deciding statement's own queue decides; else the project's.
    """
    typed = next((s for s in said if s.org_type), None)
    if typed is not None:
        department = (typed.org_type or "").upper() == DEPARTMENT.upper()
        return (DEPARTMENT, typed) if department else (PROJECT, None)
    if said and names_department(ev, said[0]):
        return DEPARTMENT, None
    return PROJECT, None


def department_said(ev: PendingEvidence) -> set[int]:
    """Every statement, current or not trusted, about the workload's department (by `id`)."""
    found: set[int] = set()
    for kind in LEVELLED:
        pools: list[str | None] = [*ev.pools()] or [None]
        for pool in pools:
            current = ev.saying(kind, pool=pool)
            if current and level_of(ev, current)[0] == DEPARTMENT:
                found.update(map(id, current))
                found.update(id(s) for s in ev.stale if s.saying is kind and _about(ev, s, pool))
        found.update(
            id(s) for s in (*ev.said, *ev.stale) if s.saying is kind and names_department(ev, s)
        )
    return found


def _about(ev: PendingEvidence, said: Said, pool: str | None) -> bool:
    return pool is None or ev.about(said, pool)


def stand_in(ev: PendingEvidence) -> str:
    """What is quoted instead of a department-level statement's words."""
    name = ev.department.name if ev.department else ev.workload.department_name
    whose = f"department {name}'s" if name else "its department's"
    return f"[the scheduler's words on {whose} figures: not shown here]"


def _cut(said: Said, words: str) -> Said:
    """`said` kept for its reason and request; at the department's level, as it was found."""
    values = {k: v for k, v in said.values.items() if k in _KEPT}
    text = f"{LEVELLED[said.saying]}: {words}"
    update = {"values": values, "text": text, "withheld": True, "org_type": DEPARTMENT.upper()}
    return said.model_copy(update=update)


def _each(said: Iterable[Said], cut: set[int], words: str) -> tuple[Said, ...]:
    return tuple(_cut(s, words) if id(s) in cut else s for s in said)


def without_department(ev: PendingEvidence) -> PendingEvidence:
    """`ev` as someone who may not read the workload's department may be told it."""
    cut = department_said(ev)
    words = stand_in(ev)
    withheld = ev.department is not None or ev.department_withheld or bool(cut)
    return ev.model_copy(
        update={
            "department": None,
            "department_withheld": withheld,
            "said": _each(ev.said, cut, words),
            "stale": _each(ev.stale, cut, words),
        }
    )


def speaks_of_department(ev: PendingEvidence) -> bool:
    """Whether any statement read is about the workload's department (see `level_of`)."""
    return bool(department_said(ev))
