"""A Pending answer quoting the scheduler on a department's limit, again in the thread.

Scenario `tests.diagnosis.department_limit`: the scheduler says llama-8b-eval (ml-team) is
over its department ml-platform's limit, with that department's figures. UR may read the
department, UO only the project: whatever UR was told, UO is shown none of the department's
figures, asking for all the evidence or checking again; UR checking UO's answer again gets
them. Channel C1 discusses another project, so every answer here is private.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import cast

import pytest

from bot.authz import Authorizer, Decision, Identity, Reach, Reason, Target
from bot.authz.decision import ALL_KINDS, ANY_KIND
from bot.conversation import PUBLISH, RERUN, Access, EvidenceReply, Incoming, ReportReply
from diagnosis import Report
from tests.bot.conversation.harness import Harness, Recorder, harness
from tests.diagnosis.department_limit import (
    FIGURES,
    ML_PLATFORM,
    WORKLOAD_ID,
    over_department_limit,
)

SCENARIO = over_department_limit()
BY_ID = f"cluster={SCENARIO.clusters[0]['name']} id={WORKLOAD_ID}"
EVIDENCE = "<@UBOT> show all evidence"
#: user -> the departments whose quota and usage they may read (both read ml-team).
DEPARTMENTS = {"UR": {ML_PLATFORM}, "UO": set()}


class Grants:
    """What the engine asks of an `Authorizer`, answered for UR and UO."""

    mode = "runai"

    def prefetch(self, identity: Identity) -> None: ...

    async def reach(self, identity: Identity) -> Reach:  # noqa: ARG002 - the Authorizer's signature
        return Reach(Reason.ALLOWED, everywhere=True)

    async def readable_projects(self, identity: Identity, cluster_id: str) -> tuple[str, ...]:  # noqa: ARG002 - the Authorizer's signature
        return ("ml-team",)

    async def check(self, identity: Identity, target: Target) -> Decision:  # noqa: ARG002 - the Authorizer's signature
        readable = frozenset({ALL_KINDS}) if target.project == "ml-team" else frozenset()
        decision = Decision(Reason.ALLOWED, target, readable)
        allowed = bool(readable) if target.kind is ANY_KIND else decision.allows_kind(target.kind)
        return decision if allowed else Decision(Reason.NO_READ_ACCESS, target, readable)

    async def reads_department(self, identity: Identity, cluster_id: str, department: str) -> bool:  # noqa: ARG002 - the Authorizer's signature
        return department in DEPARTMENTS[identity.user_id]


async def _identify(incoming: Incoming) -> Identity:
    return Identity("test", "T1", incoming.user, f"{incoming.user.lower()}@acme.ai")


async def _thread() -> AsyncIterator[Harness]:
    access = Access(cast("Authorizer", Grants()), _identify, channel_projects={"C1": ("other",)})
    async for chat in harness(SCENARIO, access=access):
        yield chat


def _report(recorder: Recorder) -> Report:
    reply = recorder.replies()[0]
    assert isinstance(reply, ReportReply | EvidenceReply)
    assert reply.private
    return reply.report


def _figures(report: Report) -> list[str]:
    text = report.model_dump_json()
    return [f for f in FIGURES if f in text]


async def test_all_the_evidence_of_a_readers_answer_has_none_of_its_figures_for_another():
    async for chat in _thread():
        theirs = _report(await chat.say(BY_ID, user="UR"))
        shown = _report(await chat.say(EVIDENCE, user="UO"))
    assert "limit 12 GPUs, allocated 14 GPUs" in theirs.headline
    assert _figures(shown) == []
    assert "(the department's figures: not shown here)" in shown.headline


async def test_checking_again_gives_each_person_what_they_may_read():
    async for chat in _thread():
        first = _report(await chat.say(BY_ID, user="UR"))
        other = _report(await chat.click(RERUN, user="UO"))
        back = _report(await chat.click(RERUN, user="UR"))
    assert "limit 12 GPUs" in first.headline
    assert _figures(other) == []
    assert other.pending is not None
    assert other.pending.reason == "OVER_LIMIT"
    assert "limit 12 GPUs" in back.headline


@pytest.mark.parametrize(
    ("again", "reads", "figures"),
    [
        pytest.param(EVIDENCE, {ML_PLATFORM}, True, id="all the evidence, still a reader"),
        pytest.param(EVIDENCE, set(), False, id="all the evidence, no longer a reader"),
        pytest.param(PUBLISH, {ML_PLATFORM}, True, id="posted to the thread, still a reader"),
        pytest.param(PUBLISH, set(), False, id="posted to the thread, no longer a reader"),
    ],
)
async def test_the_person_an_answer_was_for_gets_it_again_with_their_access_of_today(
    again: str,
    reads: set[str],
    figures: bool,  # noqa: FBT001 - a table's column
):
    async for chat in _thread():
        theirs = _report(await chat.say(BY_ID, user="UR"))
        DEPARTMENTS["UR"] = reads  # their department rule changed since
        try:
            if again == PUBLISH:
                [posted] = (await chat.click(PUBLISH, user="UR")).replies()
                assert isinstance(posted, ReportReply)
                shown = posted.report
            else:
                shown = _report(await chat.say(again, user="UR"))
        finally:
            DEPARTMENTS["UR"] = {ML_PLATFORM}
    assert _figures(theirs) != []
    assert (_figures(shown) != []) is figures
