"""Per asker: a preemptor (or candidate), or a department's figures, they may not read: hidden.

The report is computed once (and may be shared by every asker of the workload); each asker
then gets their own view. A named party whose workload the asker's access check refuses
(asked with its cluster, project and kind, like the workload itself), or whose kind is not
known so it cannot be checked, becomes "a workload in another project" (or "another workload
in this project") everywhere the report names it, and its JSON members are null; the words
are the same whether a workload of its name was found, not found or not read. A candidate
that only its timing ties to the eviction is left out instead. An asker who may not read the
preemptor (or the candidate a contradicted record names) gets the answer written for them
(`Report.without_preemptor`): nothing in it follows from the preemptor's workload (whether
the departments differ, whose queue the reclaimer's is, that queue's figures, how its
priority compares), which no masking of names would hide. A department
queue of the reclaim line (`QueueFigures`) whose department the asker may not read (or that
is not known, so it cannot be checked) loses its figures everywhere: its line in the quoted
record, the position line, the headline's sentence and the advice that follow from it; the
answer says they are not shown. Departments are cut first: a party's stand-in never meets
their texts half-replaced.
"""

from __future__ import annotations

import re

from diagnosis.access import Authorize, WorkloadAccess, may_read_department
from diagnosis.preemption.party import NOT_FOUND, UNREAD, candidate_line, describe
from diagnosis.report import Report
from diagnosis.report_facts import Party, PreemptionFacts, QueueFigures

__all__ = ["for_asker"]


async def _readable(party: Party, authorize: Authorize) -> bool:
    if party.kind is None or party.project is None:
        return False  # not checkable: never named
    return await authorize(WorkloadAccess(party.cluster_id, party.project, party.kind))


def _masker(hidden: list[Party], known: set[str]) -> re.Pattern[str] | None:
    """One pattern for every text that names a hidden party (longest first), or None."""
    names = {text for party in hidden for text, _ in party.mentions if text not in known}
    if not names:
        return None
    ordered = sorted(names, key=len, reverse=True)
    alternatives = "|".join(re.escape(n) for n in ordered)
    return re.compile(rf"(?<![\w.-])(?:{alternatives})(?![\w-])")


def _queue_line(queue: str) -> re.Pattern[str]:
    """A queue's line in a quoted record: `<queue> uses …` to its end (or the quote's)."""
    name = re.escape(queue)
    return re.compile(rf"(?<![\w.-]){name} uses [^\n]*?(?:queue priority of \d{{1,9}}\.?|$)")


def _cut(text: str, queue: QueueFigures) -> str:
    for said, stand_in in queue.mentions:
        text = text.replace(said, stand_in)
    return _queue_line(queue.queue).sub(queue.stand_in, text) if queue.queue else text


async def _departments(report: Report, facts: PreemptionFacts, authorize: Authorize) -> Report:
    """`report` without the figures of every department queue the asker may not read."""
    hidden = [
        q
        for q in facts.queues
        if not q.hidden and not await may_read_department(authorize, q.cluster_id, q.department_id)
    ]
    if not hidden:
        return report

    def cut(text: str) -> str:
        for queue in hidden:
            text = _cut(text, queue)
        return text

    blank = {"department_id": None, "queue": "", "stand_in": "", "mentions": (), "hidden": True}
    queues = tuple(q.model_copy(update=blank) if q in hidden else q for q in facts.queues)
    evidence = (e.model_copy(update={"text": cut(e.text)}) for e in report.evidence)
    return report.model_copy(
        update={
            "headline": cut(report.headline),
            "evidence": tuple(e for e in evidence if e.text),
            "recommendations": tuple(r for r in map(cut, report.recommendations) if r),
            "missing": (*map(cut, report.missing), *(q.withheld for q in hidden)),
            "preemption": facts.model_copy(update={"queues": queues}),
        }
    )


async def for_asker(report: Report, authorize: Authorize | None) -> Report:
    """`report` as this asker may see it: every party and department they may not read masked."""
    facts = report.preemption
    if facts is None or authorize is None:
        return report
    parties = [p for p in (facts.by, *facts.candidates) if p is not None]
    checked = [(p, await _readable(p, authorize)) for p in parties]
    return await _for(report, checked, authorize)


async def _for(report: Report, checked: list[tuple[Party, bool]], authorize: Authorize) -> Report:
    """`report` cut to the asker whose parties were `checked`, and what it carries likewise.

    One who may read the preemptor keeps the answer for those who may not, cut to them too
    (a teammate shown it later gets no more than either may see).
    """
    facts = report.preemption
    if facts is None:
        return report
    hidden = [p for p, ok in checked if not ok]
    unseen = report.without_preemptor
    # The party a record named: the preemptor, or the candidate a contradicted record names.
    named = [p for p in hidden if p == facts.by or (p in facts.candidates and not p.timed)]
    if unseen is not None and named:
        report = unseen  # the answer for them: the same parties, nothing of the preemptor's
    elif unseen is not None:
        report = report.model_copy(
            update={"without_preemptor": await _for(unseen, checked, authorize)}
        )
    report = await _departments(report, report.preemption or facts, authorize)
    facts = report.preemption or facts
    if not hidden:
        return report
    # A candidate only its timing ties to the eviction is neither named nor said to exist.
    unlisted = {candidate_line(p) for p in hidden if p.timed}
    evidence = tuple(e for e in report.evidence if e.text not in unlisted)
    candidates = tuple(c for c in facts.candidates if not (c.timed and c in hidden))
    # What the asker already knows stays: their own workload's project and namespace, and
    # the project of any party they may read.
    known = (
        {report.workload.project or "", report.workload.namespace or ""}
        if report.workload
        else set()
    )
    known |= {p.project or "" for p, ok in checked if ok}
    stand_ins = {text: stand_in for p in hidden for text, stand_in in p.mentions}
    pattern = _masker(hidden, known)

    # Whole descriptions first (no priority left behind), with whether its workload was found.
    shown = [
        (f"{describe(p)}{how}", describe(p.model_copy(update={"hidden": True})))
        for p in hidden
        for how in (NOT_FOUND, UNREAD, "")
    ]

    def mask(text: str) -> str:
        for named, stand_in in shown:
            text = text.replace(named, stand_in)
        return text if pattern is None else pattern.sub(lambda m: stand_ins[m.group(0)], text)

    def masked(party: Party | None) -> Party | None:
        """The party as this asker's report keeps it: nothing of it left but the stand-in."""
        if party is None or party not in hidden:
            return party
        stand_in = describe(party.model_copy(update={"hidden": True}))
        blank = {"project": None, "priority": None, "priority_class": None, "kind": None}
        return party.model_copy(update={"name": stand_in, "mentions": (), "hidden": True, **blank})

    new_facts = facts.model_copy(
        update={
            "by": masked(facts.by),
            "candidates": tuple(p for p in (masked(c) for c in candidates) if p),
        }
    )
    return report.model_copy(
        update={
            "headline": mask(report.headline),
            "evidence": tuple(e.model_copy(update={"text": mask(e.text)}) for e in evidence),
            "recommendations": tuple(mask(r) for r in report.recommendations),
            "missing": tuple(mask(m) for m in report.missing),
            "preemption": new_facts,
        }
    )
