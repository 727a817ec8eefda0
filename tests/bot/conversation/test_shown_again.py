"""A thread's answer shown again is cut to the access of the person it is shown to.

The answer is computed with one person's access, who is not always the thread's asker: a
teammate's mention makes them the asker even when it is denied, and a teammate's mention
may answer the asker's question. Whoever the answer was not computed for sees its evidence
as a teammate (`diagnosis.for_viewer`) and may not post it. Channel C1 discusses another
project, so every answer here is private. Scenario `t2-ddp-node-xid`: the blast radius
names bert-eval (nlp) and sam-notebook (vision). Scenario `t2-oom-changed-since-good-run`,
its good run made a Workspace: the comparison with it is for those who may read Workspaces.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import cast

from bot.authz import Authorizer, Decision, Identity, Reach, Reason, Target
from bot.authz.decision import ALL_KINDS, ANY_KIND
from bot.conversation import (
    PUBLISH,
    RERUN,
    Access,
    EvidenceReply,
    Incoming,
    Notice,
    Question,
    ReportReply,
    report_action,
)
from diagnosis.viewer import BLAST_NOT_SHOWN, CHANGES_NOT_SHOWN
from runai_sim.scenario import Scenario
from tests.bot.conversation.harness import Harness, Recorder, harness
from tests.diagnosis.good_runs import FAILED_ID, GOOD_ID, with_good_run_as
from tests.diagnosis.node_xid import NODE_XID, REQUEST

#: user -> project -> the resource types they may read there.
GRANTS: dict[str, dict[str, frozenset[str]]] = {
    "UA": {"nlp": frozenset({ALL_KINDS}), "vision": frozenset({ALL_KINDS})},
    "UC": {"nlp": frozenset({ALL_KINDS}), "vision": frozenset({ALL_KINDS})},  # as UA
    "UB": {"nlp": frozenset({ALL_KINDS})},
    "UT": {"nlp": frozenset({"trainings"})},
}
BY_ID = f"cluster=prod-a id={REQUEST.workload_id}"
DENIED_MENTION = "<@UBOT> workload=foo project=vision"  # UB may not list vision
EVIDENCE = "<@UBOT> show all evidence"


class Grants:
    """What the engine asks of an `Authorizer`, answered from `GRANTS` for each person."""

    mode = "runai"

    def prefetch(self, identity: Identity) -> None: ...

    async def reach(self, identity: Identity) -> Reach:  # noqa: ARG002 - the Authorizer's signature
        return Reach(Reason.ALLOWED, everywhere=True)

    async def readable_projects(
        self,
        identity: Identity,
        cluster_id: str,  # noqa: ARG002 - the Authorizer's signature
    ) -> tuple[str, ...]:
        return tuple(GRANTS[identity.user_id])

    async def check(self, identity: Identity, target: Target) -> Decision:
        readable = GRANTS[identity.user_id].get(target.project, frozenset())
        decision = Decision(Reason.ALLOWED, target, readable)
        allowed = bool(readable) if target.kind is ANY_KIND else decision.allows_kind(target.kind)
        return decision if allowed else Decision(Reason.NO_READ_ACCESS, target, readable)


async def _identify(incoming: Incoming) -> Identity:
    return Identity("test", "T1", incoming.user, f"{incoming.user.lower()}@acme.ai")


async def _thread(scenario: Scenario = NODE_XID) -> AsyncIterator[Harness]:
    grants = cast("Authorizer", Grants())
    access = Access(grants, _identify, channel_projects={"C1": ("other",)})
    async for chat in harness(scenario, access=access):
        yield chat


def _evidence(recorder: Recorder) -> EvidenceReply:
    [reply] = recorder.replies()
    assert isinstance(reply, EvidenceReply)
    assert reply.private
    return reply


def _said(reply: EvidenceReply) -> str:
    return " ".join(e.text for e in reply.report.evidence)


async def test_a_teammate_who_took_the_thread_over_sees_the_evidence_as_a_teammate():
    async for chat in _thread():
        await chat.say(BY_ID, user="UA")
        denied = (await chat.say(DENIED_MENTION, user="UB")).replies()
        state = await chat.store.load(chat.key)
        assert state is not None
        assert state.asker == "UB", "the denied mention made them the asker"
        theirs = _evidence(await chat.say(EVIDENCE, user="UB"))
        hers = _evidence(await chat.say(EVIDENCE, user="UA"))
    assert [type(r) for r in denied] == [Notice]
    assert "sam-notebook" not in _said(theirs)
    assert BLAST_NOT_SHOWN in theirs.report.missing
    assert "sam-notebook" in _said(hers), "computed for her: shown to her as it is"


async def test_a_teammate_who_took_the_thread_over_may_not_post_the_answer():
    async for chat in _thread():
        await chat.say(BY_ID, user="UA")
        await chat.say(DENIED_MENTION, user="UB")
        refused = (await chat.click(PUBLISH, user="UB")).replies()
    assert len(refused) == 1
    assert isinstance(refused[0], Notice)
    assert refused[0].private, "only she saw the answer; it is not his to post"


async def test_the_asker_sees_a_teammates_answer_to_her_question_as_a_teammate():
    async for chat in _thread():
        [question] = (await chat.say("why did llm-ddp2 fail on prod-a", user="UB")).replies()
        answered = (await chat.say("<@UBOT> project nlp", user="UA")).replies()
        shown = _evidence(await chat.say(EVIDENCE, user="UB"))
    assert isinstance(question, Question)
    assert "project" in question.text
    assert isinstance(answered[0], ReportReply)
    assert "sam-notebook" in " ".join(e.text for e in answered[0].report.evidence)
    assert "sam-notebook" not in _said(shown), "computed with UA's access, not UB's"
    assert BLAST_NOT_SHOWN in shown.report.missing


async def test_check_again_shows_a_teammate_the_answer_they_never_saw():
    async for chat in _thread():
        [first, _] = (await chat.say(BY_ID, user="UA")).replies()
        again = (await chat.click(RERUN, user="UC")).replies()
        shown = _evidence(await chat.say(EVIDENCE, user="UC"))
    assert isinstance(first, ReportReply)
    assert first.private
    [report, offer] = again
    assert isinstance(report, ReportReply), "never 'nothing changed' to them"
    assert report.private
    assert report.report == first.report
    assert isinstance(offer, Question)
    assert [report_action(c.value)[0] for c in offer.choices] == [PUBLISH], "theirs to post"
    assert "sam-notebook" in _said(shown), "the same answer, now theirs: counted for them"


async def test_the_comparison_with_a_run_of_a_kind_a_teammate_may_not_read_is_left_out():
    scenario = with_good_run_as("workspaces", "Workspace")
    cluster = scenario.clusters[0]["name"]
    async for chat in _thread(scenario):
        [answer, _] = (await chat.say(f"cluster={cluster} id={FAILED_ID}", user="UA")).replies()
        trainings_only = _evidence(await chat.say(EVIDENCE, user="UT"))
        every_kind = _evidence(await chat.say(EVIDENCE, user="UB"))
    assert isinstance(answer, ReportReply)
    assert answer.report.changes is not None
    assert answer.report.changes.since_id == GOOD_ID
    assert trainings_only.report.changes is None
    assert CHANGES_NOT_SHOWN in trainings_only.report.missing
    assert every_kind.report.changes == answer.report.changes
