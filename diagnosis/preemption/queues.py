"""The reclaim line's two queues in the answer: what each says, and whose figures are whose.

The scheduler's reclaim text gives the victim's queue and the reclaimer's, each with its use
and quota at the moment it decided; when the two projects have different departments these
are the departments' queues. The headline states this workload's quota position, naming whose
it is (its project's, its department's); the reclaimer's queue is an evidence line naming
whose it is (never "GPUs its project deserves" from a department's line), so line one stays
short. A department's figures sum other projects', so every text that gives them is listed
(`QueueFigures`) for `visibility` to hide from an asker who may not read that department.
The reclaimer's queue is the preemptor's: an answer for whoever may not read the preemptor
(`seen` False) lists it whatever its level, to be cut for every asker who is checked, and
says nothing of whose it is (its project's or its department's would tell whether the two
departments differ).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from diagnosis.pending.figures import DEPARTMENT, PROJECT, Level, gpus
from diagnosis.preemption.evidence import PreemptionEvidence
from diagnosis.preemption.fairness import QuotaPosition, names, queue_level
from diagnosis.preemption.kinds import KindVerdict
from diagnosis.preemption.texts import QueueLine
from diagnosis.report import EvidenceLine
from diagnosis.report_facts import QueueFigures

__all__ = ["RECLAIMER", "VICTIM", "ReclaimSay", "queue_figures", "reclaim_say"]

VICTIM: Final = "victim"
RECLAIMER: Final = "reclaimer"
_NOT_SHOWN = (
    "not shown here: a department's figures sum other projects', and are shown only to whoever "
    "may read that department in Run:ai"
)
#: Withheld, of a victim queue whose level is not known.
_MAYBE_NOT_SHOWN = (
    "this workload's queue figures at the eviction (not shown here: the queue may be its "
    "department's, whose figures sum other projects' and are shown only to whoever may read "
    "that department in Run:ai)"
)
#: Withheld, of the reclaimer's queue, from whoever may not read the reclaimer.
_THEIRS_NOT_SHOWN = (
    "the reclaimer's queue figures at the eviction (not shown here: they are shown only to "
    "whoever may read the workload that reclaimed them in Run:ai)"
)


@dataclass(frozen=True)
class ReclaimSay:
    """What the reclaim answer says of each queue: the headline's sentence, the reclaimer's line.

    `reclaimer`: the evidence line on the reclaimer's queue (None without its figures);
    `victim`: the headline's sentence on this workload's queue; `hidden_victim`: that sentence
    for an asker who may not see its figures; `ours` and `theirs`: the two lines (None: not
    in the record), each with whose queue it is (`ours_level`, `theirs_level`; None: not
    known).
    """

    reclaimer: EvidenceLine | None
    victim: str
    hidden_victim: str
    ours: QueueLine | None = None
    ours_level: Level | None = None
    theirs: QueueLine | None = None
    theirs_level: Level | None = None


def _reclaimer_level(
    ev: PreemptionEvidence, line: QueueLine, victims: Level | None, *, seen: bool
) -> Level | None:
    """Whose queue the reclaimer's line is: by its name, else the same level as the victim's.

    Its name is compared with the preemptor's project and department only for whoever may
    read the preemptor (`seen`).
    """
    theirs = ev.preemptor_workload if seen else None
    if theirs is not None:
        pools = {*theirs.current_node_pools, *theirs.requested_node_pools}
        project = names(line.queue, theirs.project_name, pools)
        if project != names(line.queue, theirs.department_name, pools):
            return PROJECT if project else DEPARTMENT
    return victims


def _reclaimer_line(
    line: QueueLine | None, level: Level | None, source: str
) -> EvidenceLine | None:
    """The reclaimer's queue as the record gives it, naming whose queue it is."""
    if line is None or line.uses is None or line.quota is None:
        return None
    names: dict[Level | None, str] = {DEPARTMENT: "department", PROJECT: "project's queue"}
    whose = names.get(level, "queue")
    text = (
        f"The reclaimer's {whose} {line.queue}: {gpus(line.uses)} of its {gpus(line.quota)} "
        "quota GPUs in use at the eviction"
    )
    return EvidenceLine(text=text, source=source)


def _victim_sentence(position: QuotaPosition) -> tuple[str, str]:
    """The headline's sentence on this workload's queue, and the one for who may not see it.

    Whose queue it is, and whether it was over: the figures are in the evidence, and what
    is not known of the project's own position under Not measured.
    """
    queue = position.queue.queue if position.queue else ""
    if position.over is None:
        text = " Whether this workload's project was over its quota then is not known."
        return text, text
    if position.level == PROJECT:
        whose = "This workload's project"
    elif position.level == DEPARTMENT:
        whose = f"This workload's department {queue}"
    else:
        whose = f"This workload's queue {queue} (its project's or department's)"
    if position.over:
        said = f" {whose} was over its quota then, so its GPUs were on loan."
    else:
        said = f" {whose} was within its quota then: reclaim should not have taken them."
    hidden = (
        " This workload's department's quota position then is not shown here."
        if position.level == DEPARTMENT
        else " Whether this workload's project or department was over its quota then is not "
        "shown here."
    )
    return said, hidden


def reclaim_say(
    ev: PreemptionEvidence, verdict: KindVerdict, position: QuotaPosition, *, seen: bool
) -> ReclaimSay:
    """What the reclaim headline says of the two queues (`seen`: see `queue_level`)."""
    said = verdict.eviction.said if verdict.eviction else None
    queues = said.queues if said is not None else ()
    ours = queues[0] if queues else None
    ours_level = queue_level(ev, ours, seen=seen) if ours is not None else None
    theirs = queues[1] if len(queues) > 1 else None
    level = _reclaimer_level(ev, theirs, ours_level, seen=seen) if theirs is not None else None
    victim, hidden = _victim_sentence(position)
    source = verdict.eviction.source if verdict.eviction else "get_workload_status"
    return ReclaimSay(
        reclaimer=_reclaimer_line(theirs, level, source),
        victim=victim,
        hidden_victim=hidden,
        ours=ours,
        ours_level=ours_level,
        theirs=theirs,
        theirs_level=level,
    )


def _withheld(whose: str) -> str:
    return f"{whose} department's queue figures at the eviction ({_NOT_SHOWN})"


def queue_figures(
    ev: PreemptionEvidence,
    position: QuotaPosition,
    say: ReclaimSay,
    advice: tuple[str, str] | None,
    *,
    seen: bool,
) -> tuple[QueueFigures, ...]:
    """The queues of the quoted record whose figures an asker may not be allowed to see.

    This workload's queue unless it is its project's; the reclaimer's when it is a
    department's, or whatever it is when the answer is for whoever may not read the
    preemptor (`seen` False: no department to check, so it is cut for every checked asker).
    `advice`: the reclaim advice given, and the one for an asker who may not see the
    victim's position (None: not a reclaim answer, whose headline and advice state none). A
    queue whose level is not known may be a department's: listed too.
    """
    found: list[QueueFigures] = []
    w = ev.workload
    if say.ours is not None and say.ours_level != PROJECT:
        mentions = []
        if position.queue is not None:  # the position the headline, a line and advice state
            if advice is not None:
                mentions.append((say.victim, say.hidden_victim))
            if position.line is not None:
                mentions.append((position.line.text, ""))
            if advice is not None and advice[0] != advice[1]:
                mentions.append(advice)
        found.append(
            QueueFigures(
                whose=VICTIM,
                cluster_id=w.cluster_id,
                department_id=w.department_id,
                queue=say.ours.queue,
                stand_in=(
                    "[this workload's department's queue: not shown here]"
                    if say.ours_level == DEPARTMENT
                    else "[this workload's queue: not shown here]"
                ),
                mentions=tuple(mentions),
                withheld=(
                    _withheld("this workload's")
                    if say.ours_level == DEPARTMENT
                    else _MAYBE_NOT_SHOWN
                ),
            )
        )
    clause = ((say.reclaimer.text, ""),) if say.reclaimer else ()
    if say.theirs is not None and not seen:
        found.append(
            QueueFigures(
                whose=RECLAIMER,
                cluster_id=w.cluster_id,
                queue=say.theirs.queue,
                stand_in="[the reclaimer's queue: not shown here]",
                mentions=clause,
                withheld=_THEIRS_NOT_SHOWN,
            )
        )
    elif say.theirs is not None and say.theirs_level != PROJECT:
        theirs = ev.preemptor_workload
        found.append(
            QueueFigures(
                whose=RECLAIMER,
                cluster_id=theirs.cluster_id if theirs else w.cluster_id,
                department_id=theirs.department_id if theirs else None,
                queue=say.theirs.queue,
                stand_in="[the reclaimer's department's queue: not shown here]",
                mentions=clause,
                withheld=_withheld("the reclaimer's"),
            )
        )
    return tuple(found)
