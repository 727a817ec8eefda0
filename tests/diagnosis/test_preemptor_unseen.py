"""What only the preemptor's workload tells reaches only whoever may read it, on every path.

Scenario `preempted-reclaim-department`, with the reclaim line's queues renamed `q-1` (the
victim's) and `q-2` (the reclaimer's): names that are neither project's nor department's, so
whose queue the victim's is follows from the preemptor's department (the scheduler gives the
parent queues when the two departments differ). An asker who may not read the preemptor
(serve-llama-70b in nlp) must not learn whether its department is this workload's: their
answer is the same whichever it is, asked, shared with others, or shown again to them. Nor
do they get the reclaimer's queue: its figures, or whose queue (project or department) it is.
Nor, when the line names this workload's department by name, why it does (the departments
differ), nor how the preemptor's priority compares with the victim's: whichever department or
priority the preemptor has, their answer is the same.
"""

from __future__ import annotations

import pytest

from bot.app.backends import simulated
from bot.app.demo.scenarios import bundled_scenario, request_from_expectation
from diagnosis import (
    DepartmentAccess,
    Outcome,
    Report,
    Symptom,
    WorkloadAccess,
    diagnose,
    for_viewer,
)
from diagnosis.evidence import Gap
from diagnosis.examine import _with_gaps
from diagnosis.preemption.compose import compose_preemption
from diagnosis.preemption.kinds import UNSEEN_PRIORITY, decide_kind
from runai_sim.scenario import Scenario
from tests.diagnosis.doubles import Memo
from tests.diagnosis.preemption import builders as b
from tests.line_one import HEADLINE_MAX

RECLAIM = bundled_scenario("preempted-reclaim-department")
ML_PLATFORM, RESEARCH = "1", "2"
#: The reclaimer's queue in an answer: its figures, and whose queue it is.
THEIRS = (
    "q-2",
    "10 GPUs with a quota of 40",
    "10 of its 40",
    "reclaimer's department",
    "reclaimer's proj",
)


class Asker:
    """Reads every kind in `projects`, the `kinds` (project, kind) and `departments` (IDs)."""

    def __init__(
        self,
        *projects: str,
        kinds: tuple[tuple[str, str], ...] = (),
        departments: tuple[str, ...] = (),
    ) -> None:
        self.projects = set(projects)
        self.kinds = set(kinds)
        self.departments = set(departments)

    async def __call__(self, access: WorkloadAccess | DepartmentAccess, /) -> bool:
        if isinstance(access, DepartmentAccess):
            return access.department_id in self.departments
        return access.project in self.projects or (access.project, access.kind) in self.kinds


#: Alice-like: her project and both departments, not the preemptor's project.
NOT_NLP = Asker("ml-team", departments=(ML_PLATFORM, RESEARCH))
#: The same without the victim's department.
NOT_NLP_NOR_DEPARTMENTS = Asker("ml-team")
#: A kind-specific role: nlp's trainings, not the preemptor (an inference).
TRAININGS_OF_NLP = Asker(
    "ml-team", kinds=(("nlp", "Training"),), departments=(ML_PLATFORM, RESEARCH)
)
#: Bob-like: the preemptor too.
EVERYTHING = Asker("ml-team", "nlp", departments=(ML_PLATFORM, RESEARCH))


def _unnamed_queues(theirs: str, *, rename: bool = True) -> Scenario:
    """The scenario with queues named q-1 and q-2, and the preemptor in department `theirs`.

    `rename` False: the reclaim line keeps the departments' names (ml-platform, research).
    """
    workloads = [w.model_copy(deep=True) for w in RECLAIM.workloads]
    for entry in workloads:
        events = [*(entry.events or ()), *(r["spec"].get("event") or {} for r in entry.history)]
        for record in events:
            if "message" in record and rename:
                text = record["message"].replace("ml-platform uses", "q-1 uses")
                record["message"] = text.replace("research uses", "q-2 uses")
        if entry.workload["name"] == "serve-llama-70b":
            name = "ml-platform" if theirs == ML_PLATFORM else "research"
            entry.workload.update({"departmentId": theirs, "departmentName": name})
    return RECLAIM.model_copy(update={"workloads": workloads})


async def _asked(scenario: Scenario, asker: Asker, *, share: Memo | None = None) -> Report:
    request = request_from_expectation(scenario, scenario.expect[0])
    async with simulated(scenario, retries=0, transport="asgi") as up:
        return await diagnose(
            request, runai=up.runai, now=scenario.now, authorize=asker, share=share
        )


def _texts(report: Report) -> list[str]:
    return [e.text for e in report.evidence]


def _shown(report: Report) -> str:
    """Everything the asker is shown (the answer, its JSON), not what it carries for others."""
    return report.model_copy(update={"without_preemptor": None}).model_dump_json()


@pytest.mark.parametrize(
    "asker",
    [
        pytest.param(NOT_NLP, id="reads-both-departments"),
        pytest.param(NOT_NLP_NOR_DEPARTMENTS, id="reads-no-department"),
        pytest.param(TRAININGS_OF_NLP, id="reads-nlp-but-not-inferences"),
    ],
)
async def test_the_answer_is_the_same_whether_the_preemptors_department_is_theirs_or_not(asker):
    same = await _asked(_unnamed_queues(ML_PLATFORM), asker)
    other = await _asked(_unnamed_queues(RESEARCH), asker)
    assert same == other
    assert "serve-llama-70b" not in same.model_dump_json()
    assert "different departments" not in _shown(same)
    assert "department's queue q-1" not in _shown(same)
    for said in THEIRS:
        assert said not in same.model_dump_json(), said
    assert "[the reclaimer's queue: not shown here]" in same.evidence[0].text
    assert same.preemption is not None
    assert same.preemption.victim_over_quota is None  # whose queue it was is not known to them


async def test_whoever_may_read_the_preemptor_is_told_whose_queue_it_was():
    same = await _asked(_unnamed_queues(ML_PLATFORM), EVERYTHING)
    other = await _asked(_unnamed_queues(RESEARCH), EVERYTHING)
    assert "This workload's project was over its quota then" in same.headline
    said = "quota GPUs in use at the eviction"
    assert f"The reclaimer's project's queue q-2: 10 of its 40 {said}" in _texts(same)
    assert "This workload's department q-1 was over its quota then" in other.headline
    assert f"The reclaimer's department q-2: 10 of its 40 {said}" in _texts(other)
    assert max(len(same.headline), len(other.headline)) <= HEADLINE_MAX
    assert any("different departments" in m for m in other.missing)


@pytest.mark.parametrize("theirs", [ML_PLATFORM, RESEARCH], ids=["same-department", "other"])
async def test_a_shared_report_and_all_its_evidence_shown_again_say_no_more(theirs):
    """A reader's answer, shared and kept, then shown to someone who may not read nlp."""
    scenario, memo = _unnamed_queues(theirs), Memo()
    first = await _asked(scenario, EVERYTHING, share=memo)
    second = await _asked(scenario, NOT_NLP, share=memo)
    assert len([k for k in memo.kept if k[0] == "report"]) == 1  # computed once
    assert "serve-llama-70b" in first.headline
    alone = await _asked(_unnamed_queues(RESEARCH), NOT_NLP)
    assert second == alone  # the shared report told them no more than their own
    again = await for_viewer(first, NOT_NLP)
    assert _shown(again) == _shown(await for_viewer(alone, NOT_NLP))
    kept = first.model_dump_json()  # what the reader's thread keeps
    assert "10 GPUs with a quota of 40" in kept
    assert first.without_preemptor is not None
    assert "10 GPUs with a quota of 40" not in first.without_preemptor.model_dump_json()


def test_a_gap_found_before_the_answer_is_missing_from_the_one_for_others_too():
    ev = b.preemption_evidence(events=[b.evict(b.RECLAIM)], by=b.preemptor(project="nlp"))
    gap = Gap(source="kubectl get events", what="Kubernetes evidence: its access failed")
    report = _with_gaps(compose_preemption(ev, decide_kind(ev)), gap)
    assert report.without_preemptor is not None
    assert gap.what in report.missing
    assert gap.what in report.without_preemptor.missing


def _not_above(priority: int) -> Scenario:
    """`preempted-contradiction` with the named preemptor's priority `priority` (the victim's: 50)."""
    scenario = bundled_scenario("preempted-contradiction")
    workloads = [w.model_copy(deep=True) for w in scenario.workloads]
    for entry in workloads:
        if entry.workload["name"] == "serve-llama-70b":
            entry.workload.update({"priority": priority, "priorityClassName": None})
    return scenario.model_copy(update={"workloads": workloads})


@pytest.mark.parametrize(
    "asker",
    [
        pytest.param(NOT_NLP, id="reads-both-departments"),
        pytest.param(NOT_NLP_NOR_DEPARTMENTS, id="reads-no-department"),
        pytest.param(TRAININGS_OF_NLP, id="reads-nlp-but-not-inferences"),
    ],
)
async def test_a_line_naming_its_department_does_not_tell_them_whether_the_departments_differ(
    asker,
):
    """The line names ml-platform, this workload's department, whichever the preemptor's is."""
    same = await _asked(_unnamed_queues(ML_PLATFORM, rename=False), asker)
    other = await _asked(_unnamed_queues(RESEARCH, rename=False), asker)
    assert same == other
    assert "different departments" not in _shown(same)
    said = "the project's own quota position at the eviction (the scheduler's reclaim line "
    assert f"{said}gives its department's)" in same.missing
    reader = await _asked(_unnamed_queues(RESEARCH, rename=False), EVERYTHING)
    assert any("different departments" in m for m in reader.missing)


async def test_a_contradiction_states_the_preemptors_priority_only_to_its_readers():
    report = await _asked(_not_above(40), EVERYTHING)
    assert report.preemption is not None
    assert report.preemption.kind == "UNKNOWN"
    said = "serve-llama-70b (project nlp, priority 40) is not above the victim's priority 50"
    assert f"Contradiction: the named preemptor {said}" in _texts(report)


#: The named preemptor's priority: at, below and above the victim's 50.
PRIORITIES = (10, 40, 50, 51, 125)


@pytest.mark.parametrize(
    "asker",
    [
        pytest.param(NOT_NLP, id="reads-both-departments"),
        pytest.param(TRAININGS_OF_NLP, id="reads-nlp-but-not-inferences"),
    ],
)
async def test_the_answer_is_the_same_whichever_priority_the_preemptor_has(asker):
    """The record's namespace is the contradiction they are told; the priority, never."""
    answers = [await _asked(_not_above(priority), asker) for priority in PRIORITIES]
    assert all(answer == answers[0] for answer in answers), PRIORITIES
    first = answers[0]
    assert first.preemption is not None
    assert first.preemption.kind == "UNKNOWN"
    assert "not above" not in first.model_dump_json()
    assert UNSEEN_PRIORITY not in first.model_dump_json()  # the record alone contradicts it
    assert any(t.startswith("Contradiction: a priority preemption names") for t in _texts(first))


def _same_project(priority: int) -> Scenario:
    """`_not_above(priority)` with serve-llama-70b in ml-team: only the priority contradicts."""
    scenario = _not_above(priority)
    workloads = [w.model_copy(deep=True) for w in scenario.workloads]
    for entry in workloads:
        for record in entry.events or ():
            if "message" in record:
                record["message"] = record["message"].replace("runai-nlp/", "runai-ml-team/")
        if entry.workload["name"] == "serve-llama-70b":
            entry.workload.update(
                {"projectId": "3", "projectName": "ml-team", "namespace": "runai-ml-team"}
            )
            entry.workload.update({"departmentId": ML_PLATFORM, "departmentName": "ml-platform"})
    return scenario.model_copy(update={"workloads": workloads})


#: ml-team's trainings (the victim), not its inferences (serve-llama-70b).
TRAININGS_OF_ML_TEAM = Asker(kinds=(("ml-team", "Training"),), departments=(ML_PLATFORM,))


@pytest.mark.parametrize("priority", [10, 40, 50])
async def test_a_contradiction_only_the_preemptors_priority_gives_is_stated_without_it(priority):
    """No other flag: they learn the record is not borne out, never by whose priority."""
    reader = await _asked(_same_project(priority), Asker("ml-team"))
    said = f"serve-llama-70b (project ml-team, priority {priority}) is not above the victim's"
    assert f"Contradiction: the named preemptor {said} priority 50" in _texts(reader)
    unseen = await _asked(_same_project(priority), TRAININGS_OF_ML_TEAM)
    assert unseen == await _asked(_same_project(10), TRAININGS_OF_ML_TEAM)  # whichever it is
    assert unseen.preemption is not None
    assert unseen.preemption.kind == "UNKNOWN"
    flags = [t for t in _texts(unseen) if t.startswith("Contradiction:")]
    assert flags == [f"Contradiction: {UNSEEN_PRIORITY}"]
    assert "not above" not in unseen.model_dump_json()
    assert "serve-llama-70b" not in unseen.model_dump_json()


UNKNOWN = bundled_scenario("preempted-unknown")  # vision-serve (an inference) started after


@pytest.mark.parametrize(
    ("asker", "listed"),
    [
        pytest.param(Asker("ml-team", "vision"), True, id="reads-vision"),
        pytest.param(Asker("ml-team", kinds=(("vision", "Inference"),)), True, id="its-kind"),
        pytest.param(Asker("ml-team"), False, id="not-vision"),
        pytest.param(Asker("ml-team", kinds=(("vision", "Training"),)), False, id="other-kind"),
    ],
)
async def test_a_candidate_by_timing_is_listed_only_to_whoever_may_read_it(asker, listed):
    """Nothing but its start ties it to the eviction: unreadable, it is not even counted."""
    report = await _asked(UNKNOWN, asker)
    assert report.preemption is not None
    assert len(report.preemption.candidates) == (1 if listed else 0)
    lines = [e.text for e in report.evidence if e.text.startswith("Not confirmed")]
    assert lines == (
        ["Not confirmed (started in its node pool just after the eviction): vision-serve "
         "(project vision, priority 125 (high))"] if listed else []
    )  # fmt: skip
    assert ("vision-serve" in report.model_dump_json()) is listed
    assert not any("a workload in another project" in e.text for e in report.evidence)


def _ran_again() -> Scenario:
    """The reclaim scenario with the victim Running again since (a survived eviction)."""
    workloads = [w.model_copy(deep=True) for w in RECLAIM.workloads]
    for entry in workloads:
        if entry.workload["name"] == "bert-pretrain":
            entry.workload["phase"] = "Running"
            again = {"creationTimestamp": "2025-11-04T09:12:00Z", "type": "PhaseUpdate"}
            entry.history.append({"meta": again, "spec": {"phaseUpdate": {"phase": "Running"}}})
    return RECLAIM.model_copy(update={"workloads": workloads})


@pytest.mark.parametrize(
    ("scenario", "symptom", "outcome"),
    [
        pytest.param(RECLAIM, Symptom.PENDING, Outcome.PENDING_SCHEDULING, id="why-pending"),
        pytest.param(_ran_again(), None, Outcome.RUNNING_NO_FAILURE, id="running-again"),
    ],
)
async def test_another_answer_says_when_it_was_preempted_never_the_records_words(
    scenario, symptom, outcome
):
    """Only the preemption answer cuts the record to each asker: any other does not quote it."""
    request = request_from_expectation(scenario, scenario.expect[0])
    request = request.model_copy(update={"symptom": symptom})
    async with simulated(scenario, retries=0, transport="asgi") as up:
        report = await diagnose(
            request, runai=up.runai, now=scenario.now, authorize=NOT_NLP_NOR_DEPARTMENTS
        )
    assert report.outcome is outcome
    text = report.model_dump_json()
    for leaked in ("serve-llama-70b", "runai-nlp", "research uses", "ml-platform uses"):
        assert leaked not in text, leaked
    said = "Event at 2025-11-04 09:10:00Z: it was preempted (the scheduler's record is not quoted"
    assert any(e.text.startswith(said) for e in report.evidence)


async def test_masking_keeps_each_line_what_it_was_but_its_words():
    """Its sources and the fact it reports (one line per fact) are the same for every asker."""
    reader = await _asked(UNKNOWN, Asker("ml-team", "vision"))
    masked = await _asked(UNKNOWN, Asker("ml-team"))  # the candidate hidden: masking runs

    def kept(report: Report) -> list[tuple[str | None, tuple[str, ...], bool]]:
        return [(e.fact, e.sources, e.deciding) for e in report.evidence if e.fact]

    assert kept(reader)
    assert kept(masked) == kept(reader)
