"""A reclaim's advice says what its headline says of the victim's quota position, for every asker.

Whose queue the reclaim line names (its project's, its department's, not known, or known only
from the preemptor's department), whether it was over its quota (over, within, not known),
whether the asker may read the preemptor and the victim's department: in every combination
the advice follows from the sentence the asker reads on line one. A within-quota victim is
never told to stay within quota (reclaim should not have taken it: report it), and an asker
shown no position gets the general advice.
"""

from __future__ import annotations

import itertools

import pytest

from diagnosis.preemption.compose import compose_preemption
from diagnosis.preemption.kinds import decide_kind
from diagnosis.preemption.party import party
from diagnosis.preemption.visibility import for_asker
from diagnosis.report import Report
from diagnosis.runai.models import Workload
from tests.diagnosis.preemption import builders as b
from tests.diagnosis.preemption.askers import Asker
from tests.factories import workload
from tests.line_one import HEADLINE_MAX

#: Whose queue the reclaim line's victim queue is: its name, and the preemptor's department
#: (`by-structure`: a name that is neither, told only by the two departments differing).
LEVELS: dict[str, tuple[str, str | None]] = {
    "project": ("ml-team", "1"),
    "department": ("ml-platform", "1"),
    "unknown": ("q-1", None),
    "by-structure": ("q-1", "2"),
}
#: The victim queue's use against its quota of 8 GPUs ("some": a use with no figure in it).
POSITIONS: dict[str, str] = {"over": "12 GPUs", "within": "6 GPUs", "not-known": "some"}
#: Whether the asker may read the preemptor, and the two workloads' departments.
PREEMPTOR = ("preemptor-visible", "preemptor-hidden")
DEPARTMENTS = ("department-read", "department-not-read")
COMBINATIONS = list(itertools.product(LEVELS, POSITIONS, PREEMPTOR, DEPARTMENTS))
GENERAL = "Reclaim takes only GPUs used beyond the deserved quota"
REPORT_IT = "report it to a Run:ai administrator with the eviction record above"
#: What the asker's line one states, and the advice that follows from it.
STATED: dict[str, tuple[str, str]] = {
    "over-project": ("This workload's project was over its quota then", "stay within the project's deserved quota"),
    "over-department": ("This workload's department ml-platform was over its quota then", "ask an administrator about the department's deserved quota"),
    "over-structure": ("This workload's department q-1 was over its quota then", "ask an administrator about the department's deserved quota"),
    "over-queue": ("This workload's queue q-1 (its project's or department's) was over its quota then", "if that queue is its department's"),
    "within-project": ("This workload's project was within its quota then: reclaim should not", REPORT_IT),
    "within-department": ("This workload's department ml-platform was within its quota then: reclaim should not", REPORT_IT),
    "within-structure": ("This workload's department q-1 was within its quota then: reclaim should not", REPORT_IT),
    "within-queue": ("This workload's queue q-1 (its project's or department's) was within its quota then: reclaim should not", REPORT_IT),
    "not-known": ("Whether this workload's project was over its quota then is not known.", GENERAL),
    "not-shown": ("over its quota then is not shown here.", GENERAL),
    "department-not-shown": ("This workload's department's quota position then is not shown here.", GENERAL),
}  # fmt: skip


def _stated(level: str, position: str, preemptor: str, departments: str) -> str:
    """What the asker's headline should state of the victim's quota position."""
    if position == "not-known":
        return "not-known"
    whose = {"project": "project", "department": "department", "unknown": "queue"}.get(
        level, "structure" if preemptor == "preemptor-visible" else "queue"
    )
    if whose != "project" and departments == "department-not-read":
        return "department-not-shown" if whose in ("department", "structure") else "not-shown"
    return f"{position}-{whose}"


def _reclaimer(department: str | None) -> Workload:
    return workload(
        id="5e7a1c3d-8b2f-4a6e-9c1d-0f2e3a4b5c6d",
        name="serve-70b",
        type="Inference",
        projectName="nlp",
        namespace="runai-nlp",
        departmentId=department,
        priority=125,
    )


def _reclaim(level: str, position: str) -> Report:
    queue, department = LEVELS[level]
    text = b.RECLAIM.replace("ml-team uses 12 GPUs", f"{queue} uses {POSITIONS[position]}")
    serve = _reclaimer(department)
    by = party(serve, podgroup="pg-serve-70b-0-1a2b3c4d", namespace="runai-nlp", project="nlp",
               victim=b.victim(), priorities=None)  # fmt: skip
    victim = b.victim(departmentId="1", departmentName="ml-platform")
    ev = b.preemption_evidence(victim, events=[b.evict(text)], by=by)
    ev = ev.model_copy(update={"preemptor_workload": serve})
    return compose_preemption(ev, decide_kind(ev))


@pytest.mark.parametrize(("level", "position", "preemptor", "departments"), COMBINATIONS)
async def test_the_reclaim_advice_follows_what_line_one_states(
    level: str, position: str, preemptor: str, departments: str
) -> None:
    report = _reclaim(level, position)
    asker = Asker(
        *([("nlp", "Inference")] if preemptor == "preemptor-visible" else []),
        departments=("1", "2") if departments == "department-read" else (),
    )
    shown = await for_asker(report, asker)
    stated = _stated(level, position, preemptor, departments)
    headline, advice = STATED[stated]
    assert headline in shown.headline
    assert len(shown.headline) <= HEADLINE_MAX
    assert advice in shown.recommendations[0]
    said = " ".join(shown.recommendations)
    if stated.startswith("within"):
        # Reclaim should not have taken it: staying within quota is what it already did.
        assert "stay within" not in said
        assert GENERAL not in said
    if stated.startswith("over"):
        assert REPORT_IT not in said
    if departments == "department-not-read" and stated != "over-project":
        # No department figure, and no advice that follows from one, reaches this asker.
        assert "department's deserved quota" not in said
        assert "ml-platform was" not in shown.headline


def test_every_position_line_one_can_state_is_tested() -> None:
    assert {_stated(*combination) for combination in COMBINATIONS} == set(STATED)
