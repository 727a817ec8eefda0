"""The preemptor is named only to an asker who may read it (its project and kind, checked).

Everything else of the answer is the same for every asker: the kind, the victim's quota
position, the count. A party the asker may not read is "a workload in another project"
everywhere (headline, quoted records, evidence), its JSON members null.
"""

from __future__ import annotations

import json

import pytest

from diagnosis.access import DepartmentAccess, WorkloadAccess
from diagnosis.evidence import Gap
from diagnosis.preemption.compose import compose_preemption
from diagnosis.preemption.kinds import decide_kind
from diagnosis.preemption.party import party
from diagnosis.preemption.visibility import for_asker
from diagnosis.report import Report
from diagnosis.runai.models import Workload
from tests.diagnosis.preemption import builders as b
from tests.diagnosis.preemption.askers import Asker
from tests.factories import CLUSTER, workload


def _serve() -> Workload:
    return workload(
        id="5e7a1c3d-8b2f-4a6e-9c1d-0f2e3a4b5c6d",
        name="serve-70b",
        type="Inference",
        projectName="nlp",
        namespace="runai-nlp",
        priority=125,
        priorityClassName="high",
    )


def reclaim_report() -> Report:
    by = party(
        _serve(),
        podgroup="pg-serve-70b-0-1a2b3c4d",
        namespace="runai-nlp",
        project="nlp",
        victim=b.victim(),
        priorities=None,
    )
    ev = b.preemption_evidence(events=[b.evict(b.RECLAIM)], by=by)
    return compose_preemption(ev, decide_kind(ev))


def _text(report: Report) -> str:
    return json.dumps(report.to_json_dict("24h"))


def _seen(report: Report) -> Report:
    """What the asker is shown (not the answer it carries for who may not read the preemptor)."""
    return report.model_copy(update={"without_preemptor": None})


async def test_an_asker_who_may_read_it_sees_the_preemptor():
    report = reclaim_report()
    asker = Asker(("nlp", "Inference"))
    shown = await for_asker(report, asker)
    assert _seen(shown) == _seen(report)
    assert asker.asked == [WorkloadAccess(CLUSTER, "nlp", "Inference")]  # the kind is checked
    assert shown.to_json_dict("24h")["preemption"]["by"] == {
        "name": "serve-70b",
        "project": "nlp",
        "priority": 125,
    }


async def test_an_asker_who_may_not_read_it_never_sees_its_name_project_or_priority():
    report = reclaim_report()
    assert "serve-70b" in _text(report)
    shown = await for_asker(report, Asker(("nlp", "Training")))  # the project, not that kind
    text = _text(shown)
    for leaked in ("serve-70b", "runai-nlp", "pg-serve", "nlp uses", "priority 125"):
        assert leaked not in text, leaked
    assert "a workload in another project" in shown.headline
    assert "by workload [a workload in another project]" in text
    # Its project's queue figures are its own: cut, and whose queue it is is not said.
    assert "4 GPUs with a quota of 16" not in text
    assert "[the reclaimer's queue: not shown here]" in text
    assert "its project's queue" not in text
    assert "ml-team uses 12 GPUs" in text  # the asker's own project stays named
    data = shown.to_json_dict("24h")["preemption"]
    assert data["by"] == {"name": None, "project": None, "priority": None}
    assert (data["kind"], data["victim_over_quota"], data["count"]) == (
        "RECLAIM_FAIR_SHARE",
        True,
        1,
    )


async def test_a_party_whose_kind_is_unknown_cannot_be_checked_so_it_is_hidden():
    by = party(
        None,
        podgroup="pg-serve-70b-0-1a2b3c4d",
        namespace="runai-nlp",
        project="nlp",
        victim=b.victim(),
        priorities=None,
    )
    ev = b.preemption_evidence(events=[b.evict(b.RECLAIM)], by=by)
    report = compose_preemption(ev, decide_kind(ev))
    asker = Asker(("nlp", "Inference"))
    shown = await for_asker(report, asker)
    assert asker.asked == []
    assert "pg-serve-70b" not in _text(shown)


async def test_a_hidden_preemptor_of_the_same_project_is_another_workload_in_this_project():
    ev = b.preemption_evidence(by=b.preemptor())
    report = compose_preemption(ev, decide_kind(ev))
    shown = await for_asker(report, Asker())
    assert "eval-prod" not in _text(shown)
    assert "another workload in this project" in shown.headline
    assert (
        "runai-ml-team/v-0-0 was preempted by higher priority workload [another workload in this project]"
        in _text(shown)
    )


async def test_candidates_are_checked_one_by_one():
    seen = party(_serve(), podgroup="serve-70b", namespace="runai-nlp", project="nlp",
                 victim=b.victim(), priorities=None, confirmed=False)  # fmt: skip
    vision = workload(
        id="1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
        name="seg-serve",
        type="Inference",
        projectName="vision",
        namespace="runai-vision",
    )
    other = party(vision, podgroup="seg-serve", namespace="runai-vision", project="vision",
                  victim=b.victim(), priorities=None, confirmed=False)  # fmt: skip
    ev = b.preemption_evidence(events=[b.evict("Pod runai-ml-team/v-0-0 was preempted")])
    ev = ev.model_copy(update={"candidates": (seen, other)})
    report = compose_preemption(ev, decide_kind(ev))
    shown = await for_asker(report, Asker(("nlp", "Inference")))
    text = _text(shown)
    assert "serve-70b" in text
    assert "seg-serve" not in text
    assert "vision" not in text
    assert shown.preemption is not None
    assert [c.hidden for c in shown.preemption.candidates] == [False, True]


async def test_without_an_access_check_nothing_is_hidden():
    report = reclaim_report()
    assert await for_asker(report, None) is report
    plain = Report.model_validate({"outcome": "diagnosed"})
    assert await for_asker(plain, Asker()) is plain


async def test_nothing_of_a_hidden_party_stays_in_the_askers_report_object():
    shown = await for_asker(reclaim_report(), Asker())
    whole = shown.model_dump_json()  # what a conversation store would keep
    for leaked in ("serve-70b", "runai-nlp", "Inference", '"nlp"'):
        assert leaked not in whole, leaked


def _across_departments() -> Report:
    """A reclaim whose line names two unnamed parent queues (q-1: the victim's, q-2)."""
    text = b.RECLAIM.replace("ml-team uses", "q-1 uses").replace("nlp uses", "q-2 uses")
    serve = _serve().model_copy(update={"department_id": "2"})
    by = party(serve, podgroup="pg-serve-70b-0-1a2b3c4d", namespace="runai-nlp", project="nlp",
               victim=b.victim(), priorities=None)  # fmt: skip
    victim = b.victim(departmentId="1", departmentName="ml-platform")
    ev = b.preemption_evidence(victim, events=[b.evict(text)], by=by)
    return compose_preemption(ev.model_copy(update={"preemptor_workload": serve}), decide_kind(ev))


async def test_each_departments_queue_is_checked_and_cut_on_its_own():
    report = _across_departments()
    assert "q-1 uses 12 GPUs" in _text(report)
    reclaimer = "The reclaimer's department q-2: 4 of its 16 quota GPUs in use at the eviction"
    assert reclaimer in [e.text for e in report.evidence]
    asker = Asker(("nlp", "Inference"), departments=("1",))
    shown = await for_asker(report, asker)
    assert set(asker.checked) == {DepartmentAccess(CLUSTER, "1"), DepartmentAccess(CLUSTER, "2")}
    text = _text(shown)
    assert "q-1 uses 12 GPUs" in text  # the victim's department: theirs to read
    assert "q-2" not in text  # the reclaimer's department: not
    assert "4 of its 16" not in text
    assert "[the reclaimer's department's queue: not shown here]" in text
    assert "serve-70b" in text  # the preemptor itself they may read
    assert "q-2" not in shown.model_dump_json()  # nothing of it kept in the report object


@pytest.mark.parametrize(
    ("text", "carried"),
    [
        pytest.param(b.PRIORITY, False, id="priority-preemption-no-queues"),
        pytest.param(b.RECLAIM, True, id="reclaim-the-reclaimers-queue"),
    ],
)
def test_the_answer_for_who_may_not_read_the_preemptor_is_carried_when_it_differs(text, carried):
    ev = b.preemption_evidence(events=[b.evict(text)], by=b.preemptor(project="nlp"))
    report = compose_preemption(ev, decide_kind(ev))
    assert (report.without_preemptor is not None) is carried
    if carried:
        unseen = report.without_preemptor
        assert unseen is not None
        assert unseen.without_preemptor is None
        assert report.preemption is not None
        assert unseen.preemption is not None
        # nlp's queue is a project's: whoever may read the preemptor may see its figures...
        assert [q.whose for q in report.preemption.queues] == []
        # ...and, with no department to check, cut for whoever may not read the preemptor.
        [theirs] = unseen.preemption.queues
        assert (theirs.whose, theirs.queue, theirs.department_id) == ("reclaimer", "nlp", None)


def _named_preemptor(found: str) -> Report:
    """A reclaim by serve-70b whose workload was `found`, not found, or could not be read."""
    workload = _serve() if found == "found" else None
    by = party(workload, podgroup="serve-70b", namespace="runai-nlp", project="nlp",
               victim=b.victim(), priorities=None)  # fmt: skip
    ev = b.preemption_evidence(events=[b.evict(b.RECLAIM)], by=by)
    if workload is not None:
        ev = ev.model_copy(update={"preemptor_workload": workload})
    if found == "unread":
        gap = Gap(source="list_workloads", what="the preemptor's workload: 503")
        ev = ev.model_copy(update={"gaps": (gap,)})
    return compose_preemption(ev, decide_kind(ev))


def _preemptor_line(report: Report) -> str:
    [line] = [e.text for e in report.evidence if e.text.startswith("Named preemptor:")]
    return line


@pytest.mark.parametrize(
    ("found", "unchecked"),
    [
        pytest.param("found", "Named preemptor: serve-70b (project nlp, priority 125 (high))", id="found"),
        pytest.param("missing", "Named preemptor: serve-70b (project nlp) (no workload of that name)", id="not-found"),
        pytest.param("unread", "Named preemptor: serve-70b (project nlp) (its workload could not be read)", id="not-read"),
    ],
)  # fmt: skip
async def test_a_hidden_preemptor_is_said_the_same_whether_its_workload_exists(found, unchecked):
    """Whether a workload of that name exists in a project they may not read is not theirs."""
    report = _named_preemptor(found)
    assert _preemptor_line(report) == unchecked  # the command line: as it was read
    shown = await for_asker(report, Asker())
    assert _preemptor_line(shown) == "Named preemptor: a workload in another project"
